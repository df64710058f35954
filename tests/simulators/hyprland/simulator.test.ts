// The simulator itself, and launch against really spawned processes (matching
// through /proc ancestry, not a fake process table).
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { HyprlandCompositor, socketsFor } from '@hypruse/compositor-hyprland';
import { FAKE_APP, HyprlandSimulator, parseLuaExpression, splitBatch } from './index.js';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function start(opts: ConstructorParameters<typeof HyprlandSimulator>[0]) {
  const sim = await new HyprlandSimulator(opts).start();
  cleanup.push(() => sim.stop());
  const comp = new HyprlandCompositor({ sockets: socketsFor(sim.runtimeDir, sim.signature) });
  cleanup.push(() => comp.dispose());
  return { sim, comp };
}

describe('Hyprland simulator protocol', () => {
  it('answers batches joined by three newlines, with per-command flags', async () => {
    const sim = new HyprlandSimulator({ version: '0.56', processes: 'fake' });
    const reply = sim.handle('[[BATCH]]j/activewindow;j/cursorpos;version');
    const parts = reply.split('\n\n\n');
    expect(parts).toHaveLength(3);
    expect(JSON.parse(parts[0])).toEqual({});
    expect(JSON.parse(parts[1])).toEqual({ x: 960, y: 540 });
    expect(parts[2]).toBe('Hyprland 0.56.2');
    expect(splitBatch('a\\;b;c\\\\;d')).toEqual(['a;b', 'c\\', 'd']);
  });

  it('Lua mode rejects legacy dispatch strings with the real syntax error and note', () => {
    const sim = new HyprlandSimulator({ version: 'main', processes: 'fake' });
    // as recorded from real 0.57 (tests/simulators/recorded/hyprland-0.57/hyprctl-dispatch-legacy-exec.txt)
    expect(sim.handle('dispatch workspace 3')).toBe(`error: 3 [string "return hl.dispatch(workspace 3)"]:1: ')' expected near '3'\n\n → Note: dispatch in lua is a shorthand for hl.dispatch(...), your syntax might need to be updated.`);
    expect(sim.handle('dispatch __lua 5')).toContain(`')' expected near '5'`);
    expect(sim.handle('dispatch hl.dsp.focus({ workspace = "3" })')).toBe('ok');
    expect(sim.handle('keyword general:border_size 2')).toBe('unknown request');
    const v056 = new HyprlandSimulator({ version: '0.56', configProvider: 'lua', processes: 'fake' });
    expect(v056.handle('keyword windowrule x')).toBe("keyword can't work with non-legacy parsers. Use eval.");
    const legacy = new HyprlandSimulator({ version: '0.54', processes: 'fake' });
    expect(legacy.handle('dispatch hl.dsp.focus({ workspace = "3" })')).toBe('Invalid dispatcher');
    expect(legacy.handle('j/status')).toBe('unknown request');
  });

  it('the strict Lua parser refuses code outside literals', () => {
    expect(() => parseLuaExpression('hl.dsp.exec_cmd("a" .. os.getenv("HOME"))')).toThrowError(/'\.\.'/);
    expect(() => parseLuaExpression('hl.dsp.exec_cmd("a") hl.dsp.exit()')).toThrowError();
    expect(parseLuaExpression('hl.dsp.exec_cmd([==[a]]b]==], { workspace = "3 silent" })')).toMatchObject({ args: ['a]]b', { fields: { workspace: '3 silent' } }] });
    expect(parseLuaExpression('"\\065\\n\\x41\\u{1F680}"')).toBe('A\nA🚀');
  });

  it('emits the socket2 events Hyprland emits for a window lifecycle', () => {
    const sim = new HyprlandSimulator({ version: '0.56', processes: 'fake' });
    const w = sim.openWindow({ class: 'foot', title: 'vim notes, draft' });
    const a = w.address.slice(2);
    expect(sim.emitted).toEqual([`openwindow>>${a},1,foot,vim notes, draft`, 'activewindow>>foot,vim notes, draft', `activewindowv2>>${a}`]);
  });
});

describe('launch with real processes', () => {
  it('matches the launched process by /proc ancestry, not the unrelated window that opened first', async () => {
    const { sim, comp } = await start({ version: '0.56', configProvider: 'lua', processes: 'spawn' });
    const others: ChildProcess[] = [];
    cleanup.push(() => others.forEach((c) => c.exitCode === null && c.kill()));
    sim.onExec = () => {
      const other = spawn(process.execPath, [FAKE_APP, '--class', 'intruder'], { env: { ...process.env, HYPRUSE_SIM_CONTROL: sim.controlPath }, stdio: 'ignore' });
      others.push(other);
    };
    const t0 = Date.now();
    const r = await comp.launch(`'${process.execPath}' '${FAKE_APP}' --class mine --title launched --delay 1500`, { timeoutMs: 15000, workspace: '3' });
    const ms = Date.now() - t0;
    // the intruder is a second node process: on a loaded machine it may map a little late
    for (let i = 0; i < 250 && !sim.windows.some((w) => w.class === 'intruder'); i++) await new Promise((res) => setTimeout(res, 20));
    expect(sim.windows.some((w) => w.class === 'intruder')).toBe(true);
    const intruder = sim.windows.find((w) => w.class === 'intruder');
    expect(intruder && intruder.pid).toBe(others[0].pid);
    expect(r.window?.class).toBe('mine');
    expect(r.window?.workspace).toBe('3');
    expect(r.pid).not.toBe(others[0].pid);
    expect(ms).toBeLessThan(12000);
    // closing it ends the real process
    expect(await comp.closeWindow(r.window!.address, 1000)).toEqual({ status: 'closed' });
  });
});
