// The ext-workspace-v1 and ext-foreign-toplevel-list-v1 clients on a stub
// connection: events as the compositor encodes them (labwc's order: one group
// on two outputs, workspaces announced by the manager and entered into the
// group, everything applied on the manager's done), and the requests written.
import { describe, expect, it } from 'vitest';
import { ArgReader, ExtToplevelList, ExtWorkspaceList, WS_CAP, WS_STATE, arg, encodeMessage, type WaylandConnection, type WireArg } from '../src/input/index.js';

type Handler = (op: number, a: ArgReader) => void;

/** Enough of a WaylandConnection for a protocol module: binds, adopts, and records requests. */
function stubConnection() {
  const handlers = new Map<number, Handler>();
  const sent: Array<[number, number]> = [];
  let next = 10;
  const conn = {
    bindName: (_registry: number, _name: number, _iface: string, _version: number, h?: Handler) => {
      const id = next++;
      if (h) handlers.set(id, h);
      return id;
    },
    adopt: (id: number, _iface: string, h: Handler) => void handlers.set(id, h),
    send: (id: number, op: number) => void sent.push([id, op]),
    forget: (id: number) => void handlers.delete(id),
  } as unknown as WaylandConnection;
  const event = (id: number, op: number, args: WireArg[] = []) => {
    const h = handlers.get(id);
    if (!h) throw new Error(`no handler for object ${id}`);
    h(op, new ArgReader(encodeMessage(id, op, args).subarray(8)));
  };
  const u32s = (...v: number[]) => Buffer.from(new Uint32Array(v).buffer);
  return { conn, sent, event, u32s, handlers };
}

describe('ExtWorkspaceList', () => {
  it('lists a group and its workspaces once done arrives, with name, coordinates, state and capabilities', () => {
    const { conn, event, u32s, sent } = stubConnection();
    const changes: string[] = [];
    const list = new ExtWorkspaceList(conn, 2, 7, (c) => changes.push(...c.map((x) => `${x.kind}:${x.workspace.name}`)));
    const mgr = 10;
    event(mgr, 0, [arg.newId(100)]); // workspace_group
    event(100, 0, [arg.uint(1)]); // capabilities: create_workspace
    event(100, 1, [arg.object(4)]); // output_enter
    event(100, 1, [arg.object(5)]);
    for (const [i, name] of ['1', '2', '3'].entries()) {
      const h = 200 + i;
      event(mgr, 1, [arg.newId(h)]); // workspace
      event(h, 1, [arg.string(name)]); // name
      event(h, 2, [arg.array(u32s(i + 1))]); // coordinates
      event(h, 3, [arg.uint(i === 0 ? WS_STATE.active : 0)]); // state
      event(h, 4, [arg.uint(WS_CAP.activate)]); // capabilities
      event(100, 3, [arg.object(h)]); // workspace_enter
    }
    expect(list.ready).toBe(false);
    expect(list.workspaces.size).toBe(0);
    event(mgr, 2); // done
    expect(list.ready).toBe(true);
    expect(list.list().map((w) => [w.name, w.coordinates, w.state, w.capabilities, w.group, w.id])).toEqual([
      ['1', [1], 1, 1, 100, null],
      ['2', [2], 0, 1, 100, null],
      ['3', [3], 0, 1, 100, null],
    ]);
    expect([...list.groups.get(100)!.outputs]).toEqual([4, 5]);
    expect(changes).toEqual([]); // the first done is the baseline

    // activate '3': the request, then the manager's commit
    list.activate(list.list()[2]!);
    expect(sent).toEqual([[202, 1], [mgr, 0]]);
    // the compositor answers: 1 loses active, 3 gains it, applied together on done
    event(200, 3, [arg.uint(0)]);
    event(202, 3, [arg.uint(WS_STATE.active | WS_STATE.urgent)]);
    expect(list.list()[2]!.state).toBe(0);
    event(mgr, 2);
    expect(list.list().map((w) => w.state)).toEqual([0, 0, 3]);
    expect(changes).toEqual(['activated:3']);

    // a workspace removed: gone on done, its handle destroyed
    event(201, 5);
    expect(sent.at(-1)).toEqual([201, 0]);
    event(mgr, 2);
    expect(list.list().map((w) => w.name)).toEqual(['1', '3']);
    expect(changes).toEqual(['activated:3', 'removed:2']);
  });

  it('keeps a stable id the compositor gives and leaves it null when none is sent', () => {
    const { conn, event } = stubConnection();
    const list = new ExtWorkspaceList(conn, 2, 7);
    event(10, 1, [arg.newId(300)]);
    event(300, 0, [arg.string('ws-abc')]);
    event(300, 1, [arg.string('mail')]);
    event(10, 2);
    expect(list.list()[0]).toMatchObject({ id: 'ws-abc', name: 'mail', group: null, coordinates: [] });
  });
});

describe('ExtToplevelList', () => {
  it('pairs by app id and title in announcement order, each toplevel once', () => {
    const { conn, event, sent } = stubConnection();
    const list = new ExtToplevelList(conn, 2, 8);
    const add = (h: number, id: string, app: string, title: string) => {
      event(10, 0, [arg.newId(h)]);
      event(h, 4, [arg.string(id)]);
      event(h, 3, [arg.string(app)]);
      event(h, 2, [arg.string(title)]);
      event(h, 1); // done
    };
    add(50, 'aaaaaaaaaaaa', 'foot', 'same');
    add(51, 'bbbbbbbbbbbb', 'foot', 'same');
    add(52, 'cccccccccccc', 'zenity', 'other');
    expect(list.claim('foot', 'same')?.identifier).toBe('aaaaaaaaaaaa');
    expect(list.claim('foot', 'same')?.identifier).toBe('bbbbbbbbbbbb');
    expect(list.claim('foot', 'same')).toBeUndefined();
    expect(list.claim('zenity', 'nope')).toBeUndefined();
    event(52, 0); // closed
    expect(sent).toEqual([[52, 0]]);
    expect(list.claim('zenity', 'other')).toBeUndefined();
  });
});
