import type { LaunchExit, LaunchWait, SplashSpec } from '../process/await-launch.js';
import type { Desktop, DesktopEvent, Window } from './desktop.js';
import type { Point } from './geometry.js';
import type { KeyCombo } from './input.js';

/**
 * What a compositor plugin can do. A tool checks the capability and, when it
 * is absent, answers with a typed UnsupportedError naming the compositor and
 * the reason (see `unsupportedReason`).
 */
export type CompositorCapability =
  | 'layers'
  | 'cursor.read'
  | 'cursor.set'
  | 'lock.read'
  | 'tag'
  | 'notify'
  | 'binds'
  | 'bind.run'
  | 'launch'
  /** Background mode's launch: a new window opens where the person does not see it, without taking the focus. */
  | 'launch.unseen'
  /**
   * With `launch.unseen`: a window the launched app opens later (a dialog, a second window) opens
   * out of the person's sight too, without the focus (the rule that placed the first window places
   * every window of the app).
   */
  | 'launch.unseen.later'
  | 'fullscreen'
  | 'floating'
  | 'close'
  | 'move'
  | 'focus'
  | 'workspace'
  | 'events'
  | 'capture.toplevel';

export interface CompositorEnv {
  env: NodeJS.ProcessEnv;
  /** XDG_RUNTIME_DIR, resolved (may come from /run/user/<uid>). */
  runtimeDir: string | null;
}

/**
 * The result of asking a plugin whether it can run here. `explicit`: found
 * through the compositor's own socket variable (its manifest's `envVars`),
 * not by discovery on disk; an explicit match beats a
 * discovered one whatever the plugin order.
 */
export type DetectResult = { ok: true; detail: string; env?: Record<string, string>; explicit?: boolean } | { ok: false; reason: string };

export interface EventSubscription extends AsyncIterable<DesktopEvent> {
  /** Next event, or null when `timeoutMs` elapsed or the signal aborted. Throws if the stream died. */
  next(timeoutMs: number, signal?: AbortSignal): Promise<DesktopEvent | null>;
  close(): void;
}

export interface CloseOutcome {
  /** closed: the close event arrived; still_open: the window is still there after the wait (it may be prompting); unconfirmed: no event stream to confirm. */
  status: 'closed' | 'still_open' | 'unconfirmed';
}

export interface LaunchOptions {
  workspace?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** extra environment for the child */
  env?: Record<string, string>;
  /** How long the launch's windows must stay unchanged before one is the answer (a replaced first window, a closing splash); 0: the first. */
  stayMs?: number;
  /** Splash windows of the app (never the answer while another window of it is open or coming). */
  splash?: SplashSpec[];
  /** The file the command runs (absolute), when known: windows an already running instance of it opens meanwhile are a hand-off. */
  program?: string;
  /**
   * Background mode (capability `launch.unseen`): open the window where the person does not see it
   * (an agent workspace on an output of its own, a special workspace) and without taking the focus.
   */
  unseen?: boolean;
}

/** Where an unseen launch put its window, and how the person brings it into view. */
export interface UnseenPlace {
  workspace: string;
  /** The output made for the agent, when there is one. */
  output: string | null;
  /** One line: how the person brings the window into view. */
  reveal: string;
}

export interface LaunchResult {
  pid: number | null;
  window: Window | null;
  /** The app ignored the workspace request and was moved there afterwards. */
  relocated?: boolean;
  note?: string;
  /** The command ended with a failure before any window of it appeared: how, and its last error output. */
  exited?: LaunchExit;
  /** Other windows of the launch open over the answer (first-start dialogs, tips), in the order they opened. */
  dialogs?: Window[];
  /** Windows of the launch that closed before the answer (a splash, a replaced first window): address, class, title as last seen. */
  replaced?: Array<{ address: string; class?: string; title?: string }>;
  /** The launch was handed to an instance running before it: its pid, and a new window or one it already had. */
  handoff?: { pid: number; to: 'window' | 'existing' };
  /** Two windows that could each be the answer (then `window` is null). */
  candidates?: Window[];
  /** An unseen launch: where the window is. */
  unseen?: UnseenPlace;
}

/**
 * A binding's keys in the one normalized form every compositor plugin produces
 * from its own syntax (see `bind-keys.ts` in core): modifiers as hypruse names
 * them (ctrl, shift, alt, logo, altgr; caps, mod2, mod3 for the rest) and the key
 * as `canonicalKey` gives it.
 */
export type BindKeys =
  | { kind: 'key'; modifiers: string[]; key: string }
  /** A raw XKB keycode (evdev + 8): sway bindcode, Hyprland code:N. */
  | { kind: 'code'; modifiers: string[]; code: number }
  /** A mouse button, wheel, touchpad or switch: no key press reaches it. */
  | { kind: 'pointer' }
  /** Parts the plugin did not understand: matched as widely as what it did understand allows (fail closed). */
  | { kind: 'unknown'; modifiers: string[]; key: string | null; unknownModifiers: boolean; unknown: string };

export interface Bind {
  combo: string;
  /** The combo normalized by the plugin; a bind without it is matched as `unknown` (fail closed). */
  keys?: BindKeys;
  /** dispatcher or command to run */
  action: string;
  arg: string;
  description?: string;
  /** submap (Hyprland) / mode (sway) */
  mode?: string;
  /** Set when the bind is defined in Lua and cannot be run by its dispatcher string. */
  lua?: boolean;
  /**
   * A combination (parseCombo syntax) that runs the bind when pressed on the
   * virtual keyboard: set by a compositor plugin whose compositor honours its
   * binds from virtual keyboards, for a bind that has no other route.
   */
  chord?: string;
}

export interface Compositor {
  readonly id: string;
  readonly displayName: string;
  /**
   * Which running instance this is (its socket, its instance signature): files
   * kept per instance (CLI state, marks) are keyed by it. Absent: the Wayland
   * display is the key.
   */
  readonly instanceId?: string;
  readonly capabilities: ReadonlySet<CompositorCapability>;
  /** More about the running compositor for `hypruse doctor` (a config dialect...), or null. */
  doctorDetail?(): Promise<string | null>;
  /** Why a capability is missing, in one line (for the typed unsupported error). */
  unsupportedReason(cap: CompositorCapability): string;

  version(): Promise<string>;
  snapshot(signal?: AbortSignal): Promise<Desktop>;
  /** Subscribed on the wire when the promise resolves: trigger actions after. */
  subscribe(): Promise<EventSubscription>;

  focusWindow(address: string): Promise<void>;
  switchWorkspace(workspace: string): Promise<void>;
  moveToWorkspace(address: string, workspace: string, silent: boolean): Promise<void>;
  closeWindow(address: string, timeoutMs: number): Promise<CloseOutcome>;
  toggleFullscreen(address: string | null): Promise<void>;
  toggleFloating(address: string | null): Promise<void>;
  /** Position the pointer at a global logical point. */
  moveCursor(point: Point): Promise<void>;
  launch(command: string, opts: LaunchOptions): Promise<LaunchResult>;
  binds(): Promise<Bind[]>;
  /**
   * The bindings as the compositor's own configuration file gives them, for a
   * compositor whose IPC cannot list them (no `binds` capability): read only to
   * keep the keyboard tool from pressing them.
   */
  configuredBinds?(): Promise<Bind[] | null>;
  runBind(bind: Bind): Promise<string>;
  /** true/false, or null when the compositor cannot tell. */
  locked(): Promise<boolean | null>;
  tagWindow(address: string, tag: string): Promise<void>;
  /** Show a short on-screen notice, if supported. */
  notify(message: string, ms: number): Promise<void>;
  /** Install a compositor rule marking windows tagged `tag` (border colour); false if unsupported. */
  installMarkRule(tag: string): Promise<boolean>;
  /**
   * Bind `combo` (hypruse syntax, `super+alt+Escape`) in the compositor so that
   * pressing it calls `onPress` in this process; removed by `remove()` (and on
   * dispose). Absent, or throwing UnsupportedError, where the compositor has
   * no bindings over IPC.
   */
  registerChord?(combo: KeyCombo, onPress: () => void): Promise<ChordRegistration>;
  /** Set when this compositor can never register a chord: why, in one line (doctor). */
  readonly chordUnsupported?: string;
  dispose(): Promise<void>;
}

/** A compositor plugin's factory: detection is cheap and never throws. */
/**
 * What a compositor plugin declares about itself, read by the distribution,
 * doctor, the CLI and the tools instead of knowing any compositor by name.
 */
export interface CompositorManifest {
  /** The factory's id (what HYPRUSE_COMPOSITOR and `compositor` in the config name). */
  readonly id: string;
  /** As shown to the person. */
  readonly displayName: string;
  /** The environment variables that point at a running instance, in the order detection reads them. */
  readonly envVars: readonly string[];
  /** The sockets found by discovery when no variable is set, in one line (e.g. `$XDG_RUNTIME_DIR/examplewm.sock`). */
  readonly sockets: string;
  /** Every capability the plugin may have (an older version may lack some; the compositor's own `capabilities` says what this instance has). */
  readonly capabilities: readonly CompositorCapability[];
  /** How a key binding is written in its configuration, with one example. */
  readonly bindingSyntax: string;
  /** The name the window-manager tool is listed under on it (default `wm`). */
  readonly wmToolName?: string;
  /** One example of a window `address` as it reports them (for messages). */
  readonly addressExample?: string;
  /** Window classes (lowercased) of its own dialogs that ask the person to decide (guarded like authentication prompts). */
  readonly promptClasses?: readonly string[];
}

export interface CompositorFactory {
  readonly id: string;
  /** What the plugin declares about its compositor (detection variables, capabilities, binding syntax...). */
  readonly manifest?: CompositorManifest;
  /** The environment variables that point hypruse at a running instance (for doctor's advice; `manifest.envVars` when absent). */
  readonly instanceVars?: readonly string[];
  detect(env: CompositorEnv): DetectResult | Promise<DetectResult>;
  create(env: CompositorEnv): Compositor | Promise<Compositor>;
  /** How to run this compositor headless as a private desk (`hypruse desk`); absent when it cannot. */
  readonly headless?: HeadlessSpec;
}

/**
 * What a private desk needs to know to start a compositor headless: the
 * program and the package that installs it, the files and variables it
 * wants, and how to tell it is up. The desk machinery (runtime dir, buses,
 * pids) knows nothing else of the compositor.
 */
export interface HeadlessSpec {
  /** The program, looked up on PATH. */
  program: string;
  /** The Debian package that installs it (named when it is missing). */
  debianPackage: string;
  /** Set when it refuses to run as root: why, in one line. */
  refusesRoot?: string;
  /** Its arguments, the files to write in the desk's folder first, and its own variables. */
  prepare(o: { dir: string; width: number; height: number }): { args: string[]; files: Record<string, string>; env: Record<string, string> };
  /** The session variables (sockets) once it is up in `runtimeDir`, or null while not yet. */
  ready(o: { runtimeDir: string; pid: number; uid: number }): Record<string, string> | null;
}

/** A key binding hypruse added to the compositor. */
export interface ChordRegistration {
  /** How it was bound, in one line (`bindsym Mod4+Mod1+Escape nop hypruse-stop`). */
  detail: string;
  remove(): Promise<void>;
}

/** The fields of a launch wait a compositor's result carries over, with window refs resolved through `resolve`. */
export async function launchWaitExtras(wait: LaunchWait, resolve: (address: string) => Promise<Window | null>): Promise<Partial<LaunchResult>> {
  const out: Partial<LaunchResult> = {};
  if (wait.exited) out.exited = wait.exited;
  if (wait.handoff) out.handoff = wait.handoff;
  if (wait.replaced?.length) out.replaced = wait.replaced.map((r) => ({ address: r.address, ...(r.class ? { class: r.class } : {}), ...(r.title ? { title: r.title } : {}) }));
  if (wait.dialogs?.length) out.dialogs = (await Promise.all(wait.dialogs.map((d) => resolve(d.address)))).filter((w): w is Window => w !== null);
  if (wait.candidates?.length) out.candidates = (await Promise.all(wait.candidates.map((d) => resolve(d.address)))).filter((w): w is Window => w !== null);
  return out;
}
