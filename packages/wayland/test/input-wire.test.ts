// WaylandInput against a test-local fake compositor on a temp Unix socket:
// exact requests on the wire, fd passing of the keymap, protocol errors,
// timeouts, reconnection, and the release guarantees of click/drag.
import { closeSync, fstatSync, readSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CancelledError, HypruseError, UnsupportedError, parseCombo, resetTimeScale, setTimeScale } from '@hypruse/core';
import { ArgReader, DEVICE_SETTLE_MS, WaylandConnection, WaylandInput, fromFixed } from '../src/input/index.js';
import { FakeCompositor, type Recorded } from './input-support/fake-compositor.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
let fake: FakeCompositor;

function makeInput(keyboard: 'auto' | 'wire' | 'wtype' = 'auto', timeoutMs = 1000) {
  // An absolute WAYLAND_DISPLAY is accepted as the socket path.
  return new WaylandInput({ env: { WAYLAND_DISPLAY: fake.path, XDG_RUNTIME_DIR: fake.dir, PATH: '/nonexistent' }, keyboard, logger: quiet, timeoutMs });
}

/** [button code, state] of every zwlr_virtual_pointer_v1.button request. */
function buttons(): Array<[number, number]> {
  return fake.of('zwlr_virtual_pointer_v1', 2).map((r) => {
    const a = new ArgReader(r.body);
    a.uint();
    return [a.uint(), a.uint()];
  });
}

/** Pointer opcodes in order (2 button, 3 axis, 4 frame, 5 axis_source, 7 axis_discrete, 8 destroy). */
const pointerOps = () => fake.of('zwlr_virtual_pointer_v1').map((r) => r.opcode);

beforeEach(async () => {
  fake = new FakeCompositor();
  await fake.start();
});
afterEach(() => fake.stop());

describe('connection', () => {
  it('reads the registry in one round trip and binds at min(advertised, wanted)', async () => {
    const conn = await WaylandConnection.connect({ path: fake.path, wantFds: true, timeoutMs: 1000 });
    try {
      expect([...conn.globals.keys()]).toEqual(['wl_seat', 'zwlr_virtual_pointer_manager_v1', 'zwp_virtual_keyboard_manager_v1']);
      expect(conn.fdPassing).toBe(true);
      expect(conn.bind('wl_seat', 1).version).toBe(1);
      expect(conn.bind('zwlr_virtual_pointer_manager_v1', 5).version).toBe(2);
      expect(() => conn.bind('wl_shm', 1)).toThrow(/does not advertise wl_shm/);
    } finally {
      conn.close();
    }
  });

  it('reuses an id only after the compositor sent delete_id for it', async () => {
    const conn = await WaylandConnection.connect({ path: fake.path, wantFds: false, timeoutMs: 1000 });
    try {
      await conn.roundtrip();
      await conn.roundtrip();
      const syncIds = fake.of('wl_display', 0).map((r) => r.body.readUInt32LE(0));
      // registry 2, first callback 3; 3 was deleted before the second sync, so it is reused.
      expect(syncIds).toEqual([3, 3, 3]);
    } finally {
      conn.close();
    }
  });

  it('fails a round trip the compositor never answers with a typed timeout', async () => {
    const conn = await WaylandConnection.connect({ path: fake.path, wantFds: false, timeoutMs: 150 });
    fake.muteSync = true;
    const t0 = Date.now();
    await expect(conn.roundtrip()).rejects.toMatchObject({ code: 'error.wayland', message: expect.stringMatching(/did not answer wl_display.sync within 150 ms/) });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    conn.close();
  });

  it('honours an AbortSignal on a round trip', async () => {
    const conn = await WaylandConnection.connect({ path: fake.path, wantFds: false, timeoutMs: 5000 });
    fake.muteSync = true;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    await expect(conn.roundtrip(ac.signal)).rejects.toBeInstanceOf(CancelledError);
    conn.close();
  });

  it('reports a missing socket as error.wayland with a hint', async () => {
    const err = await WaylandConnection.connect({ path: `${fake.dir}/nope`, wantFds: false, timeoutMs: 500 }).catch((e) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect(err.code).toBe('error.wayland');
    expect(err.message).toContain(`${fake.dir}/nope`);
    expect(err.hint).toMatch(/WAYLAND_DISPLAY/);
  });
});

describe('pointer', () => {
  it('click: press, frame, round trip, release, frame, round trip on BTN_LEFT; double repeats after ~60 ms', async () => {
    const input = makeInput();
    await input.click('left', 1);
    expect(buttons()).toEqual([[0x110, 1], [0x110, 0]]);
    expect(pointerOps()).toEqual([2, 4, 2, 4]);
    // the press is confirmed by the compositor (wl_display.sync) before the release goes out
    const seen = fake.requests.filter((r) => (r.iface === 'wl_display' && r.opcode === 0) || (r.iface === 'zwlr_virtual_pointer_v1' && r.opcode === 2));
    const order = seen.slice(seen.findIndex((r) => r.iface !== 'wl_display')).map((r) => (r.iface === 'wl_display' ? 'sync' : 'button'));
    expect(order).toEqual(['button', 'sync', 'button', 'sync']);

    fake.requests.length = 0;
    await input.click('right', 2);
    expect(buttons()).toEqual([[0x111, 1], [0x111, 0], [0x111, 1], [0x111, 0]]);
    const b = fake.of('zwlr_virtual_pointer_v1', 2);
    expect(b[2].at - b[1].at).toBeGreaterThanOrEqual(50);

    fake.requests.length = 0;
    await input.click('left', 3);
    expect(buttons()).toEqual([[0x110, 1], [0x110, 0], [0x110, 1], [0x110, 0], [0x110, 1], [0x110, 0]]);
    await input.dispose();
  });

  it('a device new to a seat without a pointer settles before its first event, scaled by the time policy', async () => {
    // the fake sends no wl_seat.capabilities: the seat's pointer is unknown, so the settle applies
    const gap = async () => {
      fake.requests.length = 0;
      const input = makeInput();
      await input.click('left', 1);
      const created = fake.of('zwlr_virtual_pointer_manager_v1', 0)[0].at;
      const press = fake.of('zwlr_virtual_pointer_v1', 2)[0].at;
      await input.dispose();
      return press - created;
    };
    expect(await gap()).toBeGreaterThanOrEqual(DEVICE_SETTLE_MS - 2);
    try {
      setTimeScale(4);
      expect(await gap()).toBeGreaterThanOrEqual(4 * DEVICE_SETTLE_MS - 2);
    } finally {
      resetTimeScale();
    }
  });

  it('no settle when the seat already had a pointer: the press follows the device creation at once', async () => {
    fake.seatCaps = 3; // pointer and keyboard, as on a desktop with a mouse
    try {
      setTimeScale(50); // a settle, if any, would be 50 x DEVICE_SETTLE_MS
      const input = makeInput();
      await input.click('left', 1);
      const gap = fake.of('zwlr_virtual_pointer_v1', 2)[0].at - fake.of('zwlr_virtual_pointer_manager_v1', 0)[0].at;
      await input.dispose();
      expect(gap).toBeLessThan(25 * DEVICE_SETTLE_MS); // well under the 50x settle, however loaded the machine
    } finally {
      resetTimeScale();
    }
  });

  it('maps every button name to its evdev code', async () => {
    const input = makeInput();
    for (const b of ['middle', 'back', 'forward'] as const) await input.click(b, 1);
    expect(buttons().filter(([, s]) => s === 1).map(([c]) => c)).toEqual([0x112, 0x113, 0x114]);
    await input.dispose();
  });

  it('scroll: wheel source, axis_discrete with 15 units per notch on v2, one frame', async () => {
    const input = makeInput();
    await input.scroll(-1, 3);
    expect(pointerOps()).toEqual([5, 7, 7, 4]);
    const d = fake.of('zwlr_virtual_pointer_v1', 7).map((r) => {
      const a = new ArgReader(r.body);
      a.uint();
      return { axis: a.uint(), value: a.fixed(), discrete: a.int() };
    });
    expect(d).toEqual([{ axis: 0, value: 45, discrete: 3 }, { axis: 1, value: -15, discrete: -1 }]);
    expect(new ArgReader(fake.of('zwlr_virtual_pointer_v1', 5)[0].body).uint()).toBe(0); // wheel
    await input.dispose();
  });

  it('scroll on a v1 pointer (or by a fraction) uses plain axis events', async () => {
    await fake.stop();
    fake = new FakeCompositor({ globals: [{ iface: 'zwlr_virtual_pointer_manager_v1', version: 1 }] });
    await fake.start();
    const input = makeInput();
    expect((await input.describe()).pointer).toBe('zwlr_virtual_pointer_v1 v1');
    await input.scroll(0, 2);
    expect(pointerOps()).toEqual([5, 3, 4]);
    const a = new ArgReader(fake.of('zwlr_virtual_pointer_v1', 3)[0].body);
    a.uint();
    expect([a.uint(), a.fixed()]).toEqual([0, 30]);
    await input.dispose();
  });

  it('moveAbsolute sends the point inside the bounds with matching extents', async () => {
    const input = makeInput();
    await input.moveAbsolute({ x: 1920, y: 360 }, { x: 0, y: 0, width: 2560, height: 800 });
    const a = new ArgReader(fake.of('zwlr_virtual_pointer_v1', 1)[0].body);
    a.uint();
    const [x, y, xe, ye] = [a.uint(), a.uint(), a.uint(), a.uint()];
    expect(x / xe).toBeCloseTo(1920 / 2560, 6);
    expect(y / ye).toBeCloseTo(360 / 800, 6);
    expect(pointerOps()).toEqual([1, 4]);
    await expect(input.moveAbsolute({ x: 3000, y: 0 }, { x: 0, y: 0, width: 2560, height: 800 })).rejects.toMatchObject({ code: 'usage.arguments' });
    await input.dispose();
  });

  it('drag releases the button when `during` throws', async () => {
    const input = makeInput();
    await expect(input.drag('left', async () => {
      expect(buttons()).toEqual([[0x110, 1]]);
      throw new Error('move failed');
    })).rejects.toThrow('move failed');
    expect(buttons()).toEqual([[0x110, 1], [0x110, 0]]);
    await input.dispose();
  });

  it('drag releases the button as soon as the signal aborts, even while `during` hangs', async () => {
    const input = makeInput();
    const ac = new AbortController();
    const during = () => new Promise<void>(() => { setTimeout(() => ac.abort(), 30); });
    await expect(input.drag('middle', during, ac.signal)).rejects.toBeInstanceOf(CancelledError);
    expect(buttons()).toEqual([[0x112, 1], [0x112, 0]]);
    await input.dispose();
  });

  it('drag lets `during` call back into the input (re-entrant), then releases', async () => {
    const input = makeInput();
    await input.drag('left', async () => {
      await input.moveAbsolute({ x: 10, y: 10 }, { x: 0, y: 0, width: 100, height: 100 });
    });
    expect(pointerOps()).toEqual([2, 4, 1, 4, 2, 4]);
    await input.dispose();
  });

  it('releaseAll releases a held drag button without waiting for the drag', async () => {
    const input = makeInput();
    let finish!: () => void;
    const dragging = input.drag('left', () => new Promise<void>((r) => (finish = r)));
    await fake.until(() => buttons().length === 1);
    await input.releaseAll();
    expect(buttons()).toEqual([[0x110, 1], [0x110, 0]]);
    finish();
    await dragging;
    expect(buttons()).toEqual([[0x110, 1], [0x110, 0]]); // no second release
    await input.dispose();
  });

  it('the final release (the process ends) cancels the drag and refuses every later press: a sequence\'s next drag presses nothing', async () => {
    const input = makeInput();
    let moves = 0;
    const dragging = input.drag('left', async () => {
      for (;;) {
        await input.moveAbsolute({ x: 10 + moves, y: 10 }, { x: 0, y: 0, width: 100, height: 100 });
        moves++;
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    await fake.until(() => buttons().length === 1 && moves > 1);
    await input.releaseAll({ final: true });
    await expect(dragging).rejects.toBeInstanceOf(CancelledError);
    // what a sequence would do next, and a click queued behind it: neither presses
    await expect(input.drag('left', async () => undefined)).rejects.toBeInstanceOf(CancelledError);
    await expect(input.click('left', 1)).rejects.toBeInstanceOf(CancelledError);
    expect(buttons()).toEqual([[0x110, 1], [0x110, 0]]);
    await input.dispose();
  });

  it('a press queued while the device is still being created is refused once dispose began', async () => {
    const input = makeInput();
    const clicking = input.click('left', 1);
    const disposing = input.dispose();
    await expect(clicking).rejects.toBeInstanceOf(CancelledError);
    await disposing;
    expect(buttons()).toEqual([]);
  });

  it('surfaces wl_display.error as error.wayland naming the object, then reconnects on the next call', async () => {
    const input = makeInput();
    fake.errorOn = (r) => (r.iface === 'zwlr_virtual_pointer_v1' && r.opcode === 2 ? [1, 'invalid button'] : null);
    const err = await input.click('left', 1).catch((e) => e);
    expect(err).toBeInstanceOf(HypruseError);
    expect(err.code).toBe('error.wayland');
    expect(err.message).toMatch(/protocol error on zwlr_virtual_pointer_v1#\d+ \(code 1\): invalid button/);
    fake.errorOn = null;
    await input.click('left', 1);
    expect(fake.connections).toBe(2);
    await input.dispose();
  });

  it('re-creates a connection that went stale between calls', async () => {
    const input = makeInput();
    await input.click('left', 1);
    fake.dropClients();
    await new Promise((r) => setTimeout(r, 50));
    await input.click('left', 1);
    expect(fake.connections).toBe(2);
    expect(buttons().filter(([, s]) => s === 1)).toHaveLength(2);
    await input.dispose();
  });

  it('says plainly when the compositor has no virtual pointer', async () => {
    await fake.stop();
    fake = new FakeCompositor({ globals: [{ iface: 'wl_seat', version: 7 }] });
    await fake.start();
    const input = makeInput();
    await expect(input.click('left', 1)).rejects.toBeInstanceOf(UnsupportedError);
    expect((await input.describe()).pointer).toBe('unavailable (no zwlr_virtual_pointer_manager_v1)');
    await input.dispose();
  });

  it('dispose destroys the pointer and its manager', async () => {
    const input = makeInput();
    await input.click('left', 1);
    await input.dispose();
    expect(fake.of('zwlr_virtual_pointer_v1', 8)).toHaveLength(1);
    expect(fake.of('zwlr_virtual_pointer_manager_v1', 1)).toHaveLength(1);
  });
});

/** The keymap text carried by a recorded keymap request (read through the passed fd). */
const keymaps = new WeakMap<Recorded, { format: number; size: number; text: string }>();
function keymapOf(r: Recorded): { format: number; size: number; text: string } {
  const seen = keymaps.get(r);
  if (seen) return seen;
  const a = new ArgReader(r.body);
  const format = a.uint();
  const size = a.uint();
  expect(r.fds).toHaveLength(1);
  const [fd] = r.fds.splice(0, 1) as [number];
  expect(fstatSync(fd).size).toBe(size);
  const buf = Buffer.alloc(size);
  readSync(fd, buf, 0, size, 0);
  closeSync(fd);
  expect(buf[size - 1]).toBe(0);
  const km = { format, size, text: buf.subarray(0, size - 1).toString('utf8') };
  keymaps.set(r, km);
  return km;
}

/** Replay the keyboard requests: keysyms of pressed keys (with the modifier mask at the time). */
function replayKeys(): Array<{ sym: string; mods: number; pressed: boolean }> {
  const out: Array<{ sym: string; mods: number; pressed: boolean }> = [];
  let syms = new Map<number, string>();
  let mods = 0;
  for (const r of fake.of('zwp_virtual_keyboard_v1')) {
    const a = new ArgReader(r.body);
    if (r.opcode === 0) {
      const km = keymapOf(r);
      syms = new Map([...km.text.matchAll(/key <I(\d+)> \{ \[ (\S+) \] \};/g)].map((m) => [Number(m[1]), m[2]]));
    } else if (r.opcode === 1) {
      a.uint();
      const code = a.uint() + 8;
      out.push({ sym: syms.get(code) ?? `?${code}`, mods, pressed: a.uint() === 1 });
    } else if (r.opcode === 2) {
      mods = a.uint();
    }
  }
  return out;
}

describe('keyboard (in-process)', () => {
  it('uploads an XKB keymap through an fd, syncs, then types every character exactly', async () => {
    const input = makeInput('wire');
    expect((await input.describe()).keyboard).toBe('zwp_virtual_keyboard_v1 (in-process)');
    await input.type('héllo wörld ✓ — 日本語\n');
    const kb = fake.of('zwp_virtual_keyboard_v1');
    expect(kb[0].opcode).toBe(0); // the keymap precedes every key
    const km = keymapOf(kb[0]);
    expect(km.format).toBe(1);
    expect(km.text).toMatch(/^xkb_keymap \{/);
    // A sync round trip separates the keymap from the first key.
    const iKeymap = fake.requests.indexOf(kb[0]);
    const iFirstKey = fake.requests.indexOf(kb[1]);
    expect(fake.requests.slice(iKeymap, iFirstKey).some((r) => r.iface === 'wl_display' && r.opcode === 0)).toBe(true);
    const presses = replayKeys().filter((k) => k.pressed);
    const chr = (s: string) => (s.startsWith('U') ? String.fromCodePoint(parseInt(s.slice(1), 16)) : ({ space: ' ', Return: '\n' } as Record<string, string>)[s] ?? s);
    expect(presses.map((k) => chr(k.sym)).join('')).toBe('héllo wörld ✓ — 日本語\n');
    expect(replayKeys().filter((k) => !k.pressed)).toHaveLength(presses.length); // every key released
    await input.dispose();
  });

  it('keeps the keymap while it has the keys, uploads a new one when the text needs more', async () => {
    const input = makeInput('wire');
    await input.type('abc');
    await input.type('cab');
    expect(fake.of('zwp_virtual_keyboard_v1', 0)).toHaveLength(1); // letters are in the base keymap
    await input.type('ü');
    expect(fake.of('zwp_virtual_keyboard_v1', 0)).toHaveLength(2);
    expect(replayKeys().filter((k) => k.pressed).map((k) => k.sym)).toEqual(['a', 'b', 'c', 'c', 'a', 'b', 'U00FC']);
    await input.dispose();
  });

  it('key combo: modifiers pressed in order with their masks, key tapped, released in reverse', async () => {
    const input = makeInput('wire');
    await input.key(parseCombo('ctrl+shift+t'));
    expect(replayKeys()).toEqual([
      { sym: 'Control_L', mods: 0, pressed: true },
      { sym: 'Shift_L', mods: 4, pressed: true },
      { sym: 't', mods: 5, pressed: true },
      { sym: 't', mods: 5, pressed: false },
      { sym: 'Shift_L', mods: 5, pressed: false },
      { sym: 'Control_L', mods: 4, pressed: false },
    ]);
    const lastMods = fake.of('zwp_virtual_keyboard_v1', 2).at(-1)!;
    expect(lastMods.body.readUInt32LE(0)).toBe(0);
    await input.dispose();
  });

  it('named keys, keysym names and a bare modifier tap', async () => {
    const input = makeInput('wire');
    await input.key(parseCombo('Return'));
    await input.key(parseCombo('backspace'));
    await input.key(parseCombo('alt+F4'));
    await input.key(parseCombo('XF86AudioPlay'));
    await input.key(parseCombo('super'));
    expect(replayKeys().filter((k) => k.pressed).map((k) => `${k.mods}:${k.sym}`)).toEqual([
      '0:Return', '0:BackSpace', '0:Alt_L', '8:F4', '0:XF86AudioPlay', '0:Super_L',
    ]);
    await input.dispose();
  });

  it('never leaves a key or modifier held between calls, so releaseAll has nothing to add', async () => {
    const input = makeInput('wire');
    await input.key(parseCombo('ctrl+alt+x'));
    const before = fake.of('zwp_virtual_keyboard_v1').length;
    await input.releaseAll();
    expect(fake.of('zwp_virtual_keyboard_v1').length).toBe(before);
    expect(replayKeys().filter((k) => k.pressed)).toHaveLength(3);
    expect(replayKeys().filter((k) => !k.pressed)).toHaveLength(3);
    await input.dispose();
    expect(fake.of('zwp_virtual_keyboard_v1', 3)).toHaveLength(1); // destroyed
  });

  it('holdModifiers: pressed in order around the click, released in reverse, the click between them', async () => {
    const input = makeInput('wire');
    await input.holdModifiers(['ctrl', 'shift'], () => input.click('left', 1));
    expect(replayKeys()).toEqual([
      { sym: 'Control_L', mods: 0, pressed: true },
      { sym: 'Shift_L', mods: 4, pressed: true },
      { sym: 'Shift_L', mods: 5, pressed: false },
      { sym: 'Control_L', mods: 4, pressed: false },
    ]);
    expect(fake.of('zwp_virtual_keyboard_v1', 2).at(-1)!.body.readUInt32LE(0)).toBe(0);
    // the button events lie between the last press and the first release on the wire
    const reqs = fake.requests.filter((r) => (r.iface === 'zwp_virtual_keyboard_v1' && r.opcode === 1) || (r.iface === 'zwlr_virtual_pointer_v1' && r.opcode === 2));
    expect(reqs.map((r) => (r.iface === 'zwlr_virtual_pointer_v1' ? 'button' : 'key'))).toEqual(['key', 'key', 'button', 'button', 'key', 'key']);
    await input.dispose();
  });

  it('holdModifiers releases in reverse order when `during` throws, and when the signal aborts', async () => {
    const input = makeInput('wire');
    await expect(input.holdModifiers(['alt', 'ctrl'], async () => {
      throw new Error('click failed');
    })).rejects.toThrow('click failed');
    expect(replayKeys().map((k) => `${k.pressed ? '+' : '-'}${k.sym}`)).toEqual(['+Alt_L', '+Control_L', '-Control_L', '-Alt_L']);
    const ac = new AbortController();
    const hang = () => new Promise<void>(() => { setTimeout(() => ac.abort(), 30); });
    await expect(input.holdModifiers(['shift'], hang, ac.signal)).rejects.toBeInstanceOf(CancelledError);
    expect(replayKeys().slice(4).map((k) => `${k.pressed ? '+' : '-'}${k.sym}`)).toEqual(['+Shift_L', '-Shift_L']);
    await input.releaseAll();
    expect(replayKeys()).toHaveLength(6); // nothing was left held for releaseAll
    await input.dispose();
  });

  it('holdModifiers with the wtype keyboard is unsupported and sends nothing', async () => {
    const input = makeInput('wtype');
    let ran = false;
    await expect(input.holdModifiers(['ctrl'], async () => { ran = true; })).rejects.toBeInstanceOf(UnsupportedError);
    expect(ran).toBe(false);
    expect(buttons()).toEqual([]);
    // no modifiers: nothing to hold, the action runs on any keyboard path
    await input.holdModifiers([], () => input.click('left', 1));
    expect(buttons()).toEqual([[0x110, 1], [0x110, 0]]);
    await input.dispose();
  });

  it('keyboard "wire" without the manager global is unsupported; "auto" falls back to wtype', async () => {
    await fake.stop();
    fake = new FakeCompositor({ globals: [{ iface: 'wl_seat', version: 7 }, { iface: 'zwlr_virtual_pointer_manager_v1', version: 2 }] });
    await fake.start();
    const wire = makeInput('wire');
    await expect(wire.type('a')).rejects.toBeInstanceOf(UnsupportedError);
    await wire.dispose();
    const auto = makeInput('auto');
    expect((await auto.describe()).keyboard).toBe('wtype (no zwp_virtual_keyboard_manager_v1)');
    // PATH has no wtype here: the fallback says so instead of hanging or pretending.
    await expect(auto.type('a')).rejects.toMatchObject({ code: 'error.input', message: expect.stringMatching(/wtype is not installed/) });
    await auto.dispose();
  });
});

it('fixed-point decoding matches the 24.8 encoding used for axis values', () => {
  expect(fromFixed(45 * 256)).toBe(45);
});
