import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, ERROR_CODES } from '@hypruse/core';
import { ALL_TOOLS } from '@hypruse/tools';
import { GENERATED } from '../../scripts/docs.js';

const root = join(import.meta.dirname, '../..');
const read = (f: string) => readFileSync(join(root, f), 'utf8');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'test') continue;
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

describe('docs stay in step with the code', () => {
  it('generated reference files are up to date (run `npm run docs`)', () => {
    for (const [file, make] of Object.entries(GENERATED)) expect(read(file), file).toBe(make());
  });

  it('every error code is documented, and every documented code exists', () => {
    const doc = read('docs/errors.md');
    for (const code of Object.keys(ERROR_CODES)) expect(doc).toContain(`\`${code}\``);
    const documented = [...doc.matchAll(/^\| `([a-z_]+\.[a-z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('every HYPRUSE_* variable the code reads is declared and documented', () => {
    const declared = new Set(ENV_VARS.map((v) => v.name));
    const doc = read('docs/configuration.md');
    const used = new Set<string>();
    for (const f of sources(join(root, 'packages'))) {
      for (const m of readFileSync(f, 'utf8').matchAll(/\bHYPRUSE_[A-Z_]+\b/g)) used.add(m[0]);
    }
    const undeclared = [...used].filter((v) => !declared.has(v) && !v.startsWith('HYPRUSE_TEST_') && v !== 'HYPRUSE_VERSION');
    expect(undeclared).toEqual([]);
    for (const v of declared) expect(doc).toContain(`\`${v}\``);
  });

  it('the README tool table lists exactly the tools', () => {
    const readme = read('README.md');
    const listed = [...readme.matchAll(/^\| `([a-z_]+)`(?: \/ `[a-z_]+`)? \| (observe|act) \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(ALL_TOOLS.map((t) => t.name).sort());
  });
});
