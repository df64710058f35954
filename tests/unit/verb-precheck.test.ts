import { describe, expect, it } from 'vitest';
import { checkVerbArgs, inputSchemaOf, type JsonSchema } from '@hypruse/core';
import { precheckVerb } from '@hypruse/core/cli/precheck';
import { ALL_TOOLS } from '@hypruse/tools';
import { VERBS } from '../../packages/hypruse/src/verbs.generated.js';

const flag = (k: string) => `--${k.replace(/_/g, '-')}`;

/** A valid-looking value for a field (so one bad field is judged alone), or null when none is simple. */
function goodValue(s: JsonSchema): string | null {
  if (s.enum) return String(s.enum[0]);
  if (s.type === 'string') return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  if (s.type === 'integer' || s.type === 'number') return String(s.minimum ?? 1);
  if (s.type === 'boolean') return 'true';
  return null;
}

/** Values that break a field's schema in each way the table may decide, and a few it must leave to zod. */
function badValues(s: JsonSchema): string[] {
  const out: string[] = [];
  if (s.enum) out.push('zzz', '');
  if (s.type === 'string') {
    if (s.maxLength !== undefined) out.push('y'.repeat(s.maxLength + 1));
    if (s.minLength) out.push('');
    if (s.pattern) out.push('a b;$');
  }
  if (s.type === 'integer' || s.type === 'number') {
    out.push('abc', 'NaN');
    if (s.minimum !== undefined) out.push(String(s.minimum - 1));
    if (s.maximum !== undefined) out.push(String(s.maximum + 1));
    if (s.type === 'integer') out.push('1.5');
  }
  if (s.type === 'boolean') out.push('maybe');
  if (s.anyOf) out.push('abc', '1e400', '');
  if (s.type === 'array' || s.type === 'object') out.push('[]', '{"a":1}', 'a,b');
  return out;
}

function corpus(tool: (typeof ALL_TOOLS)[number]): string[][] {
  const s = inputSchemaOf(tool);
  const props = Object.entries(s.properties ?? {});
  const required = (s.required ?? []).filter((k) => k in (s.properties ?? {}));
  const base = (except: string) => required.filter((k) => k !== except).flatMap((k) => {
    const v = goodValue(s.properties![k]);
    return v === null ? [] : [`${flag(k)}=${v}`];
  });
  const out: string[][] = [[], ['--unknown-flag', '1'], ['extra', 'positional', 'words', 'here']];
  for (const [k, p] of props) {
    for (const bad of badValues(p)) {
      out.push([...base(k), `${flag(k)}=${bad}`]);
      out.push([`${flag(k)}=${bad}`]);
    }
    const good = goodValue(p);
    if (good !== null) out.push([...base(k), `${flag(k)}=${good}`]);
  }
  // two broken fields at once: zod reports both, in its order
  const broken = props.map(([k, p]) => [k, badValues(p)[0]] as const).filter(([, b]) => b !== undefined);
  if (broken.length >= 2) out.push(broken.slice(0, 3).map(([k, b]) => `${flag(k)}=${b}`));
  const pos = tool.cli?.positional?.[0];
  if (pos) out.push(['wiggle'], ['wiggle', '--json'], ['wiggle', '--help']);
  return out;
}

describe('the zod-free verb pre-check (bin.ts) agrees with the zod check on every built-in tool', () => {
  it('every tool is in the table under each of its names', () => {
    for (const t of ALL_TOOLS) {
      expect(VERBS[t.name]?.name, t.name).toBe(t.name);
      for (const n of t.aliases ?? []) expect(VERBS[n]?.name).toBe(t.name);
    }
  });

  it('reports a usage error only when zod does, with the same exit code, JSON line and text', () => {
    let decided = 0;
    let usage = 0;
    for (const t of ALL_TOOLS) {
      for (const argv0 of corpus(t)) {
        for (const argv of [argv0, [...argv0, '--json']]) {
          const full: string[] = [];
          const quick: string[] = [];
          const io = (into: string[]) => ({ out: (x: string) => into.push(`out:${x}`), err: (x: string) => into.push(`err:${x}`), stdin: () => '' });
          const fullCode = checkVerbArgs(t, t.name, argv, io(full));
          const quickCode = precheckVerb(VERBS[t.name], t.name, argv, io(quick));
          if (fullCode === 2) usage++;
          if (quickCode === null) {
            expect(quick, `${t.name} ${argv.join(' ')}`).toEqual([]);
            continue;
          }
          decided++;
          expect({ code: quickCode, text: quick }, `${t.name} ${argv.join(' ')}`).toEqual({ code: fullCode, text: full });
        }
      }
    }
    // the table decides a good share of them itself (lengths and ranges are left to zod by design)
    expect(usage).toBeGreaterThan(200);
    expect(decided / usage).toBeGreaterThan(0.4);
  });

  it('decides the common ones: an unknown action, a missing field, a flag of the wrong type', () => {
    const none = { out: () => undefined, err: () => undefined, stdin: () => '' };
    expect(precheckVerb(VERBS.pointer, 'pointer', ['wiggle'], none)).toBe(2);
    expect(precheckVerb(VERBS.menu, 'menu', [], none)).toBe(2);
    expect(precheckVerb(VERBS.zoom, 'zoom', ['--x', 'left'], none)).toBe(2);
    expect(precheckVerb(VERBS.pointer, 'pointer', ['click', '--colour', 'red'], none)).toBe(2);
    expect(precheckVerb(VERBS.pointer, 'pointer', ['click'], none)).toBeNull();
  });
});
