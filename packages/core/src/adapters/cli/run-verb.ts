import { readFileSync } from 'node:fs';
import type { Pipeline } from '../../pipeline/pipeline.js';
import { exitCodeFor, toHypruseError, HypruseError } from '../../errors.js';
import type { AnyTool } from '../../contracts/tool.js';
import { validateArgs } from '../../pipeline/validate.js';
import { errorText, resultJson, resultText } from '../render.js';
import { parseVerbArgs, verbHelp } from './schema.js';
import { reportUsage } from './precheck.js';
import { escapeControlChars } from '../../text.js';

export interface VerbIO {
  out: (s: string) => void;
  err: (s: string) => void;
  stdin: () => string;
  signal?: AbortSignal;
  /** Ask the person at the terminal (only when the verb runs in one: stdin and stderr are TTYs); null when it cannot ask. */
  confirm?: (message: string) => Promise<boolean | null>;
}

export const defaultIO: VerbIO = {
  // what windows, apps and agents wrote reaches a terminal here: control characters shown as escapes
  out: (s) => process.stdout.write(escapeControlChars(s.endsWith('\n') ? s : `${s}\n`, '\n\t')),
  err: (s) => process.stderr.write(escapeControlChars(s.endsWith('\n') ? s : `${s}\n`, '\n\t')),
  stdin: () => readFileSync(0, 'utf8').replace(/\n$/, ''),
};

/**
 * A verb's arguments checked against its tool alone, before any session exists: a usage error
 * is reported (and its exit code returned) without loading plugins or reaching the compositor.
 * Returns null when the arguments are fine (or only ask for --help): run the verb.
 */
export function checkVerbArgs(tool: AnyTool, verb: string, argv: string[], io: VerbIO = defaultIO): number | null {
  try {
    const { args, flags } = parseVerbArgs(tool, argv, io.stdin);
    if (!flags.help) validateArgs(verb, tool.input, args);
    return null;
  } catch (err) {
    return reportUsage(err, verb, argv, io);
  }
}

/** Run one tool as a shell verb: same pipeline, text or --json output, exit codes 0/1/2/3/4. */
export async function runVerb(pipeline: Pipeline, verb: string, argv: string[], io: VerbIO = defaultIO): Promise<number> {
  let json = argv.includes('--json');
  try {
    const tool = pipeline.registry.get(verb);
    const name = pipeline.registry.nameOf(tool);
    const { args, flags } = parseVerbArgs(tool, argv, io.stdin);
    json = flags.json;
    if (flags.help) {
      io.out(verbHelp(tool, name));
      return 0;
    }
    const r = await pipeline.call(name, args, {
      dryRun: flags.dryRun,
      signal: io.signal,
      progress: (m) => io.err(`hypruse: ${m}`),
      ...(io.confirm ? { confirm: io.confirm } : {}),
    });
    if (json) io.out(JSON.stringify({ ok: true, tool: name, result: resultJson(r) }));
    else io.out(resultText(r));
    return r.exit ?? 0;
  } catch (err) {
    const e: HypruseError = toHypruseError(err);
    if (json) io.out(JSON.stringify({ ok: false, tool: verb, error: { category: e.category, code: e.code, message: e.message, hint: e.hint ?? null, ...(e.data ? { data: e.data } : {}) } }));
    io.err(`hypruse: ${errorText(e)}`);
    return exitCodeFor(e.category);
  }
}
