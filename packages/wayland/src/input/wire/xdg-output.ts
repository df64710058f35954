/**
 * zxdg_output_v1: an output's logical position, size and name, as the
 * compositor lays out its global space. One place for every client here that
 * needs it (screencopy capture, the on-screen indicator).
 */
import { arg } from './codec.js';
import type { WaylandConnection } from './connection.js';

export interface XdgOutputInfo {
  name: string;
  logical: { x: number; y: number; width: number; height: number };
}

/**
 * Asks the zxdg_output_manager_v1 `manager` for the xdg output of `wlOutput`;
 * its events fill `into` (logical_position, logical_size, name). Returns the
 * new object's id.
 */
export function requestXdgOutput(conn: WaylandConnection, manager: number, wlOutput: number, into: XdgOutputInfo): number {
  const xdg = conn.allocId('zxdg_output_v1', (op, a) => {
    if (op === 0) {
      into.logical.x = a.int();
      into.logical.y = a.int();
    } else if (op === 1) {
      into.logical.width = a.int();
      into.logical.height = a.int();
    } else if (op === 3) into.name = a.string() ?? into.name;
  });
  conn.send(manager, 1, [arg.newId(xdg), arg.object(wlOutput)]);
  return xdg;
}
