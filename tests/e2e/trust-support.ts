// Helpers shared by the trust e2e files (not a test file itself).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { HypruseConfig } from '@hypruse/core';
import { createSession, type Session } from 'hypruse';

export const SRC_BIN = join(import.meta.dirname, '../../packages/hypruse/src/bin.ts');

/** A real session (real sway, input, AT-SPI, all trust layers) on the test desktop. */
export async function desktopSession(env: Record<string, string>, over: Partial<HypruseConfig> = {}, source: 'mcp' | 'cli' | 'replay' = 'mcp'): Promise<Session> {
  Object.assign(process.env, env);
  return createSession({ source, noFile: true, env: { ...process.env, ...env }, overrides: (c) => ({ ...c, ...over }) });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The hypruse CLI from sources (the same main() the built binary runs), with an explicit environment. */
export function cli(args: string[], env: Record<string, string>, timeoutMs = 60000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--conditions=@hypruse/source', '--import', 'tsx', SRC_BIN, ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...env }, timeout: timeoutMs, encoding: 'utf8', cwd: join(import.meta.dirname, '../..') },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(new Error(`hypruse ${args.join(' ')}: ${err.message}\n${stderr}`));
        resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
      },
    );
  });
}
