/**
 * `zwp_virtual_keyboard_v1` in process: uploads an XKB keymap as a file
 * descriptor (needs the fd-capable transport), waits one round trip so the
 * compositor applies it before the first key, then sends key and modifier
 * events. Keymaps are regenerated when the text needs keys the current one
 * lacks, so any character types on any layout.
 */
import { ShmFile } from '../shm-file.js';
import { HypruseError, throwIfAborted, type KeyCombo } from '@hypruse/core';
import { arg } from './wire/codec.js';
import type { WaylandConnection } from './wire/connection.js';
import { fdPassingUnavailable } from './wire/transport.js';
import { MODIFIER_KEYS, buildKeymap, keysymForComboKey, planTyping, type Keymap, type Modifier } from './keymap.js';
import { deviceSettleMs, eventTime } from './virtual-pointer.js';

export const KEYBOARD_MANAGER = 'zwp_virtual_keyboard_manager_v1';

const enum Op {
  Keymap = 0,
  Key = 1,
  Modifiers = 2,
  Destroy = 3,
}

/** Key events per sync round trip while typing (paces the compositor and the app). */
const BATCH = 16;

export class WireKeyboard {
  private keymap: Keymap | null = null;
  /** Set until the first keymap of this device has been applied and has settled. */
  private fresh = true;
  private readonly pressed = new Set<number>();
  private mods = 0;

  private constructor(
    private readonly conn: WaylandConnection,
    readonly id: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly settleMs: number,
  ) {}

  static async create(conn: WaylandConnection, seatId: number, env: NodeJS.ProcessEnv, signal?: AbortSignal, settleMs = deviceSettleMs()): Promise<WireKeyboard> {
    if (!conn.fdPassing) {
      throw new HypruseError('error.input', `the in-process virtual keyboard needs file-descriptor passing, which is off: ${fdPassingUnavailable() ?? 'the connection cannot pass fds'}`, {
        hint: 'Reinstall hypruse with its optional dependency koffi (npm install without --omit=optional), or use the wtype keyboard (keyboard: "wtype").',
      });
    }
    const mgr = conn.bind(KEYBOARD_MANAGER, 1);
    const id = conn.allocId('zwp_virtual_keyboard_v1');
    conn.send(mgr.id, 0, [arg.object(seatId), arg.newId(id)]);
    await conn.roundtrip(signal);
    return new WireKeyboard(conn, id, env, settleMs);
  }

  get description(): string {
    return 'zwp_virtual_keyboard_v1 (in-process)';
  }

  /** Upload `km` as an fd and wait until the compositor has it. */
  private async upload(km: Keymap, signal?: AbortSignal): Promise<void> {
    const data = Buffer.from(km.text + '\0', 'utf8');
    // a memfd (no path at all), else an exclusive unlinked file in hypruse's private folder
    const fh = await ShmFile.create('keymap', this.env);
    try {
      await fh.write(data, 0);
      await this.conn.sendAndFlush(this.id, Op.Keymap, [arg.uint(1), arg.fd(), arg.uint(data.length)], [fh.fd]);
    } finally {
      await fh.close();
    }
    this.keymap = km;
    await this.conn.roundtrip(signal);
    if (this.fresh) {
      // When the seat had no keyboard before (headless, no devices), apps bind wl_keyboard only now.
      // Measured on sway 1.7 + GTK 3: keys sent right after the first keymap (even after the sync)
      // were dropped whole in 2-3 of 8 runs; with this pause, 0 of 32.
      this.fresh = false;
      await new Promise((r) => setTimeout(r, this.settleMs));
    }
  }

  private async ensureKeys(keysyms: string[], signal?: AbortSignal): Promise<Keymap> {
    const cur = this.keymap;
    if (cur && keysyms.every((s) => cur.codes.has(s))) return cur;
    const km = buildKeymap(keysyms);
    await this.upload(km, signal);
    return km;
  }

  private sendKey(code: number, pressed: boolean): void {
    this.conn.send(this.id, Op.Key, [arg.uint(eventTime()), arg.uint(code - 8), arg.uint(pressed ? 1 : 0)]);
    if (pressed) this.pressed.add(code);
    else this.pressed.delete(code);
  }

  private sendMods(mask: number): void {
    this.mods = mask;
    this.conn.send(this.id, Op.Modifiers, [arg.uint(mask), arg.uint(0), arg.uint(0), arg.uint(0)]);
  }

  async type(text: string, signal?: AbortSignal): Promise<void> {
    for (const run of planTyping(text)) {
      throwIfAborted(signal);
      const km = await this.ensureKeys(run.keysyms, signal);
      let inBatch = 0;
      for (const sym of run.keysyms) {
        const code = km.codes.get(sym)!;
        this.sendKey(code, true);
        this.sendKey(code, false);
        if (++inBatch === BATCH) {
          inBatch = 0;
          await this.conn.roundtrip(); // no signal: a batch is never left half-acknowledged
          throwIfAborted(signal);
        }
      }
      if (inBatch) await this.conn.roundtrip();
    }
  }

  /** Press modifiers in order, tap the key, release in reverse order. */
  async key(combo: KeyCombo, signal?: AbortSignal): Promise<void> {
    const sym = combo.key === null ? null : keysymForComboKey(combo.key);
    const km = await this.ensureKeys(sym ? [sym] : [], signal);
    throwIfAborted(signal);
    const mods = combo.modifiers.map((m) => MODIFIER_KEYS[m as Modifier]);
    let mask = 0;
    try {
      for (const m of mods) {
        this.sendKey(m.code, true);
        mask |= m.mask;
        this.sendMods(mask);
      }
      if (sym) {
        const code = km.codes.get(sym)!;
        this.sendKey(code, true);
        this.sendKey(code, false);
      }
    } finally {
      for (const m of [...mods].reverse()) {
        this.sendKey(m.code, false);
        mask &= ~m.mask;
        this.sendMods(mask);
      }
    }
    await this.conn.roundtrip();
  }

  /** Press modifiers in order and wait until the compositor has them (the start of a ctrl+click). */
  async pressModifiers(mods: Modifier[], signal?: AbortSignal): Promise<void> {
    await this.ensureKeys([], signal);
    let mask = this.mods;
    for (const name of mods) {
      const m = MODIFIER_KEYS[name];
      this.sendKey(m.code, true);
      mask |= m.mask;
      this.sendMods(mask);
    }
    await this.conn.roundtrip();
  }

  /** Release modifiers in reverse order of `mods` (those still pressed) and wait for the compositor. */
  async releaseModifiers(mods: Modifier[]): Promise<void> {
    if (this.conn.failure) return;
    let mask = this.mods;
    for (const name of [...mods].reverse()) {
      const m = MODIFIER_KEYS[name];
      if (!this.pressed.has(m.code)) continue;
      this.sendKey(m.code, false);
      mask &= ~m.mask;
      this.sendMods(mask);
    }
    await this.conn.roundtrip();
  }

  /** Release every pressed key and clear modifiers without waiting (signal-handler safe). */
  releaseAllNoWait(): void {
    if (this.conn.failure) return;
    for (const code of [...this.pressed]) this.sendKey(code, false);
    if (this.mods) this.sendMods(0);
  }

  get holding(): boolean {
    return this.pressed.size > 0 || this.mods !== 0;
  }

  async destroy(): Promise<void> {
    if (this.conn.failure) return;
    this.releaseAllNoWait();
    this.conn.send(this.id, Op.Destroy);
    this.conn.forget(this.id);
    await this.conn.roundtrip(undefined, 1000);
  }
}
