import { definePlugin, PLUGIN_API_VERSION, Tokens, type TrustLayer } from '@hypruse/core';
import { ALL_LAYERS } from './all.js';

export { ALL_LAYERS };
export { journalLayer } from './layers/journal.js';
export { readonlyLayer } from './layers/readonly.js';
export { backgroundLayer } from './layers/background.js';
export { lockLayer, createLockLayer, lockState, type LockState } from './layers/lock.js';
export { authLayer } from './layers/auth.js';
export { confineLayer, parseScopes, inScope, launchedAddress, type Scope } from './layers/confine.js';
export { checkLaunch, plainWords, type LaunchCheck } from './launch-allow.js';
export { policyLayer, tierOf, type Tier } from './layers/policy.js';
export { strictLayer, rebaseline } from './layers/strict.js';
export { layerGuard, coveringLayer, keyboardGrab } from './layers/layer.js';
export { dangerousLayer, dangerousMatch, dangerousWords } from './layers/dangerous.js';
export { markLayer, installMarkRule, OWNED_TAG } from './layers/mark.js';
export { dryRunLayer } from './layers/dry-run.js';
export { presenceLayer, agentInputLayer } from './layers/presence.js';
export { indicatorLayer, indicatorLabel, indicatorAct, LABEL_MAX } from './layers/indicator.js';
export { SeatPresence, IDLE_GRANULARITY_MS, IDLE_SLACK_MS, type IdleSource, type IdleSink, type SeatPresenceOptions } from './presence/seat-presence.js';
export { TakeoverTracker, lastUncovered, type TakeoverTrackerOptions } from './presence/takeover-tracker.js';
export { controlPath, readControl, writeControl, type ControlRecord } from './presence/control-file.js';
export {
  beaconLayer, createBeaconLayer, BeaconWriter, beaconWriter, beaconPath, beaconDir, beaconsDir, readBeacon, readBeacons, isHypruseProcess, safeLabel, type Beacon, type LiveBeacons,
} from './beacon.js';
export { systemLockProbe, LOCKER_NAMES, type LockProbe } from './lock-probe.js';
export { isAuthClass, isAuthLayer, isAuthWindow, AUTH_CLASSES } from './auth-match.js';
export { Journal, journalFor, journalMode, journalSessionStart, journalSessionStop } from './journal/journal.js';
export { JournalFile } from './journal/journal-file.js';
export { defaultJournalPath, resolveJournalPath } from './journal/paths.js';
export { redactArgs, digestText, isRedacted, hasRedacted, type RedactedText } from './journal/redact.js';
export { redactBySchema, redactUnknown, scrubText, type Redaction } from './journal/redact-schema.js';
export { JOURNAL_VERSION, head, type JournalRecord, type JournalKind, type JournalOutcome, type JournalMode } from './journal/record.js';

/** Registers every built-in trust layer into the session container. */
export const trustPlugin = definePlugin({
  name: 'trust',
  apiVersion: PLUGIN_API_VERSION,
  register(container) {
    for (const layer of ALL_LAYERS) container.register<TrustLayer>(Tokens.TrustLayer, { useValue: layer });
  },
});
export { readJournal, parseJournal, summarize, summaryLine, type ReadJournal, type JournalSummary } from './journal/read.js';
export {
  planReplay, paceMs, recordedWindows, REPLAYABLE_TOOLS, UNREPLAYED_ARGS, type ReplayPlan, type ReplayStep, type ReplayProblem,
  type ReplayPlanOptions,
} from './journal/replay-plan.js';
