/// <reference types="vite/client" />
// The compositor contract suite (@hypruse/contract-kit, the same one a
// third-party plugin runs) against every target here (targets/*.ts: real
// headless sway, the Hyprland and niri simulators; the guest's real
// compositors when HYPRUSE_CONTRACT_TARGETS names them).
import * as vitest from 'vitest';
import { contractSuite, type ContractTarget } from '@hypruse/contract-kit';

const modules = import.meta.glob<{ target: ContractTarget }>('./targets/*.ts', { eager: true });
const targets = Object.entries(modules).map(([file, m]) => {
  if (!m.target) throw new Error(`${file} does not export \`target\``);
  return m.target;
});

// HYPRUSE_CONTRACT_TARGETS=id,id runs only those; in CI a target that cannot run fails
const only = (process.env.HYPRUSE_CONTRACT_TARGETS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
await contractSuite(vitest, targets, { only, requireAll: !!process.env.CI });
