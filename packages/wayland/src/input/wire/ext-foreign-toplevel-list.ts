/**
 * ext-foreign-toplevel-list-v1 (wayland-protocols staging), client side: the
 * compositor's list of toplevels with their title, app id and a stable
 * `identifier` (unique among the compositor's toplevels, never reused, the
 * same on every connection). Read only: the protocol has no requests on a
 * toplevel besides destroy. Compositor-neutral.
 */
import type { ArgReader } from './codec.js';
import type { WaylandConnection } from './connection.js';

export const EXT_TOPLEVEL_LIST = 'ext_foreign_toplevel_list_v1';

// opcodes, in the order the protocol XML declares them
const LIST_EV = { toplevel: 0, finished: 1 } as const;
const HANDLE_EV = { closed: 0, done: 1, title: 2, appId: 3, identifier: 4 } as const;
const HANDLE_REQ = { destroy: 0 } as const;

export interface ExtToplevel {
  handle: number;
  identifier: string;
  title: string;
  appId: string;
  /** Its first `done` arrived. */
  ready: boolean;
  /** Taken by a caller that paired it with a handle of another protocol. */
  claimed: boolean;
}

/** The toplevels of one ext_foreign_toplevel_list_v1 bound on `conn`, in the order the compositor announced them. */
export class ExtToplevelList {
  readonly toplevels = new Map<number, ExtToplevel>();

  constructor(
    private readonly conn: WaylandConnection,
    registry: number,
    name: number,
    private readonly onChange: (t: ExtToplevel, closed: boolean) => void = () => undefined,
  ) {
    conn.bindName(registry, name, EXT_TOPLEVEL_LIST, 1, (op, a) => {
      if (op === LIST_EV.toplevel) this.adopt(a.newId());
    });
  }

  /** The first unclaimed listed toplevel with this app id and title (announcement order), claimed. */
  claim(appId: string, title: string): ExtToplevel | undefined {
    for (const t of this.toplevels.values()) {
      if (t.ready && !t.claimed && t.appId === appId && t.title === title) {
        t.claimed = true;
        return t;
      }
    }
    return undefined;
  }

  private adopt(handle: number): void {
    const t: ExtToplevel = { handle, identifier: '', title: '', appId: '', ready: false, claimed: false };
    const next: { title?: string; appId?: string } = {};
    this.toplevels.set(handle, t);
    this.conn.adopt(handle, 'ext_foreign_toplevel_handle_v1', (op: number, a: ArgReader) => {
      if (op === HANDLE_EV.identifier) t.identifier = a.string() ?? '';
      else if (op === HANDLE_EV.title) next.title = a.string() ?? '';
      else if (op === HANDLE_EV.appId) next.appId = a.string() ?? '';
      else if (op === HANDLE_EV.done) {
        if (next.title !== undefined) t.title = next.title;
        if (next.appId !== undefined) t.appId = next.appId;
        delete next.title;
        delete next.appId;
        t.ready = true;
        this.onChange(t, false);
      } else if (op === HANDLE_EV.closed) {
        this.toplevels.delete(handle);
        this.conn.send(handle, HANDLE_REQ.destroy);
        this.conn.forget(handle);
        this.onChange(t, true);
      }
    });
  }
}
