/**
 * Launching under confinement: the command must be one program the person
 * allowed (`launch.allow` / HYPRUSE_LAUNCH_ALLOW) with plain arguments.
 * `launch` runs its command under `sh -c`, so anything the shell would
 * interpret beyond words and quotes (`;`, `&`, `|`, redirections, `$`,
 * backquotes, globs, a leading `VAR=value`, newlines) could run a second
 * program or write a file: it is refused under confinement.
 */
export type LaunchCheck = { ok: true; program: string } | { ok: false; reason: string };

/** Split a command line into words the way `sh` would for a plain command, or say why it is not one. */
export function plainWords(command: string): string[] | string {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return 'it has an unclosed single quote';
      cur += command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if ('$`\\'.includes(command[j])) return `it has ${JSON.stringify(command[j])} inside double quotes, which the shell expands`;
        cur += command[j];
      }
      if (j >= command.length) return 'it has an unclosed double quote';
      i = j;
    } else if (/[;&|<>()$`\\\n\r*?[\]{}~#!]/.test(c)) {
      return `it has the shell character ${JSON.stringify(c)}, which could run or redirect more than one program`;
    } else cur += c;
  }
  if (inWord) words.push(cur);
  return words;
}

/** The program of a plain command, checked against the allowed list (bare names match bare names; paths match exactly). */
export function checkLaunch(command: string, allow: readonly string[]): LaunchCheck {
  const words = plainWords(command.trim());
  if (typeof words === 'string') return { ok: false, reason: `the command is not one plain program with arguments: ${words}` };
  const program = words[0];
  if (!program) return { ok: false, reason: 'the command names no program' };
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program)) return { ok: false, reason: `the command starts with an environment assignment (${program.split('=')[0]}=...)` };
  const allowed = allow.map((a) => a.trim()).filter(Boolean);
  if (!allowed.includes(program)) {
    return {
      ok: false,
      reason: allowed.length ? `${JSON.stringify(program)} is not an allowed program (allowed: ${allowed.join(', ')})` : `no program is allowed to be launched (launch.allow is empty), so ${JSON.stringify(program)} cannot be`,
    };
  }
  return { ok: true, program };
}
