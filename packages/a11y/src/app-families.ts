import { closeSync, openSync, readSync, realpathSync, statSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AppFamilies, LaunchPlan } from '@hypruse/core';

/**
 * One application family (a toolkit or an engine) as data: how it is
 * recognised and what it needs at start to run on a Wayland session and to
 * expose its accessibility tree. This table is the one place in hypruse that
 * knows such things; code reads it and names no app.
 */
export interface AppFamily {
  id: string;
  /** Who belongs to it, in words. */
  title: string;
  /** Program names (the command's program, or the file it resolves to), matched exactly. */
  binaries?: string[];
  /** Program names matched by pattern (an `electron25` binary). */
  binaryPatterns?: RegExp[];
  /** Files beside the resolved program (or one folder up) whose presence marks the family. */
  markerFiles?: string[];
  /** Shared libraries the program links (sonames, matched as a prefix in its dynamic string table). */
  libraries?: string[];
  /** Desktop-entry ids / Wayland app ids of its apps (for matching windows and `doctor`). */
  desktopIds?: string[];
  /** The toolkit name its apps report over AT-SPI (Application.ToolkitName). */
  atspiToolkit?: string[];
  /**
   * Environment set for every launched command: a toolkit reads only its own
   * variables, and a launcher script hides which toolkit runs, so these are
   * safe and useful everywhere.
   */
  env?: Record<string, string>;
  /** Values that undo a switch-off the host's environment carries: set only when the session has the variable. */
  undoHostEnv?: Record<string, string>;
  /** Command-line switches added when the program is recognised (after the program word, unless already given). */
  switches?: string[];
  /**
   * Switches added as well when the launch opens the window where no output may draw it (background
   * mode's agent workspace) and the person allowed what they cost (config backgroundLivePages), unless a
   * switch of that name is already given; `why` goes in the launch's note. One with a space is passed
   * as one (quoted) word.
   */
  backgroundSwitches?: { switches: string[]; why: string };
  /** Windows shown only while the app starts (regular expression sources for class and title): never the launch's answer. */
  splash?: Array<{ class?: string; title?: string }>;
  /** How long a launch waits for the app's windows to stay unchanged (ms): longer for apps that replace their first window. */
  stayMs?: number;
  /** Names its toolkit gives unlabelled widgets (their class: "GtkMenuButton"), regular expression sources: not names a person would use. */
  widgetClassNames?: string[];
  /**
   * How the boxes its apps report over AT-SPI are put right (the one extents fix of an application;
   * see extents-fix.ts), for the toolkit versions `versions` matches (Application.Version, regular
   * expression source; every version when absent):
   * - `screen-less-origin`: its WINDOW extents are wrong; its SCREEN extents less the window's own
   *   SCREEN origin are read instead;
   * - `embedded-pane`: a root pane held by a native container reports its boxes, and every box below
   *   it, relative to that container; the pane's branch is moved by the container's origin.
   * (A web engine's surface inset is in web-engines.ts, WebEngine.surfaceInset.)
   */
  extentsFix?: { fix: 'screen-less-origin' | 'embedded-pane'; versions?: string };
  /**
   * Its own menu bar stays in the tree as a child of its root pane, with a box of no height, beside the
   * native menu bar that shows the same menus (LibreOffice under GTK 3): that copy is left out of every
   * read with its menus, so each menu is listed once (the one a click reaches).
   */
  shadowMenuBar?: boolean;
  /** Names its processes give their application object on the accessibility bus (the root's Name), where the toolkit name does not tell the family. */
  atspiApps?: string[];
  /**
   * The question the app asks after a Save in a format not its own (regular expression sources: the
   * window's class and title, and the button that keeps the chosen format): file_dialog answers it,
   * the format being the one the path asked for.
   */
  keepFormat?: Array<{ class?: string; title: string; keep: string }>;
  /**
   * How long (ms, before the time policy's scale) a read of its windows waits for the app to answer,
   * where its apps stop answering for longer than hypruse's usual ceiling while they work.
   */
  answerMs?: number;
  /** What was measured about it (versions, facts); shown by nothing, read by people. */
  facts?: string;
}

export const APP_FAMILIES: readonly AppFamily[] = [
  {
    id: 'chromium',
    title: 'Chromium and the browsers built on it',
    binaries: [
      'chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'google-chrome-beta', 'google-chrome-unstable', 'chrome',
      'brave', 'brave-browser', 'microsoft-edge', 'microsoft-edge-stable', 'microsoft-edge-beta', 'vivaldi', 'vivaldi-stable', 'opera', 'thorium-browser', 'ungoogled-chromium',
    ],
    desktopIds: ['chromium', 'google-chrome', 'brave-browser', 'microsoft-edge', 'vivaldi-stable', 'opera'],
    atspiToolkit: ['Chromium'],
    switches: ['--force-renderer-accessibility'],
    // Chromium 156 on Wayland waits for the compositor's frame callback before it hands a frame on, and
    // sway sends none to a window on a workspace no output shows: the page's renderer then waits for its
    // frames to be taken, runs no document lifecycle, and the accessibility tree (serialized after each
    // lifecycle: content/renderer/accessibility/render_accessibility_impl.cc, AXReadyCallback) stays as
    // it was. --disable-frame-rate-limit in the renderers alone gives each its own begin-frame source
    // and lets it draw without waiting (content/renderer/render_thread_impl.cc, cc's LayerTreeSettings),
    // and the tree follows the page again (a check box read checked 0.25 s after its action). Given to the
    // browser it reaches the browser's display compositor too, which then spins a core (measured: 10.1
    // core-seconds in 10 s on a still page); the renderer command prefix puts it on the renderers alone
    // (/proc/self/exe is the browser binary when the browser starts a renderer): 0.09 core-seconds in 10 s
    // on a still page, 0.25 on a page animating every frame. WebEngine.undrawnFollows recognises it.
    backgroundSwitches: {
      switches: ['--renderer-cmd-prefix=/proc/self/exe --disable-frame-rate-limit'],
      why: "its pages' accessibility tree follows them on a workspace no output shows; its renderers then start without Chromium's zygote, so they keep the seccomp-bpf sandbox but not the namespace sandbox",
    },
    facts:
      'Chromium 156 exposes an empty window over AT-SPI unless started with --force-renderer-accessibility; ACCESSIBILITY_ENABLED, GNOME_ACCESSIBILITY, toolkit-accessibility and ScreenReaderEnabled made no difference. Without XDG_SESSION_TYPE=wayland it tries X11 and exits.',
  },
  {
    id: 'electron',
    title: 'Electron apps (Chromium inside: VS Code, Slack, Discord, Obsidian, Signal...)',
    binaries: [
      'electron', 'code', 'code-insiders', 'codium', 'vscodium', 'cursor', 'slack', 'discord', 'discord-ptb', 'discord-canary', 'obsidian', 'signal-desktop',
      'element-desktop', 'teams-for-linux', 'mattermost-desktop', 'bitwarden', 'notion-app', 'joplin', 'logseq', 'github-desktop', 'postman', 'insomnia', 'zettlr', 'whatsapp-for-linux',
    ],
    binaryPatterns: [/^electron\d+$/],
    // an Electron app ships its code as resources/app.asar (or resources/app/) beside the Chromium runtime
    markerFiles: ['resources/app.asar', 'resources/app', '../resources/app.asar', '../resources/app'],
    desktopIds: ['code', 'code-oss', 'codium', 'slack', 'discord', 'obsidian', 'signal', 'element'],
    atspiToolkit: ['Chromium'],
    switches: ['--force-renderer-accessibility'],
    facts: 'Electron apps take the Chromium switch; their wrapper scripts pass it on to the runtime.',
  },
  {
    id: 'qt',
    title: 'Qt 5 and Qt 6 apps (FeatherPad, SpeedCrunch, FocusWriter, KDE apps...)',
    libraries: ['libQt5Core.so', 'libQt6Core.so', 'libQt5Gui.so', 'libQt6Gui.so'],
    atspiToolkit: ['Qt'],
    // Qt starts its AT-SPI bridge only when it sees assistive technology on; these make it unconditional
    env: { QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1', QT_ACCESSIBILITY: '1' },
    // Qt 5.15.8 answers GetExtents(WINDOW) with y equal to x and the height running to the bottom
    // edge (featherpad's toolbar button Save: (70, 70, 32, -15); SCREEN, window-relative on Wayland: (70, 24, 32, 31))
    extentsFix: { fix: 'screen-less-origin', versions: '^5\\.' },
    facts:
      'Without XDG_SESSION_TYPE=wayland Qt 5 picks xcb, finds no X display and aborts within half a second. With it (and qtwayland5 / qt6-wayland installed) it runs on Wayland; QT_QPA_PLATFORM is left unset so an app without the Wayland plugin still falls back to Xwayland.',
  },
  {
    id: 'gtk',
    title: 'GTK 3 and GTK 4 apps (GNOME, Xfce: mousepad, Thunar, gnome-text-editor...)',
    libraries: ['libgtk-3.so', 'libgtk-4.so', 'libadwaita-1.so'],
    atspiToolkit: ['GTK', 'gtk'],
    // GTK 4 reads GTK_A11Y (none switches accessibility off); GTK 3 skips its bridge when NO_AT_BRIDGE=1
    undoHostEnv: { GTK_A11Y: 'atspi', NO_AT_BRIDGE: '0' },
    // GTK 4 names an unlabelled widget by its type name: gnome-text-editor 43 showed "GtkMenuButton", "EditorSourceView", "EditorPage"
    widgetClassNames: ['^(Gtk|Adw|Gdk)[A-Z][A-Za-z0-9]*$', '^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)*(?:View|Page|Widget|Bin|Box|Stack|Grid|Revealer|Overlay)$'],
    facts: 'GTK apps expose their trees whenever the AT-SPI bus is reachable through the session bus.',
  },
  {
    id: 'libreoffice',
    title: 'LibreOffice (Writer, Calc, Impress...)',
    binaries: ['libreoffice', 'soffice', 'soffice.bin', 'lowriter', 'localc', 'loimpress', 'lodraw', 'lomath', 'lobase'],
    desktopIds: ['libreoffice-writer', 'libreoffice-calc', 'libreoffice-startcenter', 'soffice'],
    // with its GTK 3 plugin LibreOffice registers as toolkit "gtk" (7.4: 3.24.38) and application "soffice"
    atspiToolkit: ['VCL'],
    atspiApps: ['soffice'],
    // 7.4 under GTK 3: its root pane lies in a GTK panel under the GTK menu bar (y 26) but reports
    // itself at 0,0 with the panel's size, and every box below it relative to that panel
    extentsFix: { fix: 'embedded-pane' },
    // 7.4 under GTK 3: VCL's menu bar (File...Help, at 0,0 in the pane, its own box 1276x0) beside the GTK one
    shadowMenuBar: true,
    splash: [{ class: '^soffice$', title: '^LibreOffice( [0-9.]+)?$' }],
    // the first-start "Tip of the Day" opens a second or more after the document window
    stayMs: 2500,
    // 7.4 answers nothing over AT-SPI while it lays out a window the compositor just resized (a
    // neighbour closed): a menu read right then went unanswered for 3.8 s on a loaded 2-core machine
    answerMs: 6000,
    // 7.4: "Confirm File Format", buttons "Use Word 2007–365 Format!" (or Excel...) and "Use ODF Format!"
    keepFormat: [{ class: '^(soffice|libreoffice-.*)$', title: '^(Confirm File Format|Keep current format)$', keep: '^Use (?!ODF Format).+ Format!?$' }],
    facts:
      'LibreOffice 7.4 first maps a 648x200 splash window (class soffice) that closes about 1.5 s later; the document window comes next. "Tip of the Day" is a modal dialog on first start.',
  },
  {
    id: 'xfce-single-instance',
    title: 'Xfce apps that run as one instance (mousepad)',
    binaries: ['mousepad'],
    desktopIds: ['org.xfce.mousepad'],
    atspiToolkit: ['GTK', 'gtk'],
    // mousepad 0.5.10 maps "Mousepad" and, in 2 of 3 starts, replaces it with "Untitled 1 - Mousepad" within a second
    stayMs: 1200,
    facts: 'A second mousepad hands its request to the running instance and exits; the instance opens a tab (or a window, by its opening-mode setting).',
  },
  {
    id: 'gecko',
    title: 'Firefox and Gecko apps',
    binaries: ['firefox', 'firefox-esr', 'firefox-bin', 'thunderbird', 'librewolf'],
    desktopIds: ['firefox', 'firefox-esr', 'thunderbird'],
    atspiToolkit: ['Gecko'],
    facts: 'Firefox ESR 153 exposes its tree whenever the AT-SPI bus is present; no switch.',
  },
];

/**
 * The family of an application known by its toolkit (Application.ToolkitName) and the name of its
 * application object: by the application's name first (LibreOffice registers as "gtk" under its GTK 3
 * plugin), else by its toolkit; null when none.
 */
export function familyOfApp(app: { toolkit: string; name: string }, table: readonly AppFamily[] = APP_FAMILIES): AppFamily | null {
  return table.find((f) => f.atspiApps?.includes(app.name)) ?? table.find((f) => f.atspiToolkit?.includes(app.toolkit)) ?? null;
}

/** The family whose apps' windows carry this class (Wayland app id), by AppFamily.desktopIds; null when none. */
export function familyOfWindowClass(cls: string, table: readonly AppFamily[] = APP_FAMILIES): AppFamily | null {
  const c = cls.toLowerCase();
  return c === '' ? null : (table.find((f) => f.desktopIds?.some((id) => id.toLowerCase() === c)) ?? null);
}

/** The extents fix of an application (AppFamily.extentsFix, when its toolkit version is one it applies to), or null. */
export function extentsFixFamily(app: { toolkit: string; version: string; name: string }, table: readonly AppFamily[] = APP_FAMILIES): AppFamily['extentsFix'] | null {
  const x = familyOfApp(app, table)?.extentsFix;
  return x && (x.versions === undefined || new RegExp(x.versions).test(app.version)) ? x : null;
}

const WIDGET_CLASS_NAMES = APP_FAMILIES.flatMap((f) => f.widgetClassNames ?? []).map((re) => new RegExp(re));

/** Whether an accessible name is a widget's type name rather than a name a person would use. */
export function isWidgetClassName(name: string): boolean {
  return name.length > 0 && !/\s/.test(name) && WIDGET_CLASS_NAMES.some((re) => re.test(name));
}

/** Bytes of a program read to find the libraries it links (the dynamic string table sits near the start of an ELF file). */
const ELF_SCAN_BYTES = 2 * 1024 * 1024;

/** A shell word at the start of `s` (plain, or single/double quoted), and what follows it; null when the line is not simple there. */
function firstWord(s: string): { word: string; raw: string; rest: string } | null {
  const m = /^(?:'([^']*)'|"([^"$`\\]*)"|([^\s'"`$;&|<>()\\*?[\]{}]+))(?=\s|$)/.exec(s);
  if (!m) return null;
  return { word: m[1] ?? m[2] ?? m[3] ?? '', raw: m[0], rest: s.slice(m[0].length) };
}

/**
 * Where the program word of a simple command line is: after leading
 * `VAR=value` assignments and an `env` with its options and assignments.
 * Null when the line is not simple enough to say (a pipeline, a subshell,
 * an expansion before the program).
 */
export function programOf(command: string): { program: string; start: number; end: number } | null {
  let pos = command.length - command.trimStart().length;
  let sawEnv = false;
  for (let guard = 0; guard < 64; guard++) {
    const w = firstWord(command.slice(pos));
    if (!w) return null;
    const isAssign = /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.raw) || /^[A-Za-z_][A-Za-z0-9_]*='[^']*'$/.test(w.raw);
    const next = pos + w.raw.length + (w.rest.length - w.rest.trimStart().length);
    if (isAssign || (sawEnv && w.word.startsWith('-'))) {
      pos = next;
      if (sawEnv && (w.word === '-u' || w.word === '-C')) {
        const arg = firstWord(command.slice(pos)); // the option's own argument
        if (!arg) return null;
        pos += arg.raw.length + (arg.rest.length - arg.rest.trimStart().length);
      }
      continue;
    }
    if (!sawEnv && w.word === 'env') {
      sawEnv = true;
      pos = next;
      continue;
    }
    if (w.word === 'exec') {
      pos = next;
      continue;
    }
    return { program: w.word, start: pos, end: pos + w.raw.length };
  }
  return null;
}

/** The file `program` runs: itself when it names a path, else the first executable of that name on PATH; null when none. */
function resolveProgram(program: string, env: NodeJS.ProcessEnv): string | null {
  const candidates = program.includes('/') ? [program] : (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':').filter(Boolean).map((d) => join(d, program));
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) return realpathSync(c);
    } catch {
      /* not there */
    }
  }
  return null;
}

/** The first ELF_SCAN_BYTES of a file as latin1 text ('' when unreadable). */
function head(file: string): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(ELF_SCAN_BYTES);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** The families `program` belongs to, recognised from its name, the file it resolves to, the files beside it and the libraries it links. */
export function recognise(program: string, env: NodeJS.ProcessEnv, table: readonly AppFamily[] = APP_FAMILIES): AppFamily[] {
  const names = new Set([basename(program)]);
  const file = resolveProgram(program, env);
  if (file) names.add(basename(file));
  let text: string | null = null;
  const out: AppFamily[] = [];
  for (const f of table) {
    const byName = [...names].some((n) => f.binaries?.includes(n) || f.binaryPatterns?.some((re) => re.test(n)));
    const byFile = !byName && file !== null && (f.markerFiles ?? []).some((m) => existsSync(join(dirname(file), m)));
    let byLib = false;
    if (!byName && !byFile && file !== null && f.libraries?.length) {
      text ??= head(file);
      byLib = text.startsWith('\x7fELF') && f.libraries.some((l) => text!.includes(l));
    }
    if (byName || byFile || byLib) out.push(f);
  }
  return out;
}

/**
 * How to start `command`: the environment of every family (and the undoing
 * of a host's switch-off), and the switches of the families its program
 * belongs to, inserted after the program word. A command line too complex to
 * find its program in (a pipeline, an expansion) gets the environment only.
 */
export function planLaunch(command: string, env: NodeJS.ProcessEnv, table: readonly AppFamily[] = APP_FAMILIES, opts: { unseen?: boolean; livePages?: boolean } = {}): LaunchPlan {
  const outEnv: Record<string, string> = {};
  for (const f of table) {
    Object.assign(outEnv, f.env ?? {});
    for (const [k, v] of Object.entries(f.undoHostEnv ?? {})) if (env[k] !== undefined) outEnv[k] = v;
  }
  const prog = programOf(command);
  if (!prog) return { command, env: outEnv, families: [], added: [] };
  const families = recognise(prog.program, env, table);
  const switches = [...new Set(families.flatMap((f) => f.switches ?? []))].filter((s) => !command.includes(s));
  const added = switches.map((s) => `${s} (${families.find((f) => f.switches?.includes(s))!.id} accessibility)`);
  // only where the person allowed what they cost (config backgroundLivePages)
  if (opts.unseen && opts.livePages) {
    for (const f of families) {
      for (const s of f.backgroundSwitches?.switches ?? []) {
        const name = s.split('=')[0];
        if (command.includes(name) || switches.some((x) => x.split('=')[0] === name)) continue;
        switches.push(/\s/.test(s) ? `'${s}'` : s);
        added.push(`${s} (${f.id}: ${f.backgroundSwitches!.why})`);
      }
    }
  }
  const cmd = switches.length ? `${command.slice(0, prog.end)} ${switches.join(' ')}${command.slice(prog.end)}` : command;
  const program = resolveProgram(prog.program, env);
  const splash = families.flatMap((f) => f.splash ?? []);
  const stays = families.map((f) => f.stayMs ?? 0).filter((n) => n > 0);
  return {
    command: cmd, env: outEnv, families: families.map((f) => f.id), added,
    ...(program ? { program } : {}), ...(splash.length ? { splash } : {}), ...(stays.length ? { stayMs: Math.max(...stays) } : {}),
  };
}

/** The table behind the AppFamilies contract. */
export class AppFamilyTable implements AppFamilies {
  constructor(private readonly table: readonly AppFamily[] = APP_FAMILIES) {}

  planLaunch(command: string, env: NodeJS.ProcessEnv, opts: { unseen?: boolean; livePages?: boolean } = {}): LaunchPlan {
    return planLaunch(command, env, this.table, opts);
  }

  keepFormatButton(window: { class: string; title: string }, buttons: readonly string[]): string | null {
    for (const f of this.table) {
      for (const q of f.keepFormat ?? []) {
        if (q.class !== undefined && !new RegExp(q.class).test(window.class)) continue;
        if (!new RegExp(q.title).test(window.title)) continue;
        const keep = buttons.find((b) => new RegExp(q.keep).test(b.trim()));
        if (keep) return keep;
      }
    }
    return null;
  }

  /** The family whose apps report this AT-SPI toolkit name, or null. */
  byToolkit(name: string): AppFamily | null {
    return this.table.find((f) => f.atspiToolkit?.includes(name)) ?? null;
  }
}
