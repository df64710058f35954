import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { checkVerbArgs, errorText, exitCodeFor, runVerb, toHypruseError, type AnyTool, type VerbIO } from '@hypruse/core';
import { ALL_TOOLS } from '@hypruse/tools';
import { VERSION } from './version.js';

/** A built-in tool by any name it is listed under (its name or an alias), without building a session. */
function builtinTool(verb: string): AnyTool | undefined {
  return ALL_TOOLS.find((t) => t.name === verb || t.aliases?.includes(verb));
}

async function help(): Promise<string> {
  const lines = [
    `hypruse ${VERSION}: native Wayland desktop control for AI agents (MCP server and shell verbs)`,
    '',
    'Usage:',
    '  hypruse                    run the MCP server on stdio (also: hypruse serve)',
    '  hypruse serve --http       serve MCP over Streamable HTTP on 127.0.0.1 with a bearer token (--host, --port)',
    '  hypruse <verb> [action] [--flags] [--json] [--dry-run]',
    '  hypruse <verb> --help      flags of one verb',
    '',
    'Verbs (tools):',
  ];
  const [{ COMMANDS }, { createSession }] = await Promise.all([import('./commands/index.js'), import('./session.js')]);
  try {
    const s = await createSession({ source: 'cli', noCompositor: true });
    for (const t of s.registry.all()) {
      const name = s.registry.nameOf(t);
      lines.push(`  ${name.padEnd(12)} ${t.kind === 'observe' ? '[observe]' : '[act]    '} ${t.title}`);
    }
  } catch (err) {
    lines.push(`  (cannot list tools: ${toHypruseError(err).message})`);
  }
  lines.push('', 'Commands:');
  for (const c of COMMANDS) lines.push(`  ${c.name.padEnd(12)} ${c.summary}`);
  lines.push(
    '',
    'Exit codes: 0 delivered, 1 error, 2 usage, 3 refused by a trust layer or read-only mode, 4 ran but found nothing to act on.',
    'Configuration: hypruse.config.ts (or .json, .hypruserc, package.json "hypruse", ~/.config/hypruse/config.ts) and HYPRUSE_* variables; `hypruse config` shows the effective values.',
  );
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-V' || first === 'version') {
    process.stdout.write(`hypruse ${VERSION}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${await help()}\n`);
    return 0;
  }
  if (first === undefined || first === 'serve' || first.startsWith('-')) {
    if (first === undefined && process.stdin.isTTY) {
      process.stderr.write('hypruse is an MCP server speaking JSON-RPC on stdio; register it with your MCP client, or run `hypruse --help` for the shell verbs.\n');
      return 0;
    }
    if (first !== undefined && first !== 'serve') {
      process.stderr.write(`hypruse: usage: unknown option ${first}; see hypruse --help\n`);
      return 2;
    }
    const { serveCommand } = await import('./commands/serve.js');
    return serveCommand.run(rest);
  }
  let stdinText: string | null = null;
  const io: VerbIO = {
    out: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
    // read once: the arguments are parsed before the session and again by the verb
    stdin: () => (stdinText ??= process.stdin.isTTY ? '' : readFileSync(0, 'utf8').replace(/\n$/, '')),
    // a question for the person only when a person can be at the terminal (stdin and stderr are a TTY)
    ...(process.stdin.isTTY && process.stderr.isTTY ? { confirm: askAtTerminal } : {}),
  };
  // a built-in verb's arguments are checked before anything else loads: usage errors are immediate
  const tool = builtinTool(first);
  if (tool) {
    const code = checkVerbArgs(tool, first, rest, io);
    if (code !== null) return code;
  }
  const [{ COMMANDS }, { createSession }] = await Promise.all([import('./commands/index.js'), import('./session.js')]);
  const command = tool ? undefined : COMMANDS.find((c) => c.name === first);
  if (command) return command.run(rest);

  // every tool is a verb
  let session;
  try {
    session = await createSession({ source: 'cli' });
  } catch (err) {
    const e = toHypruseError(err);
    process.stderr.write(`hypruse: ${errorText(e)}\n`);
    return exitCodeFor(e.category);
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, onSignal);
  try {
    if (!session.registry.find(first)) {
      const names = session.registry.all().map((t) => session.registry.nameOf(t));
      process.stderr.write(`hypruse: usage: unknown verb "${first}"; verbs: ${names.join(', ')}; commands: ${COMMANDS.map((c) => c.name).join(', ')}\n`);
      return 2;
    }
    return await runVerb(session.pipeline, first, rest, { ...io, signal: controller.signal });
  } finally {
    await session.dispose();
  }
}

/** Ask a yes/no question on the terminal (stderr), read the answer from stdin: only "y" or "yes" agrees. */
async function askAtTerminal(message: string): Promise<boolean> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.once('close', () => resolve(''));
      rl.question(`hypruse: ${message} [y/N] `, resolve);
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
