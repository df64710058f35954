/**
 * The Input backend: a persistent Wayland connection carrying a
 * `zwlr_virtual_pointer_v1` and (when file descriptors can be passed) an
 * in-process `zwp_virtual_keyboard_v1`; `wtype` is the keyboard fallback.
 * Nothing connects until the first call. All operations are serialized; a
 * drag's `during` may call back into this object (re-entrant).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CancelledError,
  HypruseError,
  UnsupportedError,
  runtimeDir,
  stderrLogger,
  throwIfAborted,
  type Input,
  type KeyCombo,
  scaledMs,
  type Logger,
  type Point,
  type PointerButton,
  type Rect,
} from '@hypruse/core';
import { WaylandConnection, waylandSocketPath } from './wire/connection.js';
import { fdPassingUnavailable } from './wire/transport.js';
import { DEVICE_SETTLE_MS, POINTER_MANAGER, WirePointer, deviceSettleMs } from './virtual-pointer.js';
import { KEYBOARD_MANAGER, WireKeyboard } from './virtual-keyboard.js';
import { WtypeKeyboard } from './wtype-keyboard.js';

export type KeyboardMode = 'auto' | 'wire' | 'wtype';

export interface WaylandInputOptions {
  env: NodeJS.ProcessEnv;
  /** auto: in-process when fds can be passed (koffi), else wtype; wire: in-process only; wtype: always wtype. */
  keyboard: KeyboardMode;
  logger?: Logger;
  /** Ceiling for every connect and round trip (ms). */
  timeoutMs?: number;
  /**
   * Pause after creating a virtual device on a seat without one of its kind, so apps bind to it
   * before its first event (ms, a base figure scaled by the time policy; default DEVICE_SETTLE_MS).
   */
  settleMs?: number;
  /** Press-to-release time of a click (ms, default CLICK_HOLD_MS); tests/bench/click-hold.ts measures what toolkits need. */
  clickHoldMs?: number;
}

/**
 * Press-to-release time of a click, and the gap between the two clicks of a double click (ms).
 * The hold is 0: press and release go out as two separate pointer frames, each confirmed by a
 * round trip. tests/bench/click-hold.ts measured it: 100 of 100 clicks registered at 0 ms by GTK 3,
 * GTK 4 and Qt 5 (a longer hold never registered more; GTK 4 lost a few at 10-20 ms).
 */
export const CLICK_HOLD_MS = 0;
export const DOUBLE_CLICK_GAP_MS = 60;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface KeyboardPath {
  type(text: string, signal?: AbortSignal): Promise<void>;
  key(combo: KeyCombo, signal?: AbortSignal): Promise<void>;
  readonly description: string;
}

export class WaylandInput implements Input {
  private readonly env: NodeJS.ProcessEnv;
  private readonly mode: KeyboardMode;
  private readonly log: Logger;
  private readonly baseTimeoutMs: number;
  /** Scaled by the time policy when armed. */
  private get timeoutMs(): number {
    return scaledMs(this.baseTimeoutMs);
  }
  private readonly settleMs: number;
  private readonly clickHoldMs: number;
  private conn: WaylandConnection | null = null;
  private pointer: WirePointer | null = null;
  private wireKeyboard: WireKeyboard | null = null;
  private wtype: WtypeKeyboard | null = null;
  private wtypeReason = '';
  private heldButton: PointerButton | null = null;
  /** The bound wl_seat and its capabilities when we connected (1 pointer, 2 keyboard; -1 unknown). */
  private seat: { id: number; caps: number } | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  /**
   * Aborted by the final release (the process is ending) and by dispose: no press may follow it.
   * A press after the release would stay held when the process exits, and a compositor that
   * counts pressed buttons per seat (sway) then keeps every later click on the old surface.
   */
  private readonly ending = new AbortController();
  private readonly owner = new AsyncLocalStorage<WaylandInput>();

  constructor(opts: WaylandInputOptions) {
    this.env = opts.env;
    this.mode = opts.keyboard;
    this.log = opts.logger ?? stderrLogger();
    this.baseTimeoutMs = opts.timeoutMs ?? 3000;
    this.settleMs = opts.settleMs ?? DEVICE_SETTLE_MS;
    this.clickHoldMs = opts.clickHoldMs ?? CLICK_HOLD_MS;
  }

  /** The caller's signal joined with the end of this input. */
  private until(signal?: AbortSignal): AbortSignal {
    return signal ? AbortSignal.any([signal, this.ending.signal]) : this.ending.signal;
  }

  /** Run `fn` alone; calls made from inside `fn` (a drag's moves) run directly. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.owner.getStore() === this) return fn();
    const run = this.tail.then(() => this.owner.run(this, fn));
    this.tail = run.catch(() => {});
    return run;
  }

  private async connection(signal?: AbortSignal): Promise<WaylandConnection> {
    if (this.conn && !this.conn.failure) return this.conn;
    if (this.conn) {
      this.log.info(`wayland connection went stale (${this.conn.failure?.message}); reconnecting`);
      this.conn.close();
      this.conn = null;
      this.pointer = null;
      this.wireKeyboard = null;
    }
    const path = waylandSocketPath(this.env, runtimeDir(this.env));
    const wantFds = this.mode !== 'wtype';
    const conn = await WaylandConnection.connect({ path, wantFds, timeoutMs: this.timeoutMs, signal });
    this.seat = null;
    if (conn.globals.has('wl_seat')) {
      // wl_seat.capabilities arrives right after the bind: whether the seat already had a pointer
      // and a keyboard decides if a new virtual device must settle before its first event.
      const seat = { id: 0, caps: -1 };
      seat.id = conn.bind('wl_seat', 1, (opcode, a) => {
        if (opcode === 0) seat.caps = a.uint();
      }).id;
      try {
        await conn.roundtrip(signal);
      } catch (err) {
        conn.close();
        throw err;
      }
      this.seat = seat;
    }
    this.conn = conn;
    this.log.debug(`wayland: connected to ${path} over ${this.conn.transportKind}, ${this.conn.globals.size} globals`);
    return this.conn;
  }

  /**
   * Settle only when the seat lacked this capability: apps then bind the new device
   * asynchronously, and nothing another client can ask tells when they did (DEVICE_SETTLE_MS).
   */
  private settleFor(capability: 1 | 2): number {
    const caps = this.seat?.caps ?? -1;
    return caps >= 0 && caps & capability ? 0 : deviceSettleMs(this.settleMs);
  }

  private async pointerDevice(signal?: AbortSignal): Promise<WirePointer> {
    const conn = await this.connection(signal);
    if (this.pointer) return this.pointer;
    if (!conn.globals.has(POINTER_MANAGER)) {
      throw new UnsupportedError('this compositor', 'pointer input', `it does not advertise ${POINTER_MANAGER}`,
        'Use a compositor that offers zwlr_virtual_pointer_manager_v1 to unsandboxed clients.');
    }
    this.pointer = await WirePointer.create(conn, signal, this.settleFor(1));
    return this.pointer;
  }

  private wtypePath(reason: string): WtypeKeyboard {
    if (!this.wtype) {
      this.wtype = new WtypeKeyboard(this.env);
      this.log.info(`keyboard: using wtype (${reason})`);
    }
    this.wtypeReason = reason;
    return this.wtype;
  }

  private async keyboardPath(signal?: AbortSignal): Promise<KeyboardPath> {
    if (this.mode === 'wtype') return this.wtypePath('configured');
    const noFds = fdPassingUnavailable();
    if (noFds) {
      if (this.mode === 'wire') {
        throw new HypruseError('error.input', `the in-process keyboard needs file-descriptor passing, which is off: ${noFds}`, {
          hint: 'Reinstall hypruse with its optional dependency koffi (npm install without --omit=optional), or set the keyboard to "wtype" or "auto".',
        });
      }
      return this.wtypePath(`no fd passing: ${noFds}`);
    }
    const conn = await this.connection(signal);
    if (this.wireKeyboard) return this.wireKeyboard;
    if (!conn.globals.has(KEYBOARD_MANAGER)) {
      if (this.mode === 'wire') {
        throw new UnsupportedError('this compositor', 'keyboard input', `it does not advertise ${KEYBOARD_MANAGER}`);
      }
      return this.wtypePath(`the compositor does not advertise ${KEYBOARD_MANAGER}`);
    }
    if (!this.seat) throw new UnsupportedError('this compositor', 'keyboard input', 'it advertises no wl_seat');
    this.wireKeyboard = await WireKeyboard.create(conn, this.seat.id, this.env, signal, this.settleFor(2));
    return this.wireKeyboard;
  }

  async describe(): Promise<{ pointer: string; keyboard: string }> {
    return this.exclusive(async () => {
      let pointer: string;
      let conn: WaylandConnection | null = null;
      try {
        conn = await this.connection();
        const g = conn.globals.get(POINTER_MANAGER);
        pointer = g ? `zwlr_virtual_pointer_v1 v${Math.min(g.version, 2)}` : `unavailable (no ${POINTER_MANAGER})`;
      } catch (err) {
        pointer = `unavailable (${(err as Error).message})`;
      }
      let keyboard: string;
      if (this.mode === 'wtype') keyboard = 'wtype (configured)';
      else {
        const noFds = fdPassingUnavailable();
        if (noFds) keyboard = this.mode === 'wire' ? `unavailable (no fd passing: ${noFds})` : `wtype (no fd passing: ${noFds})`;
        else if (conn && !conn.globals.has(KEYBOARD_MANAGER)) keyboard = this.mode === 'wire' ? `unavailable (no ${KEYBOARD_MANAGER})` : `wtype (no ${KEYBOARD_MANAGER})`;
        else if (!conn) keyboard = 'zwp_virtual_keyboard_v1 (in-process; not connected)';
        else keyboard = 'zwp_virtual_keyboard_v1 (in-process)';
      }
      if (this.wtype && this.mode !== 'wtype' && !keyboard.startsWith('wtype')) keyboard += `; wtype used earlier (${this.wtypeReason})`;
      return { pointer, keyboard };
    });
  }

  click(button: PointerButton, count: 1 | 2 | 3, given?: AbortSignal): Promise<void> {
    const signal = this.until(given);
    return this.exclusive(async () => {
      throwIfAborted(signal);
      const p = await this.pointerDevice(signal);
      for (let i = 0; i < count; i++) {
        if (i > 0) {
          await sleep(DOUBLE_CLICK_GAP_MS);
          throwIfAborted(signal);
        }
        throwIfAborted(signal);
        this.heldButton = button;
        try {
          await p.button(button, true);
          if (this.clickHoldMs > 0) await sleep(this.clickHoldMs);
        } finally {
          await this.releaseButton(p, button);
        }
      }
    });
  }

  holdModifiers(modifiers: KeyCombo['modifiers'], during: () => Promise<void>, given?: AbortSignal): Promise<void> {
    const signal = this.until(given);
    return this.exclusive(async () => {
      throwIfAborted(signal);
      if (!modifiers.length) return during();
      const kb = await this.keyboardPath(signal);
      if (!(kb instanceof WireKeyboard)) {
        throw new UnsupportedError('the wtype keyboard', 'holding modifiers during a click', 'wtype presses and releases its keys within one process, so a key cannot stay down while the pointer clicks',
          'Use the in-process keyboard (keyboard: "auto" or "wire", with the optional dependency koffi installed).');
      }
      try {
        await kb.pressModifiers(modifiers, signal);
        await raceAbort(during(), signal);
      } finally {
        await kb.releaseModifiers(modifiers);
      }
    });
  }

  private async releaseButton(p: WirePointer, button: PointerButton): Promise<void> {
    try {
      if (this.heldButton === button) await p.button(button, false);
    } finally {
      this.heldButton = null;
    }
  }

  drag(button: PointerButton, during: () => Promise<void>, given?: AbortSignal): Promise<void> {
    const signal = this.until(given);
    return this.exclusive(async () => {
      throwIfAborted(signal);
      const p = await this.pointerDevice(signal);
      throwIfAborted(signal);
      this.heldButton = button; // set before the press, so releaseAll covers a press in flight
      try {
        await p.button(button, true);
        await raceAbort(during(), signal);
      } finally {
        await this.releaseButton(p, button);
      }
    });
  }

  scroll(dx: number, dy: number, given?: AbortSignal): Promise<void> {
    const signal = this.until(given);
    return this.exclusive(async () => {
      throwIfAborted(signal);
      if (!Number.isFinite(dx) || !Number.isFinite(dy)) throw new HypruseError('usage.arguments', `scroll amounts must be finite numbers, got dx=${dx} dy=${dy}`);
      if (!dx && !dy) return;
      const p = await this.pointerDevice(signal);
      await p.scroll(dx, dy, signal);
    });
  }

  moveAbsolute(point: Point, bounds: Rect): Promise<void> {
    return this.exclusive(async () => {
      const p = await this.pointerDevice();
      await p.moveAbsolute(point, bounds);
    });
  }

  type(text: string, given?: AbortSignal): Promise<void> {
    const signal = this.until(given);
    return this.exclusive(async () => {
      throwIfAborted(signal);
      if (text === '') return;
      const kb = await this.keyboardPath(signal);
      await kb.type(text, signal);
    });
  }

  key(combo: KeyCombo, given?: AbortSignal): Promise<void> {
    const signal = this.until(given);
    return this.exclusive(async () => {
      throwIfAborted(signal);
      const kb = await this.keyboardPath(signal);
      await kb.key(combo, signal);
    });
  }

  async releaseAll(opts?: { final?: boolean }): Promise<void> {
    if (opts?.final) this.ending.abort();
    const conn = this.conn;
    if (!conn || conn.failure) {
      this.heldButton = null;
      return;
    }
    try {
      if (this.heldButton && this.pointer) this.pointer.buttonNoWait(this.heldButton, false);
      this.heldButton = null;
      this.wireKeyboard?.releaseAllNoWait();
      await conn.roundtrip(undefined, 500);
    } catch (err) {
      this.log.warn(`releaseAll: ${(err as Error).message}`);
    }
  }

  async dispose(): Promise<void> {
    await this.releaseAll({ final: true });
    const conn = this.conn;
    const pointer = this.pointer;
    const keyboard = this.wireKeyboard;
    this.conn = null;
    this.pointer = null;
    this.wireKeyboard = null;
    if (!conn) return;
    try {
      await keyboard?.destroy();
      await pointer?.destroy();
    } catch (err) {
      this.log.warn(`dispose: ${(err as Error).message}`);
    } finally {
      conn.close();
    }
  }
}

/** Resolve with `p`, or reject with CancelledError as soon as `signal` aborts. */
function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(new CancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => {});
      reject(new CancelledError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
