// server.json (the MCP registry entry) stays in step with the code: the npm
// package, its version, and every user-settable HYPRUSE_* variable of
// ENV_VARS with defaults that are the config defaults and choices the
// variable's own parser accepts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, defaultConfig } from '@hypruse/core';

const root = join(import.meta.dirname, '../../..');
const server = JSON.parse(readFileSync(join(root, 'server.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(root, 'packages/hypruse/package.json'), 'utf8'));
/** Set by hypruse itself for the processes it launches, not by users. */
const INTERNAL = new Set(['HYPRUSE_LAUNCH_TOKEN', 'HYPRUSE_DESK_INSTANCE']);

interface EnvVar {
  name: string;
  description: string;
  default?: string;
  choices?: string[];
}

const vars: EnvVar[] = server.packages[0].environmentVariables;
const at = (obj: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], obj);

describe('server.json', () => {
  it('names the npm package, its version and stdio', () => {
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toHaveLength(1);
    expect(server.packages[0]).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } });
    expect(server.description.length).toBeLessThanOrEqual(100);
  });

  it('lists exactly the user-settable variables of ENV_VARS', () => {
    const expected = ENV_VARS.filter((v) => !INTERNAL.has(v.name)).map((v) => v.name);
    expect(vars.map((v) => v.name)).toEqual(expected);
    for (const v of vars) expect(v.description.length, v.name).toBeGreaterThan(10);
  });

  it('defaults are the config defaults, through the variable parser', () => {
    const defaults = defaultConfig();
    for (const v of vars) {
      const spec = ENV_VARS.find((s) => s.name === v.name)!;
      if (v.default === undefined || !spec.path || !spec.parse) continue;
      expect(spec.parse(v.default), v.name).toEqual(at(defaults, spec.path));
    }
    // a variable with a config key but no default in server.json must default to "unset/empty" in the config
    for (const v of vars.filter((x) => x.default === undefined)) {
      const spec = ENV_VARS.find((s) => s.name === v.name)!;
      if (spec.path) expect(at(defaults, spec.path), v.name).toEqual([]);
    }
  });

  it('every choice is accepted by the parser, and choices are distinct values', () => {
    for (const v of vars.filter((x) => x.choices)) {
      const spec = ENV_VARS.find((s) => s.name === v.name)!;
      if (v.default !== undefined) expect(v.choices, v.name).toContain(v.default);
      if (!spec.parse) continue;
      const parsed = v.choices!.map((c) => JSON.stringify(spec.parse!(c)));
      expect(new Set(parsed).size, `${v.name} choices map to distinct values`).toBe(parsed.length);
    }
    // enumerated variables offer every accepted value
    expect(vars.find((v) => v.name === 'HYPRUSE_SCREENSHOT_MODE')!.choices).toEqual(['file', 'image']);
    expect(vars.find((v) => v.name === 'HYPRUSE_KEYBOARD')!.choices).toEqual(['auto', 'wire', 'wtype']);
    expect(() => ENV_VARS.find((s) => s.name === 'HYPRUSE_KEYBOARD')!.parse!('uinput')).toThrow();
  });
});
