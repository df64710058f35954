/**
 * What hypruse knows about the web engines whose windows it reads: how each
 * one is recognised, how its web tree is switched on, what a person does to
 * switch it on for a browser they started, and which of its objects are its
 * own plumbing rather than page content. Data only: the code that uses it
 * names no engine.
 */

export interface WebEngine {
  id: string;
  /** What the person calls it. */
  label: string;
  /** `Application.ToolkitName` its AT-SPI bridge reports. */
  toolkit: RegExp;
  /** Window classes (app ids) of the engine's browsers and apps, for windows not on the accessibility bus. */
  classes: RegExp;
  /**
   * How a running instance is asked to build its web tree. `attributes`: one
   * `Accessible.GetAttributes` call on its window, the call Chromium's ATK
   * layer takes as the sign that a screen reader is reading
   * (ui/accessibility/platform/ax_platform_node_auralinux.cc, AtkGetAttributes
   * -> EnableAXMode); the page's tree follows within about a second.
   */
  wake?: 'attributes';
  /**
   * What a person does so that a browser they started exposes its tree, when
   * its accessibility bridge was off at its start (a running instance cannot
   * load it later): one line each.
   */
  enable: string[];
  /**
   * `even`: its window-relative extents start at the corner of its surface, which reaches past
   * the window on every side by the same (invisible) shadow: Chromium 156 on sway gave its frame
   * 1296x791 for a 1276x771 window and put the toolbar at (10,50), so every pointer click landed
   * 10 px right of and below the control (a link's or a menu item's edge was missed). The frame's
   * surplus over the window, split evenly, is subtracted from every extent.
   */
  surfaceInset?: 'even';
  /**
   * Whether `showing` below its documents means "in the page's view": Chromium clears it on every
   * object scrolled out of the viewport (or clipped away by a scrolling box), so a read that lists
   * only what shows asks its documents for their showing objects in one Collection.GetMatches call
   * and reads nothing else of the page (a page of 500 controls: 129 of 1128 objects read).
   */
  showingMeansInView: boolean;

  /**
   * Whether an object of its windows that is not `showing` is off the screen, whatever box it
   * reports: Firefox ESR 153 keeps the menus of its hidden menu bar (File ... Help) `visible` and
   * `enabled` without `showing`, boxed at the window's top-left corner over the tab strip, where a
   * click hits a tab; listed, they read as disabled controls. Such objects are listed only by a
   * read that asks for scrolled-out ones (marked offscreen).
   */
  unshownIsHidden: boolean;
  /**
   * What its tree does while the compositor draws its window on no output (background mode's agent
   * workspace on sway 1.7, a workspace nobody shows), unless `undrawnFollows` says otherwise. `frozen`:
   * the tree stays as it was when the page loaded: Chromium 156 ran a check box's action (the form
   * posted it checked) and its tree still read it unchecked 30 s later; a new page (a link followed)
   * does arrive. (Its pages stop drawing: requestAnimationFrame ran once in 20 s; the tree is serialized
   * after each document lifecycle. --disable-renderer-backgrounding, --disable-backgrounding-occluded-
   * windows, --disable-background-timer-throttling, --disable-gpu-vsync and --disable-gpu change
   * nothing: the page stays `visible` to its scripts, it is the frames that stop.) `unshowing`:
   * the tree follows the page, but nothing below the window is `showing` (Firefox ESR 153), so
   * `showing` says nothing there.
   */
  undrawn: 'frozen' | 'unshowing';
  /**
   * What in the command line of the window's process (its arguments joined by spaces: Chromium rewrites
   * its /proc/PID/cmdline into one string) says its tree follows the page while the window is not drawn,
   * whatever `undrawn` says: Chromium whose renderers run with --disable-frame-rate-limit (a background
   * launch gives it to them alone, AppFamily.backgroundSwitches in app-families.ts) draws its pages
   * without waiting for the compositor, so their trees follow them. A window whose process lacks it (a
   * browser the person started, and a background launch handed to it) stays `undrawn`.
   */
  undrawnFollows?: RegExp;
  /**
   * How long (ms, before the time policy's scale) an effect may take to show in the tree of an
   * undrawn window that still follows its page: Firefox ESR 153 showed a radio button checked 0.5 s
   * and a check box 3 s after their actions ran, while drawn windows show it within a frame. Firefox
   * updates such a window on its inactive refresh timer (layout/base/nsRefreshDriver.cpp,
   * InactiveRefreshDriverTimer: 1 s after a document joins it, then one document per tick at
   * doubling intervals), so the lag grows the longer a page sits unseen after its load.
   */
  undrawnSettleMs?: number;
  /**
   * Why a text field of its windows takes no text over AT-SPI EditableText, when none does. Such a
   * field is filled through the keyboard (refused in background mode) without the call first.
   */
  ignoresEditableText?: string;
  /** Whether the documents of background tabs stay in the tree (and must be told apart by state). */
  keepsBackgroundDocuments: boolean;
  /** Actions the engine offers on every node, which say nothing about what the node is. */
  noiseActions: string[];
}

export const WEB_ENGINES: WebEngine[] = [
  {
    id: 'chromium',
    label: 'Chromium',
    toolkit: /^chromium$/i,
    classes: /^(chromium(-browser)?|google-chrome.*|brave-browser.*|microsoft-edge.*|vivaldi.*|opera|code(-oss)?|codium|vscodium|electron\d*|slack|discord|obsidian|signal|element|teams.*|1password|bitwarden|spotify)$/i,
    wake: 'attributes',
    surfaceInset: 'even',
    enable: [
      'restart it so that it starts while accessibility is on (hypruse turns it on for the session: org.a11y.Status IsEnabled)',
      'or start it with --force-renderer-accessibility: on Debian in $CHROMIUM_FLAGS or a file in /etc/chromium.d/ (export CHROMIUM_FLAGS="$CHROMIUM_FLAGS --force-renderer-accessibility"), on Arch-style systems a line in ~/.config/chromium-flags.conf (Chrome: ~/.config/chrome-flags.conf)',
      'Electron apps: a line --force-renderer-accessibility in ~/.config/electron-flags.conf or ~/.config/<app>-flags.conf, or ACCESSIBILITY_ENABLED=1 in their environment',
    ],
    showingMeansInView: true,
    unshownIsHidden: false,
    undrawn: 'frozen',
    undrawnFollows: /(?:^|\s)--disable-frame-rate-limit(?:\s|$)/,
    ignoresEditableText: 'Chromium offers no AT-SPI EditableText on its fields (Chromium 156: Text and Action only)',
    keepsBackgroundDocuments: false,
    noiseActions: ['showContextMenu', 'clickAncestor', 'scrollIntoView', 'scrollToMakeVisible', 'scrollToPoint', 'setSequentialFocusNavigationStartingPoint'],
  },
  {
    id: 'gecko',
    label: 'Firefox',
    toolkit: /^gecko$/i,
    classes: /^(firefox.*|firefox-esr|librewolf|waterfox|thunderbird.*|zen|zen-(?:browser|alpha|beta|twilight))$/i,
    enable: ['restart it while the accessibility bus is running (Firefox exposes its tree with no switch)'],
    showingMeansInView: false,
    unshownIsHidden: true,
    undrawn: 'unshowing',
    undrawnSettleMs: 15000,
    // accessible/atk/nsMaiInterfaceEditableText.cpp: every EditableText callback returns before acting when
    // the object IsTextRole(), which every hypertext object (each text field) is
    ignoresEditableText: "Firefox's AT-SPI bridge answers every EditableText call on its text fields and does nothing with it (Firefox ESR 153)",
    keepsBackgroundDocuments: true,
    noiseActions: ['showContextMenu', 'clickAncestor', 'customAction'],
  },
];

/**
 * What an engine's tree does while its window is not drawn, for a window of the process whose
 * command line is `argv` (null when unknown): undefined when the tree follows the page as in a drawn
 * window (WebEngine.undrawnFollows).
 */
export function undrawnOf(engine: WebEngine, argv: readonly string[] | null): WebEngine['undrawn'] | undefined {
  if (engine.undrawnFollows && argv && engine.undrawnFollows.test(argv.join(' '))) return undefined;
  return engine.undrawn;
}

/** The engine an application's toolkit name belongs to. */
export function engineOfToolkit(toolkit: string): WebEngine | undefined {
  return WEB_ENGINES.find((e) => e.toolkit.test(toolkit.trim()));
}

/** The engine a window class belongs to. */
export function engineOfClass(windowClass: string | undefined): WebEngine | undefined {
  if (!windowClass) return undefined;
  return WEB_ENGINES.find((e) => e.classes.test(windowClass.trim()));
}

/** Every engine's noise actions (lower case). */
export const NOISE_ACTIONS: ReadonlySet<string> = new Set(WEB_ENGINES.flatMap((e) => e.noiseActions.map((a) => a.toLowerCase())));

/** What a browser appends to a tab's name that is not its title (Chromium's memory use). */
export const TAB_NAME_NOISE = /\s+-\s+Memory usage\s+-\s+[\d.,]+\s*[KMGT]?B\b.*$/;

/**
 * The windows of web engines whose process publishes no accessibility tree: started before the
 * session's accessibility was on (or with it switched off), they expose nothing until restarted.
 */
export function needsRestart(
  windows: ReadonlyArray<{ class: string; title: string; pid: number | null }>,
  published: ReadonlyArray<{ pid: number | null }>,
): Array<{ class: string; title: string; pid: number; engine: WebEngine }> {
  const pids = new Set(published.map((a) => a.pid).filter((p): p is number => p !== null));
  const out: Array<{ class: string; title: string; pid: number; engine: WebEngine }> = [];
  const seen = new Set<number>();
  for (const w of windows) {
    const engine = engineOfClass(w.class);
    if (!engine || w.pid === null || pids.has(w.pid) || seen.has(w.pid)) continue;
    seen.add(w.pid);
    out.push({ class: w.class, title: w.title, pid: w.pid, engine });
  }
  return out;
}

/** The largest shadow taken for a surface inset (px per side): a bigger surplus is not a shadow. */
const MAX_INSET = 64;

/**
 * The inset of a surface whose frame reaches past its window evenly on every side: half the
 * frame's surplus in each direction; null when the frame is not larger (a maximized window has no
 * shadow) or larger by more than a shadow.
 */
export function evenInset(frame: { width: number; height: number }, window: { width: number; height: number }): { x: number; y: number } | null {
  const dw = frame.width - window.width;
  const dh = frame.height - window.height;
  if (dw <= 0 || dh <= 0 || dw > 2 * MAX_INSET || dh > 2 * MAX_INSET) return null;
  return { x: Math.round(dw / 2), y: Math.round(dh / 2) };
}
