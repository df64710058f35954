import type { TrustLayer } from '@hypruse/core';
import { beaconLayer } from './beacon.js';
import { authLayer } from './layers/auth.js';
import { confineLayer } from './layers/confine.js';
import { dangerousLayer } from './layers/dangerous.js';
import { dryRunLayer } from './layers/dry-run.js';
import { indicatorLayer } from './layers/indicator.js';
import { journalLayer } from './layers/journal.js';
import { layerGuard } from './layers/layer.js';
import { lockLayer } from './layers/lock.js';
import { markLayer } from './layers/mark.js';
import { policyLayer } from './layers/policy.js';
import { agentInputLayer, presenceLayer } from './layers/presence.js';
import { readonlyLayer } from './layers/readonly.js';
import { backgroundLayer } from './layers/background.js';
import { strictLayer } from './layers/strict.js';

/** The one list of built-in trust layers (ordered at run time by TRUST_ORDER). */
export const ALL_LAYERS: TrustLayer[] = [
  journalLayer,
  beaconLayer,
  readonlyLayer,
  backgroundLayer,
  presenceLayer,
  lockLayer,
  authLayer,
  confineLayer,
  policyLayer,
  strictLayer,
  layerGuard,
  dangerousLayer,
  markLayer,
  indicatorLayer,
  agentInputLayer,
  dryRunLayer,
];
