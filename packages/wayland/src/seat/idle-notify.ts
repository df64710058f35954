/**
 * Seat activity from the compositor's idle notifications, on a dedicated
 * Wayland connection: `ext-idle-notify-v1` (Hyprland, sway >= 1.8, niri) or
 * the older `org_kde_kwin_idle` (wlroots compositors such as sway 1.7).
 * Both count every input on the seat (the agent's virtual devices too) and
 * name no device; telling the two apart is the caller's business.
 */
import { HypruseError, runtimeDir } from '@hypruse/core';
import { arg } from '../input/wire/codec.js';
import { WaylandConnection, waylandSocketPath } from '../input/wire/connection.js';

export const EXT_IDLE_NOTIFIER = 'ext_idle_notifier_v1';
export const KDE_IDLE = 'org_kde_kwin_idle';

export interface IdleNotifyHandlers {
  idle(): void;
  resumed(): void;
  lost(reason: string): void;
}

export interface IdleNotifyOptions {
  env: NodeJS.ProcessEnv;
  /** Idle timeout asked of the compositor, ms. */
  timeoutMs: number;
  handlers: IdleNotifyHandlers;
  /** Wire timeout. */
  requestTimeoutMs?: number;
}

const SEES = "every keyboard, pointer and touch input on the seat (the person's devices and the agent's own), as start/stop of activity";
const BLIND =
  "which device the input came from: input during the agent's own actions (and for the idle timer's slack after them) cannot be told from the agent's, and idle inhibitors (video players) may silence org_kde_kwin_idle";

export class IdleNotify {
  private constructor(
    private readonly conn: WaylandConnection,
    readonly method: string,
    private readonly objectId: number,
  ) {}

  readonly sees = SEES;
  readonly blind = BLIND;

  /** Which protocol this compositor offers, from the registry of a connection (doctor). */
  static methodOf(globals: ReadonlyMap<string, unknown>): string | null {
    if (globals.has(EXT_IDLE_NOTIFIER)) return 'ext-idle-notify-v1';
    if (globals.has(KDE_IDLE)) return 'org_kde_kwin_idle';
    return null;
  }

  /** Open the connection and one idle notification; `{ unavailable }` when the compositor offers neither protocol. */
  static async open(opts: IdleNotifyOptions): Promise<IdleNotify | { unavailable: string }> {
    const path = waylandSocketPath(opts.env, runtimeDir(opts.env));
    const conn = await WaylandConnection.connect({ path, wantFds: false, timeoutMs: opts.requestTimeoutMs ?? 3000 });
    try {
      const method = IdleNotify.methodOf(conn.globals);
      if (!method) {
        conn.close();
        return { unavailable: `the compositor offers neither ${EXT_IDLE_NOTIFIER} nor ${KDE_IDLE}` };
      }
      if (!conn.globals.has('wl_seat')) {
        conn.close();
        return { unavailable: 'the compositor advertises no wl_seat' };
      }
      const seat = conn.bind('wl_seat', 1, () => {});
      const events = (opcode: number) => {
        // both protocols: 0 = idle(d), 1 = resumed
        if (opcode === 0) opts.handlers.idle();
        else if (opcode === 1) opts.handlers.resumed();
      };
      let objectId: number;
      const timeout = Math.max(1, Math.round(opts.timeoutMs));
      if (method === 'ext-idle-notify-v1') {
        const mgr = conn.bind(EXT_IDLE_NOTIFIER, 1, () => {});
        objectId = conn.allocId('ext_idle_notification_v1', events);
        // get_idle_notification(id, timeout, seat)
        conn.send(mgr.id, 1, [arg.newId(objectId), arg.uint(timeout), arg.object(seat.id)]);
      } else {
        const mgr = conn.bind(KDE_IDLE, 1, () => {});
        objectId = conn.allocId('org_kde_kwin_idle_timeout', events);
        // get_idle_timeout(id, seat, timeout)
        conn.send(mgr.id, 0, [arg.newId(objectId), arg.object(seat.id), arg.uint(timeout)]);
      }
      await conn.roundtrip();
      const watch = new IdleNotify(conn, method, objectId);
      watch.watchFailure(opts.handlers);
      return watch;
    } catch (err) {
      conn.close();
      throw err instanceof HypruseError ? err : new HypruseError('error.wayland', `cannot open idle notifications: ${(err as Error).message}`, { cause: err });
    }
  }

  private watchFailure(h: IdleNotifyHandlers): void {
    const poll = setInterval(() => {
      const f = this.conn.failure;
      if (f) {
        clearInterval(poll);
        if (!this.closed) h.lost(f.message);
      }
    }, 1000);
    poll.unref();
    this.stopPoll = () => clearInterval(poll);
  }

  private closed = false;
  private stopPoll: () => void = () => {};

  /** Barrier: every notification queued for this client before now has been handled when it resolves. */
  sync(): Promise<void> {
    return this.conn.roundtrip();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopPoll();
    try {
      // destroy / release (opcode 0 in both protocols)
      this.conn.send(this.objectId, 0, []);
    } catch {
      /* connection already gone */
    }
    this.conn.close();
  }
}
