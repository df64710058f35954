import { EventQueue } from '@hypruse/core';
import type {
  A11yElement, Accessibility, Bind, Capture, Clipboard, Compositor, CompositorCapability, Desktop, DesktopEvent, EventSubscription,
  Frame, Imaging, Input, KeyCombo, Point, PointerButton, Rect,
} from '@hypruse/core';

/** In-memory backends for kernel and MCP tests: they record what was delivered, so tests can assert no side effects. */
export function fakeDesktop(): Desktop {
  return {
    compositor: 'fake',
    monitors: [
      { name: 'M1', geometry: { x: 0, y: 0, width: 1280, height: 800 }, scale: 1, transform: 0, focused: true, activeWorkspace: '1' },
      { name: 'M2', geometry: { x: 1280, y: 0, width: 1280, height: 720 }, scale: 1.5, transform: 0, focused: false, activeWorkspace: '2' },
    ],
    workspaces: [
      { id: '1', name: '1', monitor: 'M1', windows: 1, visible: true, focused: true },
      { id: '2', name: '2', monitor: 'M2', windows: 1, visible: true, focused: false },
    ],
    windows: [
      { address: '11', class: 'zenity', title: 'Entry', pid: 100, geometry: { x: 100, y: 100, width: 400, height: 200 }, workspace: '1', floating: false, fullscreen: false, visible: true, focused: true },
      { address: '22', class: 'foot', title: 'term', pid: 200, geometry: { x: 1300, y: 20, width: 600, height: 400 }, workspace: '2', floating: false, fullscreen: false, visible: true, focused: false },
    ],
    activeWindow: '11',
    activeWorkspace: '1',
    cursor: null,
    layers: [],
  };
}

export class FakeCompositor implements Compositor {
  readonly id = 'fake';
  readonly displayName = 'fake compositor';
  readonly capabilities: ReadonlySet<CompositorCapability>;
  desktop = fakeDesktop();
  readonly actions: string[] = [];
  private subs = new Set<(e: DesktopEvent) => void>();

  constructor(caps: CompositorCapability[] = ['cursor.set', 'focus', 'workspace', 'move', 'close', 'fullscreen', 'floating', 'launch', 'binds', 'bind.run', 'events', 'layers']) {
    this.capabilities = new Set(caps);
  }
  unsupportedReason(cap: CompositorCapability) {
    return `the fake cannot do ${cap}`;
  }
  emit(e: DesktopEvent) {
    for (const s of this.subs) s(e);
  }
  async version() { return 'fake 1'; }
  async snapshot() { return structuredClone(this.desktop); }
  async subscribe(): Promise<EventSubscription> {
    const queue: EventQueue = new EventQueue(() => this.subs.delete(push));
    const push = (e: DesktopEvent) => queue.push(e);
    this.subs.add(push);
    return queue;
  }
  async focusWindow(a: string) { this.actions.push(`focus ${a}`); this.desktop.activeWindow = a; }
  async switchWorkspace(w: string) { this.actions.push(`workspace ${w}`); }
  async moveToWorkspace(a: string, w: string) { this.actions.push(`move ${a} ${w}`); }
  async closeWindow(a: string) { this.actions.push(`close ${a}`); this.desktop.windows = this.desktop.windows.filter((x) => x.address !== a); return { status: 'closed' as const }; }
  async toggleFullscreen(a: string | null) { this.actions.push(`fullscreen ${a}`); }
  async toggleFloating(a: string | null) { this.actions.push(`floating ${a}`); }
  async moveCursor(p: Point) { this.actions.push(`cursor ${p.x},${p.y}`); }
  async launch(command: string) { this.actions.push(`launch ${command}`); return { pid: 300, window: null }; }
  async binds(): Promise<Bind[]> { return [{ combo: 'SUPER+Return', action: 'exec', arg: 'foot' }]; }
  async runBind(b: Bind) { this.actions.push(`bind ${b.combo}`); return ''; }
  async locked() { return false; }
  async tagWindow(a: string, t: string) { this.actions.push(`tag ${a} ${t}`); }
  async notify() { /* nothing */ }
  async installMarkRule() { return false; }
  async dispose() { /* nothing */ }
}

export class FakeInput implements Input {
  readonly delivered: string[] = [];
  async describe() { return { pointer: 'fake', keyboard: 'fake' }; }
  async click(b: PointerButton, n: 1 | 2 | 3) { this.delivered.push(`click ${b} x${n}`); }
  async holdModifiers(mods: KeyCombo['modifiers'], during: () => Promise<void>) {
    for (const m of mods) this.delivered.push(`press ${m}`);
    try { await during(); } finally { for (const m of [...mods].reverse()) this.delivered.push(`release ${m}`); }
  }
  async drag(b: PointerButton, during: () => Promise<void>) { this.delivered.push(`press ${b}`); try { await during(); } finally { this.delivered.push(`release ${b}`); } }
  async scroll(dx: number, dy: number) { this.delivered.push(`scroll ${dx},${dy}`); }
  async moveAbsolute(p: Point, _b: Rect) { this.delivered.push(`abs ${p.x},${p.y}`); }
  async type(text: string) { this.delivered.push(`type ${text}`); }
  async key(c: KeyCombo) { this.delivered.push(`key ${c.source}`); }
  async releaseAll() { /* nothing held */ }
  async dispose() { /* nothing */ }
}

export class FakeCapture implements Capture {
  async describe() { return 'fake'; }
  async capture(target: Parameters<Capture['capture']>[0]): Promise<Frame> {
    const geometry = target.kind === 'region' ? target.rect : target.geometry;
    const width = Math.round(geometry.width * target.scale);
    const height = Math.round(geometry.height * target.scale);
    return { data: Buffer.alloc(width * height * 4, 128), width, height, channels: 4, geometry, scale: target.scale, source: target.kind === 'window' ? 'crop' : target.kind, via: 'fake' };
  }
}

export class FakeImaging implements Imaging {
  async encode(frame: Frame, opts: Parameters<Imaging['encode']>[1]) {
    const f = opts.fraction && opts.fraction > 0 ? opts.fraction : 1;
    const width = Math.round(frame.width * f);
    return { data: Buffer.from('fakeimage'), mime: opts.format === 'png' ? ('image/png' as const) : ('image/jpeg' as const), format: opts.format, width, height: Math.round(frame.height * f), scale: (frame.scale * width) / frame.width };
  }
  async crop(frame: Frame) { return frame; }
  async drawMarks(frame: Frame) { return frame; }
  async raw(frame: Frame) { return frame; }
}

export class FakeAccessibility implements Accessibility {
  elements: A11yElement[] = [
    { ref: { bus: ':1.1', path: '/ok' }, role: 'push button', roleId: 43, name: 'OK', states: ['enabled'], extents: { x: 300, y: 150, width: 80, height: 30 }, actions: ['click'], clickable: true, depth: 3 },
    { ref: { bus: ':1.1', path: '/cancel' }, role: 'push button', roleId: 43, name: 'Cancel', states: ['enabled'], extents: { x: 200, y: 150, width: 80, height: 30 }, actions: ['click'], clickable: true, depth: 3 },
    { ref: { bus: ':1.1', path: '/delete' }, role: 'push button', roleId: 43, name: 'Delete', states: ['enabled'], extents: { x: 100, y: 150, width: 80, height: 30 }, actions: ['click'], clickable: true, depth: 3 },
    { ref: { bus: ':1.1', path: '/okay' }, role: 'push button', roleId: 43, name: 'Okay then', states: ['enabled'], extents: { x: 10, y: 10, width: 80, height: 30 }, actions: ['click'], clickable: true, depth: 3 },
  ];
  async describe() { return 'fake'; }
  async apps() { return [{ name: 'zenity', pid: 100, bus: ':1.1' }]; }
  async read() { return { status: 'ok' as const, app: 'zenity', windowName: 'Entry', elements: this.elements, truncated: false, nodes: 10 }; }
  async refresh(ref: A11yElement['ref']) { return this.elements.find((e) => e.ref.path === ref.path) ?? null; }
  async doAction() { return true; }
  /** Text per element path; elements without an entry have no text. */
  texts = new Map<string, string>();
  async textRange(ref: A11yElement['ref'], range: { offset: number; limit: number }) {
    const t = this.texts.get(ref.path);
    return t === undefined ? null : { text: t.slice(range.offset, range.offset + range.limit), total: t.length };
  }
  async focusedText(): ReturnType<Accessibility['focusedText']> { return null; }
  async dispose() { /* nothing */ }
}

export class FakeClipboard implements Clipboard {
  text = '';
  async describe() { return 'fake'; }
  async read() { return this.text ? { kind: 'text' as const, text: this.text, truncated: false, totalChars: this.text.length } : { kind: 'empty' as const }; }
  async write(t: string) { this.text = t; }
}
