import { UsageError } from '../errors.js';
import { LAUNCH_TOKEN_VAR } from './launch-match.js';

/** POSIX single-quote a word for `sh`. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * One shell command line that runs `command` under `sh -c` with the launch
 * token and the caller's extra environment set: for compositors that start the
 * process themselves (Hyprland `exec`), so hypruse cannot pass an env.
 */
export function wrapLaunchCommand(command: string, token: string, env: Record<string, string> = {}): string {
  const assigns = [`${LAUNCH_TOKEN_VAR}=${shQuote(token)}`];
  for (const [k, v] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      throw new UsageError(`'${k}' is not an environment variable name`, {
        code: 'usage.arguments',
        hint: 'Names are letters, digits and underscores, not starting with a digit.',
      });
    }
    assigns.push(`${k}=${shQuote(v)}`);
  }
  return `env ${assigns.join(' ')} sh -c ${shQuote(command)}`;
}
