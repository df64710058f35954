// Dry run's second wall is an allowlist: every method of every backend
// contract (read from the contract sources, so a new method cannot slip by)
// is either an observing method the dry gate lets through, or refused with
// DryRunError without reaching the backend. Methods outside a contract and
// backends of unlisted tokens are refused too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DRY_RUN_ALLOWED, DryRunError, Tokens, dryRunServices, type Token, type ToolServices } from '@hypruse/core';

const contracts = join(import.meta.dirname, '../../packages/core/src/contracts');

/** Method names of an exported interface, from its source file. */
function contractMethods(file: string, name: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(join(contracts, file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const decl = src.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!decl) throw new Error(`no interface ${name} in ${file}`);
  return decl.members
    .filter((m) => ts.isMethodSignature(m) || (ts.isPropertySignature(m) && m.type !== undefined && ts.isFunctionTypeNode(m.type)))
    .map((m) => (m.name as ts.Identifier).text);
}

const BACKENDS: Array<{ token: Token<unknown>; file: string; iface: string }> = [
  { token: Tokens.Compositor, file: 'compositor.ts', iface: 'Compositor' },
  { token: Tokens.Input, file: 'input.ts', iface: 'Input' },
  { token: Tokens.Capture, file: 'capture.ts', iface: 'Capture' },
  { token: Tokens.Imaging, file: 'capture.ts', iface: 'Imaging' },
  { token: Tokens.Accessibility, file: 'accessibility.ts', iface: 'Accessibility' },
  { token: Tokens.Clipboard, file: 'clipboard.ts', iface: 'Clipboard' },
];

/** A backend whose every method records that it was reached. */
function spyBackend(methods: string[]): { backend: Record<string, unknown>; reached: string[] } {
  const reached: string[] = [];
  const backend: Record<string, unknown> = { id: 'spy', capabilities: new Set(['close']) };
  for (const m of [...methods, 'rawCommand']) backend[m] = async () => { reached.push(m); return 'real'; };
  return { backend, reached };
}

function services(map: Map<symbol, unknown>): ToolServices {
  return { get: <T,>(t: Token<T>) => map.get(t) as T, has: (t) => map.has(t) };
}

describe('dry run allowlist', () => {
  for (const { token, file, iface } of BACKENDS) {
    it(`${iface}: every contract method is allowed (observing) or refused before reaching the backend`, async () => {
      const methods = contractMethods(file, iface);
      expect(methods.length).toBeGreaterThan(2);
      const allowed = DRY_RUN_ALLOWED.get(token)!;
      expect(allowed, `${iface} has an allowlist`).toBeDefined();
      for (const m of allowed) expect(methods, `allowlisted ${iface}.${m} is a contract method`).toContain(m);
      const { backend, reached } = spyBackend(methods);
      const dry = dryRunServices(services(new Map([[token, backend]]))).get(token) as Record<string, any>;
      expect(dry.id).toBe('spy'); // plain properties pass
      expect((dry.capabilities as Set<string>).has('close')).toBe(true);
      for (const m of methods) {
        reached.length = 0;
        if (allowed.has(m)) {
          expect(await dry[m](), `${iface}.${m} observes`).toBe('real');
          expect(reached).toEqual([m]);
        } else {
          await expect(Promise.resolve().then(() => dry[m]()), `${iface}.${m} is refused`).rejects.toBeInstanceOf(DryRunError);
          expect(reached, `${iface}.${m} never reached the backend`).toEqual([]);
        }
      }
      // a method of the implementation outside its contract is refused too
      reached.length = 0;
      await expect(Promise.resolve().then(() => dry.rawCommand())).rejects.toBeInstanceOf(DryRunError);
      expect(reached).toEqual([]);
    });
  }

  it('acting methods the old denylist missed are refused (Accessibility.doAction, Input.releaseAll, dispose)', () => {
    expect(DRY_RUN_ALLOWED.get(Tokens.Accessibility)!.has('doAction')).toBe(false);
    expect(DRY_RUN_ALLOWED.get(Tokens.Input)!.has('releaseAll')).toBe(false);
    for (const set of DRY_RUN_ALLOWED.values()) expect(set.has('dispose')).toBe(false);
  });

  it('a backend of an unlisted token is refused whole; configuration and logging pass unchanged', async () => {
    const other = Symbol.for('hypruse.ThirdPartyBackend') as Token<{ poke(): Promise<string> }>;
    const logger = { info: () => 'logged' };
    const inner = services(new Map<symbol, unknown>([[other, { poke: async () => 'poked' }], [Tokens.Logger, logger]]));
    const dry = dryRunServices(inner);
    await expect(dry.get(other).poke()).rejects.toBeInstanceOf(DryRunError);
    expect(dry.get(Tokens.Logger)).toBe(logger);
  });
});
