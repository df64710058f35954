// The stop chord against the Hyprland and niri protocol simulators, through
// the built server over real stdio: the bind request on start (Lua and
// hyprlang dialects), a press of the bound keys (the simulator emits the
// bind's `custom>>` event the way Hyprland's `event` dispatcher does) stops
// every acting call until resume, and the unbind request on exit; on niri a
// plain "not supported because ...". Requests are read from the simulator's
// own log, never from the server's answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HyprlandSimulator } from '../simulators/hyprland/index.js';
import { NiriSimulator } from '../simulators/niri/niri-simulator.js';
import { startServer, type Server } from '../support/server.js';

async function until<T>(f: () => T | undefined | null | false, what: string, ms = 10000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function stderrOf(server: Server): () => string {
  let text = '';
  server.transport.stderr?.on('data', (d: Buffer) => (text += d.toString('utf8')));
  return () => text;
}

const CASES = [
  {
    name: '0.56, Lua config',
    opts: { version: '0.56', configProvider: 'lua' } as const,
    bind: 'eval hl.bind("SUPER + ALT + Escape", hl.dsp.event("hypruse-stop"))',
    unbind: 'eval hl.unbind("SUPER + ALT + Escape")',
  },
  {
    name: '0.54, hyprlang config',
    opts: { version: '0.54' } as const,
    bind: 'keyword bind SUPER ALT,Escape,event,hypruse-stop',
    unbind: 'keyword unbind SUPER ALT,Escape',
  },
];

for (const c of CASES) {
  describe(`stop chord on the Hyprland simulator (${c.name})`, () => {
    let sim: HyprlandSimulator;
    let server: Server;
    let personAgrees = true;
    const person = { answer: () => personAgrees, asked: [] as string[] };
    beforeAll(async () => {
      sim = await new HyprlandSimulator({ ...c.opts, processes: 'fake' }).start();
      server = await startServer({ ...sim.env, HYPRUSE_SIM_CONTROL: sim.controlPath }, {}, person);
    });
    afterAll(async () => {
      await server?.close();
      await sim?.stop();
    });

    it('binds the chord when the session starts, a press stops acting until resume, and exit unbinds it', async () => {
      // the server builds its session (and binds the chord) on the first request that needs it
      expect((await server.call('desktop')).isError).toBe(false);
      await until(() => sim.requests.includes(c.bind), 'the bind request');
      expect(sim.binds.some((b) => b.modmask === 64 + 8 && b.key === 'Escape')).toBe(true);
      const focus = await server.call('hypr', { action: 'workspace', workspace: '2' });
      expect(focus.isError, focus.text.join('\n')).toBe(false);
      expect(sim.press(['SUPER', 'ALT'], 'Escape')).toBe(true);
      expect(sim.emitted).toContain('custom>>hypruse-stop');
      // the server hears the event on its own socket2 connection: wait for it through the refusals
      let refused = await server.call('hypr', { action: 'workspace', workspace: '1' });
      for (let i = 0; i < 200 && !/^refused: stopped by the person/.test(refused.text[0] ?? ''); i++) {
        await new Promise((r) => setTimeout(r, 25));
        refused = await server.call('hypr', { action: 'workspace', workspace: '1' });
      }
      expect(refused.text[0]).toMatch(/^refused: stopped by the person: the stop chord \(super\+alt\+Escape\)/);
      const before = sim.dispatches.length;
      const again = await server.call('hypr', { action: 'workspace', workspace: '1' });
      expect(again.text[0]).toMatch(/^refused: stopped by the person/);
      expect(sim.dispatches.length).toBe(before); // nothing is dispatched while stopped

      // only the person lifts their stop: the host asks them; declined, it stays
      personAgrees = false;
      const declined = await server.call('resume', {});
      expect(declined.text[0]).toMatch(/^refused: presence: the person declined to resume/);
      const still = await server.call('hypr', { action: 'workspace', workspace: '1' });
      expect(still.text[0]).toMatch(/^refused: stopped by the person/);
      personAgrees = true;
      const resumed = await server.call('resume', {});
      expect(resumed.isError, resumed.text.join('\n')).toBe(false);
      expect(person.asked).toHaveLength(2);
      const after = await server.call('hypr', { action: 'workspace', workspace: '1' });
      expect(after.isError, after.text.join('\n')).toBe(false);
      expect(sim.dispatches.length).toBeGreaterThan(before);

      await server.close();
      await until(() => sim.requests.includes(c.unbind), 'the unbind request');
      expect(sim.binds.some((b) => b.modmask === 64 + 8 && b.key === 'Escape')).toBe(false);
    });
  });
}

describe('stop chord on the niri simulator', () => {
  let sim: NiriSimulator;
  let server: Server;
  let stderr: () => string;
  beforeAll(async () => {
    sim = await NiriSimulator.start();
    server = await startServer(sim.env);
    stderr = stderrOf(server);
  });
  afterAll(async () => {
    await server?.close();
    await sim?.stop();
  });

  it('says plainly that niri cannot bind it, and why; acting still works', async () => {
    const r = await server.call('resume', {});
    expect(r.isError, r.text.join('\n')).toBe(false);
    await server.close();
    expect(stderr()).toMatch(/stop chord super\+alt\+Escape not registered: not supported on niri: stop chord \(niri reads key bindings only from its config file/);
  });
});
