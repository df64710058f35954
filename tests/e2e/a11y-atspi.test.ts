// AtspiAccessibility against real GTK apps on the headless sway test desktop
// (tests/desktop/harness.mjs). Effects are checked independently: through
// sway's tree, zenity's own stdout, and busctl on the AT-SPI bus.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { HypruseError, NotFoundError, type A11yElement, type A11yWindowQuery, scaledMs } from '@hypruse/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AtspiAccessibility } from '../../packages/a11y/src/atspi-accessibility.js';
import { a11yBusAddress, killFixture, launchFixture, requireDesktop, swaymsg, swayNodes, waitFor, type LaunchedFixture } from '../support/desktop.js';

const desk = await requireDesktop();

function busctl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('busctl', args, { timeout: 5000, encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)));
  });
}

async function windowOf(pid: number): Promise<A11yWindowQuery> {
  const node = await waitFor(async () => (await swayNodes()).find((n) => n.pid === pid && n.type === 'con'), 10000, `window of pid ${pid}`);
  return { pid, title: node.name ?? '', width: node.rect.width, height: node.rect.height, class: node.app_id ?? undefined };
}

/** Text of a text element, read with busctl (independent of the package under test). */
async function setText(el: A11yElement, text: string): Promise<void> {
  const address = await a11yBusAddress();
  await busctl(['--address', address, 'call', el.ref.bus, el.ref.path, 'org.a11y.atspi.EditableText', 'SetTextContents', 's', text]);
}

/**
 * GTK marks a widget FOCUSED only while its window has keyboard focus, and
 * the headless seat has no keyboard: hold a virtual one (wtype sleeping) for
 * the duration, as the input backend's keyboard does in real use.
 */
async function holdKeyboard(pid: number): Promise<ChildProcess> {
  const child = spawn('wtype', ['-s', '20000', '-k', 'Shift_L'], { env: { ...process.env, ...desk!.env }, stdio: 'ignore' });
  await waitFor(async () => (await swaymsg<Array<{ capabilities: number }>>('-t', 'get_seats')).some((s) => (s.capabilities & 2) !== 0), 3000, 'a keyboard on the seat');
  await swaymsg(`[pid=${pid}]`, 'focus');
  return child;
}

describe.skipIf(!desk)('AtspiAccessibility on a real AT-SPI bus', () => {
  let a11y: AtspiAccessibility;
  const launched: LaunchedFixture[] = [];

  async function launch(name: 'zenity-entry' | 'widget-factory', args?: string[]): Promise<LaunchedFixture> {
    const app = await launchFixture(name, { workspace: '9', args });
    launched.push(app);
    return app;
  }

  /** Reads until the app has registered its tree (GTK registers a moment after the window maps). */
  async function readOk(q: A11yWindowQuery, actionableOnly = false) {
    return waitFor(async () => {
      const r = await a11y.read(q, { actionableOnly });
      return r.status === 'ok' ? r : null;
    }, 10000, `an accessibility tree for ${q.class}`);
  }

  beforeAll(() => {
    a11y = new AtspiAccessibility({ env: { ...desk!.env }, timeoutMs: 2000, maxNodes: 4000 });
  });
  afterEach(async () => {
    for (const app of launched.splice(0)) {
      try {
        process.kill(app.pid, 'SIGCONT');
      } catch {
        // already gone
      }
      await killFixture(app.pid).catch(() => undefined);
    }
  });
  afterAll(async () => {
    await a11y?.dispose();
  });

  it('lists zenity entry: label, text with its value, Cancel and OK; focusedText reads the field back', async () => {
    const app = await launch('zenity-entry');
    const q = await windowOf(app.pid);
    const first = await readOk(q);
    expect(first.app).toBe('zenity');
    expect(first.windowName).toBe('hypruse entry');
    const text = first.elements.find((e) => e.role === 'text');
    expect(text).toBeDefined();

    await setText(text!, 'Grüße, hypruse');
    const r = await a11y.read(q, { actionableOnly: false });
    if (r.status !== 'ok') throw new Error(JSON.stringify(r));
    const summary = r.elements.map((e) => `${e.role}:${e.name}`);
    expect(summary).toEqual(expect.arrayContaining(['label:Name?', 'text:', 'push button:Cancel', 'push button:OK']));
    // document order: label, text, Cancel, OK
    const order = ['label:Name?', 'text:', 'push button:Cancel', 'push button:OK'].map((s) => summary.indexOf(s));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const field = r.elements.find((e) => e.role === 'text')!;
    expect(field.value).toEqual({ text: 'Grüße, hypruse' });
    expect(field.clickable).toBe(true);
    const ok = r.elements.find((e) => e.name === 'OK')!;
    expect(ok.clickable).toBe(true);
    expect(ok.actions.map((a) => a.toLowerCase())).toContain('click');
    // window-relative boxes inside the window
    for (const e of r.elements) {
      expect(e.extents.width).toBeGreaterThan(0);
      expect(e.extents.x + e.extents.width / 2).toBeLessThan(q.width);
      expect(e.extents.y + e.extents.height / 2).toBeLessThan(q.height);
    }

    const act = await a11y.read(q, { actionableOnly: true, name: 'ok' });
    expect(act.status === 'ok' && act.elements.map((e) => e.name)).toEqual(['OK']);

    const kbd = await holdKeyboard(app.pid);
    const focused = await waitFor(() => a11y.focusedText(app.pid), 5000, 'the focused text field').finally(() => kbd.kill());
    expect(focused.text).toBe('Grüße, hypruse');
    expect(focused.element.role).toBe('text');
    expect(focused.element.ref).toEqual(field.ref);

    const apps = await a11y.apps();
    expect(apps).toContainEqual({ name: 'zenity', pid: app.pid, bus: field.ref.bus });
  });

  it('doAction(click) on OK closes zenity, which prints the entered text', async () => {
    const app = await launch('zenity-entry');
    const q = await windowOf(app.pid);
    const r = await readOk(q, true);
    await setText(r.elements.find((e) => e.role === 'text')!, 'typed over AT-SPI');
    const ok = r.elements.find((e) => e.name === 'OK')!;
    expect(await a11y.doAction(ok.ref, ok.actions.findIndex((a) => a.toLowerCase() === 'click'))).toBe(true);
    await waitFor(async () => !(await swayNodes()).some((n) => n.pid === app.pid), 5000, 'zenity to close');
    await waitFor(() => readFileSync(app.stdout, 'utf8').includes('typed over AT-SPI'), 3000, "zenity's answer on stdout");

    // The app is gone: a clear typed error for actions, null for refresh, no_app for reads.
    const err = await a11y.doAction(ok.ref, 0).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.code).toBe('not_found.element');
    expect(err.message).toMatch(/gone/);
    expect(await a11y.refresh(ok.ref)).toBeNull();
    const again = await a11y.read(q, { actionableOnly: true });
    expect(again.status).toBe('no_app');
    await expect(a11y.doAction(ok.ref, -1)).rejects.toMatchObject({ code: 'usage.arguments' });
  });

  it('never reads password fields', async () => {
    const app = await launch('zenity-entry', ['--hide-text']);
    const q = await windowOf(app.pid);
    const r = await readOk(q);
    const pw = r.elements.find((e) => e.role === 'password text');
    expect(pw).toBeDefined();
    await setText(pw!, 'hunter2');
    const again = await a11y.read(q, { actionableOnly: false });
    if (again.status !== 'ok') throw new Error(JSON.stringify(again));
    const field = again.elements.find((e) => e.role === 'password text')!;
    expect(field.password).toBe(true);
    expect(field.value).toBeUndefined();
    expect(JSON.stringify(again)).not.toContain('hunter2');
    const kbd = await holdKeyboard(app.pid);
    const focused = await waitFor(() => a11y.focusedText(app.pid), 5000, 'the focused password field').finally(() => kbd.kill());
    expect(focused.element.password).toBe(true);
    expect(focused.text).toBeNull();
    const refreshed = await a11y.refresh(field.ref);
    expect(refreshed?.password).toBe(true);
    expect(JSON.stringify(refreshed)).not.toContain('hunter2');
  });

  it('lists gtk3-widget-factory buttons, entries, sliders with values and check boxes with checked', async () => {
    const app = await launch('widget-factory');
    await swaymsg(`[pid=${app.pid}]`, 'fullscreen', 'enable');
    await waitFor(async () => (await swayNodes()).find((n) => n.pid === app.pid)?.rect.width === 1280, 5000, 'fullscreen');
    const q = await windowOf(app.pid);
    await readOk(q, true);
    const t0 = performance.now();
    const r = await a11y.read(q, { actionableOnly: true });
    const ms = performance.now() - t0;
    if (r.status !== 'ok') throw new Error(JSON.stringify(r));
    expect(r.nodes).toBeGreaterThan(150);
    expect(r.truncated).toBe(false);
    const byRole = (role: string) => r.elements.filter((e) => e.role === role);
    expect(byRole('push button').length).toBeGreaterThan(0);
    expect(byRole('text').some((e) => e.value?.text === 'entry')).toBe(true);
    const sliders = byRole('slider');
    expect(sliders.length).toBeGreaterThan(0);
    for (const s of sliders) {
      expect(typeof s.value?.current).toBe('number');
      expect(s.value!.max).toBeGreaterThan(s.value!.min!);
      expect(s.value!.percent).toBe(Math.round(((s.value!.current! - s.value!.min!) / (s.value!.max! - s.value!.min!)) * 100));
    }
    const checks = byRole('check box');
    expect(checks.map((c) => c.checked)).toEqual(expect.arrayContaining([true, false]));
    // only actionable roles with actionableOnly
    expect(r.elements.some((e) => e.role === 'label' || e.role === 'filler')).toBe(false);

    // refresh sees a state change made through another client (busctl DoAction on a check box)
    const box = checks.find((c) => c.checked === false && c.clickable)!;
    const address = await a11yBusAddress();
    await busctl(['--address', address, 'call', box.ref.bus, box.ref.path, 'org.a11y.atspi.Action', 'DoAction', 'i', '0']);
    const after = await waitFor(async () => {
      const e = await a11y.refresh(box.ref);
      return e?.checked ? e : null;
    }, 3000, 'the check box to be checked');
    expect(after.name).toBe(box.name);

    // the tree is read within the ceiling, and the name filter and maxNodes apply
    expect(ms).toBeLessThan(scaledMs(10000)); // bounded by the total ceiling (5 idle ceilings), whatever the load
    const small = await a11y.read(q, { actionableOnly: false, maxNodes: 20 });
    expect(small.status === 'ok' && small.truncated && small.nodes).toBe(20);
    const named = await a11y.read(q, { actionableOnly: true, name: 'CHECKBUTTON' });
    expect(named.status === 'ok' && named.elements.every((e) => e.name === 'checkbutton')).toBe(true);
    expect(named.status === 'ok' && named.elements.length).toBe(checks.length);
  });

  it('a hung app (SIGSTOP) gives error.a11y within the ceiling instead of hanging', async () => {
    const app = await launch('zenity-entry');
    const q = await windowOf(app.pid);
    await readOk(q);
    const hungA11y = new AtspiAccessibility({ env: { ...desk!.env }, timeoutMs: 1000, maxNodes: 4000 });
    try {
      await hungA11y.apps(); // connect first, so only the app call is timed
      process.kill(app.pid, 'SIGSTOP');
      const t0 = performance.now();
      const err = await hungA11y.read(q, { actionableOnly: true }).catch((e) => e);
      const ms = performance.now() - t0;
      expect(err).toBeInstanceOf(HypruseError);
      expect(err.code).toBe('error.a11y');
      expect(err.message).toBe(`zenity did not answer within ${(s => `${Number.isInteger(s) ? s : s.toFixed(1)} s`)(scaledMs(1000) / 1000)}`);
      expect(ms).toBeGreaterThanOrEqual(scaledMs(990));
      expect(ms).toBeLessThan(scaledMs(1600));
      // an abort signal ends the wait sooner
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 100);
      const t1 = performance.now();
      await expect(hungA11y.read(q, { actionableOnly: true, signal: ac.signal })).rejects.toMatchObject({ code: 'cancelled.request' });
      expect(performance.now() - t1).toBeLessThan(scaledMs(600));
      // other apps still answer while this one is stopped
      expect((await hungA11y.apps()).some((a) => a.pid === app.pid)).toBe(true);
    } finally {
      process.kill(app.pid, 'SIGCONT');
      await hungA11y.dispose();
    }
    // and it recovers once the app runs again
    expect((await readOk(q)).app).toBe('zenity');
  });

  it('answers no_app for a window no accessible app owns', async () => {
    const r = await a11y.read({ pid: 999999, title: 'no such window anywhere', width: 100, height: 100 }, { actionableOnly: true });
    expect(r.status).toBe('no_app');
    expect(r.status === 'no_app' && r.reason).toMatch(/no accessible application/);
    expect(await a11y.focusedText(999999)).toBeNull();
    expect(await a11y.describe()).toMatch(/^AT-SPI over dbus-next: accessibility bus unix:path=.*application\(s\) registered$/);
  });
});
