import { createConnection } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NiriSimulator } from './niri-simulator.js';

let sim: NiriSimulator;
beforeEach(async () => {
  sim = await NiriSimulator.start();
});
afterEach(async () => {
  await sim.stop();
});

/** Write raw lines on one connection, collect `n` reply lines. */
function exchange(lines: string[], n: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const sock = createConnection(sim.socketPath, () => sock.write(lines.map((l) => `${l}\n`).join('')));
    let buf = '';
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`got only: ${buf}`));
    }, 1000);
    sock.on('data', (d) => {
      buf += d.toString();
      const got = buf.split('\n').filter(Boolean);
      if (got.length >= n) {
        clearTimeout(timer);
        sock.destroy();
        resolve(got.slice(0, n));
      }
    });
  });
}

describe('niri simulator wire behaviour', () => {
  it('answers pipelined requests on one connection in order', async () => {
    const [a, b, c] = await exchange(['"Version"', '"FocusedWindow"', '{"Nope":1}'], 3);
    expect(JSON.parse(a)).toEqual({ Ok: { Version: '26.04 (niri-simulator)' } });
    expect(JSON.parse(b).Ok.FocusedWindow).toMatchObject({ id: 10, is_focused: true, layout: { window_size: [932, 1044] } });
    expect(JSON.parse(c).Err).toMatch(/unknown variant/);
  });

  it('starts an event stream with Handled and the full-state burst, then stops reading requests', async () => {
    const lines = await exchange(['"EventStream"', '"Version"'], 7);
    expect(JSON.parse(lines[0])).toEqual({ Ok: 'Handled' });
    expect(lines.slice(1).map((l) => Object.keys(JSON.parse(l))[0])).toEqual([
      'WorkspacesChanged', 'WindowsChanged', 'KeyboardLayoutsChanged', 'OverviewOpenedOrClosed', 'ConfigLoaded', 'CastsChanged',
    ]);
    expect(sim.requests).toEqual(['EventStream']);
  });

  it('emits niri events for a focus change across outputs', async () => {
    const events: unknown[] = [];
    sim.on('event', (e) => events.push(e));
    const [r] = await exchange(['{"Action":{"FocusWindow":{"id":11}}}'], 1);
    expect(JSON.parse(r)).toEqual({ Ok: 'Handled' });
    expect(events).toEqual([{ WorkspaceActivated: { id: 4, focused: true } }, { WindowFocusChanged: { id: 11 } }]);
  });

  it('reports the pre-25.05 window shape when asked to', async () => {
    sim.omitLayout = true;
    const [r] = await exchange(['"Windows"'], 1);
    expect(Object.keys(JSON.parse(r).Ok.Windows[0]).sort()).toEqual(['app_id', 'id', 'is_floating', 'is_focused', 'is_urgent', 'pid', 'title', 'workspace_id']);
  });
});
