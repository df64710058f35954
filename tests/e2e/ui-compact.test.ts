// ui's compact tree against its flat list on three real apps (gtk3-widget-factory, a zenity form,
// gnome-calculator): the same elements with the same facts, and at least 2x shorter on the widget
// factory. The facts are checked against libatspi itself (python3-gi Atspi, run as the desktop user).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killFixture, launchFixture, requireDesktop, swayNodes } from '../support/desktop.js';
import { atspi } from '../support/atspi.js';
import { probe } from '../support/atspi-probe.js';
import { startServer, type Server } from '../support/server.js';
import { settled, slowA11yConfig } from '../support/tools.js';

const desk = await requireDesktop();

interface Row { id: number; role: string; name: string; value?: string | number; checked?: boolean; clickable: boolean; password?: true; focused?: true; labelled_by?: number }

/** Every fact the flat list gives about an element must be on the compact line that holds its id. */
function sameFacts(tree: string[], rows: Row[]): void {
  for (const e of rows) {
    const line = tree.find((l) => l.includes(`[${e.id}]`));
    expect(line, `[${e.id}] ${e.role} "${e.name}" is in the tree`).toBeDefined();
    // the part of the line that speaks of this element: from its id to the next id
    const own = line!.slice(line!.indexOf(`[${e.id}]`)).replace(/ \[\d+\].*$/, '');
    const named = own.includes(JSON.stringify(e.name)) || line!.includes(`${JSON.stringify(e.name)} ×`);
    if (e.name) expect(named, `name of [${e.id}] in: ${line}`).toBe(true);
    if (typeof e.value === 'string' && e.value !== '') expect(own, `value of [${e.id}]`).toContain(`= ${JSON.stringify(e.value.split('\n')[0].slice(0, 40)).slice(0, -1)}`);
    if (typeof e.value === 'number') expect(own).toContain(`= ${e.value}`);
    expect(/\bchecked\b/.test(own), `checked of [${e.id}]: ${own}`).toBe(e.checked === true);
    expect(/\bdisabled\b/.test(own), `disabled of [${e.id}]: ${own}`).toBe(!e.clickable);
    expect(/\bfocused\b/.test(own)).toBe(e.focused === true);
  }
}

describe.skipIf(!desk)('ui: compact tree and flat list', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startServer(desk!.env, { HYPRUSE_CONFIG: slowA11yConfig(), HYPRUSE_TAKEOVER_MS: '0' });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function both(window: string) {
    const flat = await server.call('ui', { window, format: 'flat' });
    expect(flat.isError, flat.text.join('\n')).toBe(false);
    const tree = await server.call('ui', { window });
    expect(tree.isError, tree.text.join('\n')).toBe(false);
    const rows = flat.data.elements as Row[];
    expect((tree.data.elements as Row[]).map((r) => r.id)).toEqual(rows.map((r) => r.id));
    // today's flat list: the same lines without the ids
    const flatText = flat.text.slice(1).map((l) => l.replace(/^\[\d+\] /, '')).join('\n');
    const treeText = tree.text.slice(1).join('\n');
    sameFacts(tree.text.slice(1), rows);
    return { rows, flatText, treeText, tree: tree.text.slice(1) };
  }

  it('gtk3-widget-factory: same facts, at least 2x shorter; checked states and names agree with libatspi', async () => {
    const app = await launchFixture('widget-factory', { workspace: '1' });
    try {
      const addr = String((await swayNodes()).find((n) => n.pid === app.pid && n.type === 'con')!.id);
      await settled(server, addr);
      const { rows, flatText, treeText } = await both(addr);
      expect(rows.length).toBeGreaterThan(30);
      expect(flatText.length / treeText.length, `flat ${flatText.length} chars, tree ${treeText.length}`).toBeGreaterThanOrEqual(2);
      const nodes = await atspi(app.pid);
      for (const role of ['check box', 'radio button']) {
        const ours = rows.filter((r) => r.role === role);
        const theirs = nodes.filter((n) => n.role === role && n.states.includes('showing'));
        expect(ours.map((r) => `${r.name}=${r.checked}`).sort(), role).toEqual(theirs.map((n) => `${n.name}=${n.states.includes('checked')}`).sort());
      }
    } finally {
      await killFixture(app.pid);
    }
  }, 90000);

  it('a zenity form: each nameless field is listed under its label ("entry \\"First\\""), the labels are not listed again, and libatspi agrees the fields have no name', async () => {
    const l = await server.call('launch', { command: "zenity --forms --title='hypruse form' --text=Details --add-entry=First --add-entry=Second", workspace: '3' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    const pid = Number(l.data.pid);
    try {
      await settled(server, addr);
      const { rows, tree } = await both(addr);
      // reading order: First is shown above Second, whatever order AT-SPI lists them in
      expect(tree.join('\n')).toMatch(/entry ×2: \[\d+\] "First" \[\d+\] "Second"/);
      const fields = rows.filter((r) => r.role === 'text');
      expect(fields.map((f) => f.name).sort()).toEqual(['First', 'Second']);
      expect(fields.every((f) => typeof f.labelled_by === 'number')).toBe(true);
      expect(rows.some((r) => r.role === 'label' && (r.name === 'First' || r.name === 'Second'))).toBe(false);
      const nodes = await atspi(pid);
      expect(nodes.filter((n) => n.role === 'text').map((n) => n.name)).toEqual(['', '']);
      expect(nodes.filter((n) => n.role === 'label').map((n) => n.name)).toEqual(expect.arrayContaining(['First', 'Second']));
      // libatspi: the labels' boxes put First above Second
      const boxes = await probe(pid);
      const top = (name: string) => boxes.find((n) => n.role === 'label' && n.name === name)!.box![1];
      expect(top('First')).toBeLessThan(top('Second'));
      // the ids stay those of the same objects on a second read
      const again = await server.call('ui', { window: addr, format: 'flat' });
      expect((again.data.elements as Row[]).map((r) => `${r.id} ${r.role} ${r.name}`)).toEqual(rows.map((r) => `${r.id} ${r.role} ${r.name}`));
    } finally {
      await killFixture(pid).catch(() => undefined);
      await server.call('wm', { action: 'close_window', window: addr }).catch(() => undefined);
    }
  }, 90000);

  it('gnome-calculator: same facts in both forms; a capped tree continues with after= to the same elements', async () => {
    const l = await server.call('launch', { command: 'gnome-calculator', workspace: '4' });
    expect(l.isError, l.text.join('\n')).toBe(false);
    const addr = String(l.data.address);
    const pid = Number(l.data.pid);
    try {
      await settled(server, addr);
      const { rows, tree } = await both(addr);
      // GTK 4 names the role "button"
      const isButton = (role: string) => role === 'push button' || role === 'button';
      expect(rows.filter((r) => isButton(r.role)).length).toBeGreaterThan(20);
      const seen: number[] = [];
      let after = 0;
      for (let page = 0; page < 50; page++) {
        const r = await server.call('ui', { window: addr, max_chars: 300, after });
        expect(r.isError, r.text.join('\n')).toBe(false);
        expect(r.text.slice(1).join('\n').length).toBeLessThan(300 + 200);
        seen.push(...(r.data.elements as Row[]).map((e) => e.id).filter((id) => !seen.includes(id)));
        if (!r.data.next_after) break;
        after = r.data.next_after as number;
      }
      expect(seen.sort((a, b) => a - b)).toEqual(rows.map((r) => r.id).sort((a, b) => a - b));
      const nodes = await atspi(pid);
      // a button GTK 4 names by its widget type ("GtkMenuButton") is named by its description (tooltip)
      const buttons = new Set(nodes.filter((n) => isButton(n.role)).flatMap((n) => [n.name, ...(n.description ? [n.description] : [])]));
      // GTK 4.8 doubles a button's name ("( (" for a button labelled "("): ui names it once
      for (const b of rows.filter((r) => isButton(r.role))) expect(buttons.has(b.name) || buttons.has(`${b.name} ${b.name}`), `button "${b.name}" in libatspi`).toBe(true);
      expect(tree.join('\n')).toMatch(/button ×\d+: /);
    } finally {
      await killFixture(pid).catch(() => undefined);
      await server.call('wm', { action: 'close_window', window: addr }).catch(() => undefined);
    }
  }, 120000);
});
