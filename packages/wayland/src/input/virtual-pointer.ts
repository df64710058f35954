/**
 * `zwlr_virtual_pointer_v1` on a WaylandConnection: button, axis (wheel),
 * absolute motion. Every batch ends with `frame` and a sync round trip so a
 * protocol error surfaces on the call that caused it.
 */
import type { PointerButton, Point, Rect } from '@hypruse/core';
import { UsageError, scaledMs } from '@hypruse/core';
import { arg } from './wire/codec.js';
import type { WaylandConnection } from './wire/connection.js';

export const POINTER_MANAGER = 'zwlr_virtual_pointer_manager_v1';

/** Linux evdev codes (BTN_LEFT ... BTN_EXTRA). */
export const BUTTON_CODES: Record<PointerButton, number> = {
  left: 0x110,
  right: 0x111,
  middle: 0x112,
  back: 0x113,
  forward: 0x114,
};

/**
 * Pause after creating a virtual device on a seat that had no device of its kind, before the
 * device's first event (ms, a base figure scaled by the time policy: `deviceSettleMs()`).
 *
 * Why a pause and not a round trip: the new device gives the seat the capability, the compositor
 * sends `wl_seat.capabilities` to every client, and each app creates its `wl_pointer` (or
 * `wl_keyboard`) when its own event loop gets to that event. An event sent before the app's
 * request reached the compositor goes to no resource of that app and is dropped; no request of
 * another client can observe that the app has bound (traced with WAYLAND_DEBUG=1 on GTK 3 and
 * GTK 4 under sway 1.7: capabilities(1), get_pointer, enter, then only the release of a click
 * whose press came first, or no button at all). Our own round trip only proves the compositor
 * added the device and broadcast the capability. Measured on sway 1.7 (2 cores, load 8-15), a
 * fresh device's first click per GTK 3/GTK 4 counter: no pause 5/25 and 8/25 lost; 60 ms 0/25
 * each, idle or under load, when the app was not repainting; 2/20 and 8/20 lost at 60 ms (1-2/20
 * at 200 ms) when the app was still repainting a click of 50 ms before.
 */
export const DEVICE_SETTLE_MS = 60;

/** DEVICE_SETTLE_MS scaled by the time policy (a 10x slower machine waits 10x longer); 0 stays 0. */
export function deviceSettleMs(baseMs: number = DEVICE_SETTLE_MS): number {
  return baseMs > 0 ? scaledMs(baseMs) : 0;
}

/** Value units per wheel notch (libinput's and wlroots' convention). */
export const UNITS_PER_NOTCH = 15;

const enum Op {
  MotionAbsolute = 1,
  Button = 2,
  Axis = 3,
  Frame = 4,
  AxisSource = 5,
  AxisDiscrete = 7,
  Destroy = 8,
}

/** Millisecond timestamp for input events (monotonic, masked to u32). */
export function eventTime(): number {
  return Number(process.hrtime.bigint() / 1_000_000n) >>> 0;
}

/** Absolute motion arguments: the point's offset in `bounds` as integers over integer extents. */
export function absoluteMotionArgs(point: Point, bounds: Rect): { x: number; y: number; xExtent: number; yExtent: number } {
  if (!(bounds.width > 0 && bounds.height > 0)) {
    throw new UsageError(`bounds for absolute motion must have a positive size, got ${bounds.width}x${bounds.height}`);
  }
  const inside =
    point.x >= bounds.x && point.y >= bounds.y && point.x <= bounds.x + bounds.width && point.y <= bounds.y + bounds.height;
  if (!Number.isFinite(point.x) || !Number.isFinite(point.y) || !inside) {
    throw new UsageError(
      `point (${point.x}, ${point.y}) is outside the motion bounds ${bounds.x},${bounds.y} ${bounds.width}x${bounds.height}`,
      { hint: 'Give a point inside the layout (global logical coordinates).' },
    );
  }
  // Work in 1/64 logical pixels so fractional points and scales stay exact enough.
  const k = 64;
  const xExtent = Math.max(1, Math.round(bounds.width * k));
  const yExtent = Math.max(1, Math.round(bounds.height * k));
  const x = Math.min(xExtent, Math.max(0, Math.round((point.x - bounds.x) * k)));
  const y = Math.min(yExtent, Math.max(0, Math.round((point.y - bounds.y) * k)));
  return { x, y, xExtent, yExtent };
}

/** One axis of a scroll: discrete notches when whole and supported, smooth values otherwise. */
export function axisPlan(notches: number, discreteSupported: boolean): { value: number; discrete: number | null } {
  const value = notches * UNITS_PER_NOTCH;
  return { value, discrete: discreteSupported && Number.isInteger(notches) ? notches : null };
}

export class WirePointer {
  private constructor(
    private readonly conn: WaylandConnection,
    private readonly managerId: number,
    readonly id: number,
    readonly version: number,
  ) {}

  /** `settleMs`: the pause before the first event, already scaled (0 when the seat had a pointer). */
  static async create(conn: WaylandConnection, signal?: AbortSignal, settleMs = deviceSettleMs()): Promise<WirePointer> {
    const mgr = conn.bind(POINTER_MANAGER, 2);
    const id = conn.allocId('zwlr_virtual_pointer_v1');
    conn.send(mgr.id, 0, [arg.object(0), arg.newId(id)]); // create_virtual_pointer(seat = default)
    await conn.roundtrip(signal);
    // A new pointer device gives the seat pointer capability if it had none (headless, no mouse):
    // apps then bind wl_pointer asynchronously (see DEVICE_SETTLE_MS); the caller passes 0 when
    // the seat had a pointer.
    if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
    return new WirePointer(conn, mgr.id, id, mgr.version);
  }

  get description(): string {
    return `zwlr_virtual_pointer_v1 v${this.version}`;
  }

  /** Send one button event + frame without waiting (usable from signal handlers). */
  buttonNoWait(button: PointerButton, pressed: boolean): void {
    this.conn.send(this.id, Op.Button, [arg.uint(eventTime()), arg.uint(BUTTON_CODES[button]), arg.uint(pressed ? 1 : 0)]);
    this.conn.send(this.id, Op.Frame);
  }

  async button(button: PointerButton, pressed: boolean, signal?: AbortSignal): Promise<void> {
    this.buttonNoWait(button, pressed);
    await this.conn.roundtrip(signal);
  }

  async scroll(dx: number, dy: number, signal?: AbortSignal): Promise<void> {
    const t = eventTime();
    this.conn.send(this.id, Op.AxisSource, [arg.uint(0)]); // wheel
    for (const [axis, notches] of [[0, dy], [1, dx]] as const) {
      if (!notches) continue;
      const plan = axisPlan(notches, this.version >= 2);
      if (plan.discrete !== null) {
        this.conn.send(this.id, Op.AxisDiscrete, [arg.uint(t), arg.uint(axis), arg.fixed(plan.value), arg.int(plan.discrete)]);
      } else {
        this.conn.send(this.id, Op.Axis, [arg.uint(t), arg.uint(axis), arg.fixed(plan.value)]);
      }
    }
    this.conn.send(this.id, Op.Frame);
    await this.conn.roundtrip(signal);
  }

  async moveAbsolute(point: Point, bounds: Rect, signal?: AbortSignal): Promise<void> {
    const a = absoluteMotionArgs(point, bounds);
    this.conn.send(this.id, Op.MotionAbsolute, [arg.uint(eventTime()), arg.uint(a.x), arg.uint(a.y), arg.uint(a.xExtent), arg.uint(a.yExtent)]);
    this.conn.send(this.id, Op.Frame);
    await this.conn.roundtrip(signal);
  }

  /** Destroy the device and its manager, then one round trip so the compositor drops it. */
  async destroy(): Promise<void> {
    if (this.conn.failure) return;
    this.conn.send(this.id, Op.Destroy);
    this.conn.send(this.managerId, 1);
    this.conn.forget(this.id);
    await this.conn.roundtrip(undefined, 1000);
  }
}
