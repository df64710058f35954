/**
 * Per-version JSON shapes of Hyprland's replies (COMPOSITOR-IPC C.1.3, C.7):
 * field sets and order as each version emits them. Synthetic (no Hyprland runs
 * here), written from the documented field lists.
 */
export type HyprVersion = '0.50' | '0.54' | '0.56' | 'main';
export type ConfigProvider = 'hyprlang' | 'lua';

export interface VersionProfile {
  version: HyprVersion;
  /** `version` reply's version string. */
  versionString: string;
  /** `status` request exists (0.55+). */
  hasStatus: boolean;
  /** `keyword` exists (≤0.56 with hyprlang). */
  hasKeyword: boolean;
  /** Lua config possible. */
  lua: boolean;
  /** Only Lua (main). */
  luaOnly: boolean;
  /**
   * Window-rule grammar of `keyword` (hyprlang configs, from the sources):
   * `v2` (0.50-0.52): `windowrulev2 = bordercolor COLOR, tag:X`;
   * `match` (0.53-0.56): `windowrule = match:tag X, border_color COLOR`, where a
   * bare `tag X` is the tag *effect*: accepted, matching nothing.
   */
  ruleGrammar: 'v2' | 'match';
}

export const PROFILES: Record<HyprVersion, VersionProfile> = {
  '0.50': { version: '0.50', versionString: '0.50.1', hasStatus: false, hasKeyword: true, lua: false, luaOnly: false, ruleGrammar: 'v2' },
  '0.54': { version: '0.54', versionString: '0.54.0', hasStatus: false, hasKeyword: true, lua: false, luaOnly: false, ruleGrammar: 'match' },
  '0.56': { version: '0.56', versionString: '0.56.2', hasStatus: true, hasKeyword: true, lua: true, luaOnly: false, ruleGrammar: 'match' },
  main: { version: 'main', versionString: '0.57.0', hasStatus: true, hasKeyword: false, lua: true, luaOnly: true, ruleGrammar: 'match' },
};

export interface SimMonitor {
  id: number;
  name: string;
  description: string;
  make: string;
  model: string;
  width: number;
  height: number;
  refreshRate: number;
  x: number;
  y: number;
  scale: number;
  transform: number;
  focused: boolean;
  activeWorkspace: number;
  specialWorkspace: number;
}

export interface SimWorkspace {
  id: number;
  name: string;
  monitor: string;
}

export interface SimWindow {
  address: string;
  pid: number;
  class: string;
  title: string;
  initialClass: string;
  initialTitle: string;
  workspace: number;
  floating: boolean;
  fullscreen: number;
  hidden: boolean;
  mapped: boolean;
  at: [number, number];
  size: [number, number];
  tags: string[];
  xwayland: boolean;
  pinned: boolean;
  focusHistoryID: number;
  stableId: string;
  /** The layout keeps it floating: a toggle answers `ok` and changes nothing (seen on real 0.57 with a zenity 4 dialog). */
  staysFloating?: boolean;
}

export interface SimLayer {
  address: string;
  namespace: string;
  monitor: string;
  level: 0 | 1 | 2 | 3;
  x: number;
  y: number;
  w: number;
  h: number;
  pid: number;
}

export interface SimBind {
  modmask: number;
  key: string;
  keycode: number;
  mouse: boolean;
  submap: string;
  dispatcher: string;
  arg: string;
  description: string;
}

/**
 * A workspace reference as 0.57 prints it (recorded): `{address, id, type,
 * name}`; "no special workspace" is `{address: "", type: "", name: ""}`, with
 * no id. Older versions: `{id, name}`.
 */
export function workspaceRef(v: HyprVersion, id: number, name: string): Record<string, unknown> {
  if (v !== 'main') return { id, name };
  if (id === 0) return { address: '', type: '', name: '' };
  return { address: String(id), id, type: id < 0 ? 'special' : 'normal', name };
}

export function serializeMonitor(v: HyprVersion, m: SimMonitor, wsName: (id: number) => string): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: m.id,
    name: m.name,
    description: m.description,
    make: m.make,
    model: m.model,
    serial: '',
    width: m.width,
    height: m.height,
  };
  if (v !== '0.50') {
    o.physicalWidth = 600;
    o.physicalHeight = 340;
  }
  Object.assign(o, {
    refreshRate: m.refreshRate,
    x: m.x,
    y: m.y,
    activeWorkspace: workspaceRef(v, m.activeWorkspace, wsName(m.activeWorkspace)),
    specialWorkspace: workspaceRef(v, m.specialWorkspace, m.specialWorkspace ? wsName(m.specialWorkspace) : ''),
    reserved: [0, 0, 0, 0],
    // up to 0.56.1 the scale is printed with two decimals (`{:.2f}`: 4/3 is 1.33); 0.56.2 and later print it whole
    scale: v === '0.50' || v === '0.54' ? Number(m.scale.toFixed(2)) : m.scale,
    transform: m.transform,
    focused: m.focused,
    dpmsStatus: true,
    vrr: false,
    solitary: '0',
  });
  // 0.57 (recorded) interleaves the *BlockedBy lists with their fields
  if (v === 'main') o.solitaryBlockedBy = ['WINDOWED', 'CANDIDATE'];
  o.activelyTearing = false;
  if (v === 'main') o.tearingBlockedBy = ['NOT_TORN', 'USER', 'CANDIDATE'];
  o.directScanoutTo = '0';
  if (v === 'main') o.directScanoutBlockedBy = ['USER', 'SW', 'CANDIDATE'];
  Object.assign(o, {
    disabled: false,
    currentFormat: 'XRGB8888',
    mirrorOf: 'none',
    availableModes: [`${m.width}x${m.height}@${m.refreshRate.toFixed(2)}Hz`],
  });
  if (v === 'main') {
    Object.assign(o, {
      colorManagementPreset: 'srgb',
      sdrBrightness: 1,
      sdrSaturation: 1,
      sdrMinLuminance: 0.2,
      sdrMaxLuminance: 80,
      hardwareCursorsInUse: false,
      hardwareDetails: { backend: 'drm', hdr: false, chroma: true, bt2020: false, vrrCapable: false },
    });
  } else if (v === '0.56') {
    Object.assign(o, {
      solitaryBlockedBy: [],
      tearingBlockedBy: [],
      directScanoutBlockedBy: [],
      colorManagementPreset: 'srgb',
      sdrBrightness: 1.0,
      sdrSaturation: 1.0,
      sdrMinLuminance: 0.2,
      sdrMaxLuminance: 80,
      hardwareCursorsInUse: false,
    });
  }
  return o;
}

export function serializeWorkspace(v: HyprVersion, w: SimWorkspace, monitorId: number | null, windows: number, hasFullscreen: boolean, last: SimWindow | null): Record<string, unknown> {
  const o: Record<string, unknown> = {
    ...workspaceRef(v, w.id, w.name),
    monitor: w.monitor || '?',
    monitorID: monitorId,
    windows,
    hasfullscreen: hasFullscreen,
    lastwindow: last ? last.address : '0x0',
    lastwindowtitle: last ? last.title : '',
    ispersistent: false,
  };
  if (v === '0.56' || v === 'main') o.tiledLayout = 'dwindle';
  return o;
}

export function serializeClient(v: HyprVersion, c: SimWindow, wsName: string, monitorId: number, visible: boolean): Record<string, unknown> {
  const modern = v === '0.56' || v === 'main';
  const o: Record<string, unknown> = { address: c.address, mapped: c.mapped, hidden: c.hidden };
  if (modern) {
    o.visible = visible;
    o.acceptsInput = true;
  }
  Object.assign(o, {
    at: c.at,
    size: c.size,
    workspace: workspaceRef(v, c.workspace, wsName),
    floating: c.floating,
  });
  if (v === '0.50') o.pseudo = false;
  Object.assign(o, {
    monitor: monitorId,
    class: c.class,
    title: c.title,
    initialClass: c.initialClass,
    initialTitle: c.initialTitle,
    pid: c.pid,
    xwayland: c.xwayland,
    pinned: c.pinned,
  });
  if (modern) o.pinFullscreened = false;
  o.fullscreen = c.fullscreen;
  o.fullscreenClient = c.fullscreen;
  if (modern) {
    o.fullscreenHandler = v === 'main' ? 'default' : 0;
    o.allowedOverFullscreen = v === 'main';
  }
  if (v === '0.54') o.overFullscreen = false;
  Object.assign(o, {
    grouped: [],
    tags: c.tags,
    swallowing: '0x0',
    focusHistoryID: c.focusHistoryID,
    inhibitingIdle: false,
    xdgTag: '',
    xdgDescription: '',
  });
  if (v !== '0.50') o.contentType = 'none';
  if (modern) o.tearingHint = false;
  if (v !== '0.50') o.stableId = c.stableId;
  return o;
}

export function serializeLayers(v: HyprVersion, monitors: SimMonitor[], layers: SimLayer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of monitors) {
    const levels: Record<string, unknown[]> = { '0': [], '1': [], '2': [], '3': [] };
    for (const l of layers.filter((x) => x.monitor === m.name)) {
      const e: Record<string, unknown> = { address: l.address, x: l.x, y: l.y, w: l.w, h: l.h };
      if (v === '0.56' || v === 'main') e.alpha = 1.0;
      e.namespace = l.namespace;
      e.pid = l.pid;
      levels[String(l.level)].push(e);
    }
    out[m.name] = { levels };
  }
  return out;
}

export function serializeBind(b: SimBind): Record<string, unknown> {
  return {
    locked: false,
    mouse: b.mouse,
    release: false,
    repeat: false,
    longPress: false,
    non_consuming: false,
    auto_consuming: false,
    has_description: b.description !== '',
    modmask: b.modmask,
    submap: b.submap,
    submap_universal: 'false',
    key: b.key,
    keycode: b.keycode,
    catch_all: false,
    description: b.description,
    allow_input_capture: false,
    dispatcher: b.dispatcher,
    arg: b.arg,
  };
}

export function serializeVersion(p: VersionProfile): Record<string, unknown> {
  return {
    branch: p.version === 'main' ? 'main' : '',
    commit: 'a9902ea65c1b0d5f1e0a9b7d2c4e6f8a0b1c2d3e',
    version: p.versionString,
    dirty: false,
    commit_message: 'synthetic simulator build',
    commit_date: 'Wed Aug 5 12:00:00 2026',
    tag: `v${p.versionString}`,
    commits: '7000',
    buildAquamarine: '0.9.0',
    buildHyprlang: '0.6.3',
    buildHyprutils: '0.8.0',
    buildHyprcursor: '0.1.13',
    buildHyprgraphics: '0.1.5',
    systemAquamarine: '0.9.0',
    systemHyprlang: '0.6.3',
    systemHyprutils: '0.8.0',
    systemHyprcursor: '0.1.13',
    systemHyprgraphics: '0.1.5',
    abiHash: 'a9902ea65c1b0d5f1e0a9b7d2c4e6f8a0b1c2d3e_aq_0.9_hu_0.8_hg_0.1_hc_0.1_hlg_0.6',
    flags: [],
  };
}

/** The user's binds as each config kind reports them. */
export function defaultBinds(provider: ConfigProvider, v: HyprVersion): SimBind[] {
  const b = (modmask: number, key: string, dispatcher: string, arg: string, extra: Partial<SimBind> = {}): SimBind => ({
    modmask, key, keycode: 0, mouse: false, submap: '', dispatcher, arg, description: '', ...extra,
  });
  if (provider === 'hyprlang') {
    return [
      b(64, 'Q', 'killactive', ''),
      b(64, 'Return', 'exec', 'foot', { description: 'Terminal' }),
      b(65, '1', 'movetoworkspace', '1'),
      b(72, 'F', 'fullscreen', '0'),
      b(64, 'mouse:272', 'movewindow', '', { mouse: true }),
      b(0, '', 'exec', 'notify-send hi', { keycode: 191 }),
      b(0, 'escape', 'submap', 'reset', { submap: 'resize' }),
    ];
  }
  if (v === 'main') {
    return [
      b(64, 'Q', 'HL.Dispatcher(close)', '12'),
      b(64, 'Return', 'function: 0x5648de2c0c60', '13', { description: 'Terminal' }),
      b(65, '1', 'HL.Dispatcher(move)', '14'),
      b(64, 'mouse:272', 'HL.Dispatcher(drag)', '15', { mouse: true }),
    ];
  }
  return [
    b(64, 'Q', '__lua', '5'),
    b(64, 'Return', '__lua', '6', { description: 'Terminal' }),
    b(65, '1', '__lua', '7'),
    b(64, 'mouse:272', '__lua', '8', { mouse: true }),
  ];
}
