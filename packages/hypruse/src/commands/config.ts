import { z } from 'zod';
import { ConfigSchema, errorText, exitCodeFor, toHypruseError } from '@hypruse/core';
import { createSession } from '../session.js';
import type { Command } from './types.js';

function leaves(obj: unknown, prefix = ''): Array<[string, unknown]> {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj) || (prefix && Object.keys(obj).length === 0)) return [[prefix, obj]];
  return Object.entries(obj as Record<string, unknown>).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}

export const configCommand: Command = {
  name: 'config',
  summary: 'print the effective configuration, which file set each value, and what a project config was not allowed to change',
  usage: 'hypruse config [--json] [--schema]',
  async run(argv) {
    if (argv.includes('--schema')) {
      const js = z.toJSONSchema(ConfigSchema, { io: 'input' });
      process.stdout.write(`${JSON.stringify(js, null, 2)}\n`);
      return 0;
    }
    try {
      const s = await createSession({ source: 'cli', noCompositor: true });
      if (argv.includes('--json')) {
        process.stdout.write(`${JSON.stringify({ file: s.loaded.file, project: s.loaded.project, ignored: s.loaded.ignored, config: s.config, sources: s.loaded.sources })}\n`);
        return 0;
      }
      const lines = [`config file: ${s.loaded.file ?? '(none; defaults and environment only)'}`];
      if (s.loaded.project) lines.push(`project config: ${s.loaded.project} (it can only make the person's limits stricter)`);
      for (const i of s.loaded.ignored) lines.push(`ignored: ${i.path}: ${i.reason}`);
      const rows = leaves(s.config);
      const width = Math.max(...rows.map(([k]) => k.length));
      for (const [k, v] of rows) lines.push(`${k.padEnd(width)}  ${JSON.stringify(v)}  (${s.loaded.sources[k] ?? 'default'})`);
      process.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    } catch (err) {
      const e = toHypruseError(err);
      process.stderr.write(`hypruse: ${errorText(e)}\n`);
      return exitCodeFor(e.category);
    }
  },
};
