import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { shQuote, wrapLaunchCommand } from '../src/process/launch-command.js';
import { LAUNCH_TOKEN_VAR } from '../src/process/launch-match.js';
import type { ProcessTable } from '../src/process/proc.js';
import { startLaunch, type Spawner } from '../src/process/spawn.js';

describe('launch command line', () => {
  it('single-quotes words, closing and escaping embedded quotes', () => {
    expect(shQuote('plain')).toBe(`'plain'`);
    expect(shQuote(`it's`)).toBe(`'it'\\''s'`);
    expect(shQuote('')).toBe(`''`);
  });

  it('wraps a command with the token and extra env, the command as one sh -c word', () => {
    const cmd = `x") ; rm -rf ~ '$HOME'`;
    expect(wrapLaunchCommand(cmd, 'tok', { MY_VAR: `it's` })).toBe(
      `env ${LAUNCH_TOKEN_VAR}='tok' MY_VAR='it'\\''s' sh -c 'x") ; rm -rf ~ '\\''$HOME'\\'''`,
    );
  });

  it('refuses an environment variable name that is not one, as a usage error', () => {
    expect(() => wrapLaunchCommand('foot', 'tok', { 'A B': '1' })).toThrow(UsageError);
    expect(() => wrapLaunchCommand('foot', 'tok', { '1X': '1' })).toThrow(/not an environment variable name/);
  });
});

describe('startLaunch', () => {
  it('spawns with a fresh token over any given one and matches by root and token', async () => {
    const seen: NodeJS.ProcessEnv[] = [];
    const spawner: Spawner = async (_cmd, env) => (seen.push(env), { pid: 300, exitCode: () => undefined });
    const env: Record<number, Record<string, string>> = {};
    const table: ProcessTable = { parent: (pid) => (pid === 300 || pid in env ? 1 : null), envVar: (pid, n) => env[pid]?.[n] ?? null, pids: () => [300] };
    const a = await startLaunch('app', { KEEP: '1', [LAUNCH_TOKEN_VAR]: 'stale' }, { spawner, table });
    expect(seen[0]).toMatchObject({ KEEP: '1', [LAUNCH_TOKEN_VAR]: a.token });
    expect(a.token).not.toBe('stale');
    expect(a.matcher.root).toBe(300);
    env[301] = { [LAUNCH_TOKEN_VAR]: a.token };
    env[302] = { [LAUNCH_TOKEN_VAR]: 'stale' };
    expect(a.matcher.owns(300)).toBe(true);
    expect(a.matcher.owns(301)).toBe(true);
    expect(a.matcher.owns(302)).toBe(false);
    const b = await startLaunch('app', {}, { spawner, table });
    expect(b.token).not.toBe(a.token);
  });
});
