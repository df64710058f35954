import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { HypruseError, UnsupportedError } from '@hypruse/core';
import { SwayCompositor } from '../src/sway-compositor.js';
import { FakeSway, type FakeConn } from './support/fake-sway.js';

const TREE = readFileSync(new URL('./fixtures/two-outputs.get_tree.json', import.meta.url), 'utf8');
const treeWithout = (id: number) => {
  const t = JSON.parse(TREE);
  const strip = (n: { nodes: unknown[]; floating_nodes: unknown[] }) => {
    n.nodes = (n.nodes as Array<{ id: number }>).filter((c) => c.id !== id);
    n.floating_nodes = (n.floating_nodes as Array<{ id: number }>).filter((c) => c.id !== id);
    [...n.nodes, ...n.floating_nodes].forEach((c) => strip(c as never));
  };
  strip(t);
  return JSON.stringify(t);
};

let fake: FakeSway | null = null;
let comp: SwayCompositor | null = null;
afterEach(async () => {
  await comp?.dispose();
  await fake?.stop();
  fake = comp = null;
});

/** A fake sway answering GET_TREE from the recorded tree and RUN_COMMAND via `onCommand`. */
async function setup(onCommand: (cmd: string, conn: FakeConn, f: FakeSway) => unknown = () => [{ success: true }], tree: () => string = () => TREE) {
  fake = await new FakeSway((frame, conn) => {
    if (frame.type === 4) return tree();
    if (frame.type === 2) return { success: !frame.payload.toString().includes('output') };
    if (frame.type === 0) return onCommand(frame.payload.toString(), conn, fake!);
    if (frame.type === 7) return { major: 1, minor: 7, patch: 0, human_readable: '1.7' };
    return undefined;
  }).start();
  comp = new SwayCompositor({ socketPath: fake.socketPath });
  return { fake, comp };
}

describe('SwayCompositor commands (fake sway, recorded tree)', () => {
  it('declares its capabilities honestly', async () => {
    const { comp } = await setup();
    for (const cap of ['focus', 'workspace', 'move', 'close', 'fullscreen', 'floating', 'cursor.set', 'launch', 'binds', 'bind.run', 'tag', 'events'] as const) expect(comp.capabilities.has(cap)).toBe(true);
    for (const cap of ['layers', 'cursor.read', 'lock.read', 'notify'] as const) {
      expect(comp.capabilities.has(cap)).toBe(false);
      expect(comp.unsupportedReason(cap).length).toBeGreaterThan(10);
    }
    expect(comp.unsupportedReason('layers')).toMatch(/layer-shell/);
    expect(await comp.version()).toBe('sway 1.7');
  });

  it('moves silently with a quoted workspace name, and follows when not silent', async () => {
    const { fake, comp } = await setup();
    await comp.moveToWorkspace('9', '2: web', true);
    await comp.moveToWorkspace('9', '3', false);
    await comp.moveToWorkspace('9', '__i3_scratch', true);
    expect(fake.commands()).toEqual([
      '[con_id=9] move container to workspace "2: web"',
      '[con_id=9] move container to workspace "3"; [con_id=9] focus',
      '[con_id=9] move scratchpad',
    ]);
  });

  it('refuses an unsafe workspace name before sending anything', async () => {
    const { fake, comp } = await setup();
    await expect(comp.moveToWorkspace('9', 'x"; exec reboot; "', true)).rejects.toMatchObject({ code: 'usage.workspace' });
    await expect(comp.switchWorkspace('a;b')).rejects.toMatchObject({ code: 'usage.workspace' });
    expect(fake.conns.flatMap((c) => c.received)).toHaveLength(0);
  });

  it('addresses: malformed is usage.address, a workspace con id or unknown id is not_found.window, nothing sent', async () => {
    const { fake, comp } = await setup();
    await expect(comp.focusWindow('0x55')).rejects.toMatchObject({ code: 'usage.address' });
    await expect(comp.focusWindow('4')).rejects.toMatchObject({ code: 'not_found.window', message: expect.stringMatching(/workspace, not a window/) });
    await expect(comp.closeWindow('4242', 500)).rejects.toMatchObject({ code: 'not_found.window' });
    expect(fake.commands()).toEqual([]);
  });

  it("a failed command is error.compositor carrying sway's message", async () => {
    const { comp } = await setup(() => [{ success: false, parse_error: true, error: "Unknown/invalid command 'fullscreen'" }]);
    const err = (await comp.toggleFullscreen('7').catch((e) => e)) as HypruseError;
    expect(err.code).toBe('error.compositor');
    expect(err.message).toContain("Unknown/invalid command 'fullscreen'");
  });

  it('moves the cursor with seat cursor set, remembers it as source hypruse, refuses points off every monitor', async () => {
    const { fake, comp } = await setup();
    await comp.moveCursor({ x: 1500.4, y: 300.6 });
    expect(fake.commands()).toEqual(['seat seat0 cursor set 1500 301']);
    expect((await comp.snapshot()).cursor).toEqual({ x: 1500, y: 301, source: 'hypruse' });
    await expect(comp.moveCursor({ x: 2000, y: 780 })).rejects.toMatchObject({ code: 'usage.arguments', message: expect.stringContaining('outside every monitor') });
    expect(fake.commands()).toHaveLength(1);
  });

  it('closeWindow: subscribes before killing and reports closed on the close event', async () => {
    const { fake, comp } = await setup((cmd, _conn, f) => {
      if (cmd === '[con_id=7] kill') {
        const events = f.conns.find((c) => c.received.some((r) => r.type === 2))!;
        setTimeout(() => events.send(0x80000003, { change: 'close', container: { id: 7, type: 'con', name: 'Term A', nodes: [], floating_nodes: [] } }), 20);
      }
      return [{ success: true }];
    });
    const t0 = Date.now();
    expect(await comp.closeWindow('7', 2000)).toEqual({ status: 'closed' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(fake.commands()).toEqual(['[con_id=7] kill']);
  });

  it('closeWindow: still_open when the window is still in the tree after the wait; closed if it vanished silently', async () => {
    const { comp } = await setup();
    expect(await comp.closeWindow('7', 150)).toEqual({ status: 'still_open' });
    let gone = false;
    await comp.dispose();
    await fake!.stop();
    const s = await setup(() => {
      gone = true;
      return [{ success: true }];
    }, () => (gone ? treeWithout(7) : TREE));
    expect(await s.comp.closeWindow('7', 150)).toEqual({ status: 'closed' });
  });

  it('tags with mark --add and validates the tag', async () => {
    const { fake, comp } = await setup();
    await comp.tagWindow('8', 'hypruse');
    await expect(comp.tagWindow('8', 'a"b')).rejects.toMatchObject({ code: 'usage.arguments' });
    expect(fake.commands()).toEqual(['[con_id=8] mark --add "hypruse"']);
    expect(await comp.installMarkRule('hypruse')).toBe(false);
  });

  it('notify is a typed UnsupportedError; locked is null', async () => {
    const { comp } = await setup();
    const err = await comp.notify('hi', 1000).catch((e) => e);
    expect(err).toBeInstanceOf(UnsupportedError);
    expect(err.category).toBe('unsupported');
    expect(await comp.locked()).toBeNull();
  });

  it('runBind sends the bound command', async () => {
    const { fake, comp } = await setup();
    expect(await comp.runBind({ combo: 'Mod4+r', action: 'mode', arg: '"resize"' })).toBe('ran Mod4+r: mode "resize"');
    expect(fake.commands()).toEqual(['mode "resize"']);
  });
});
