import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  HypruseError, TIME_SCALE_VAR, Tokens, UsageError, parseCombo, runtimeDir, scaledMs, timeScale, toHypruseError,
  type Accessibility, type Capture, type CaptureTarget, type Clipboard, type CompositorFactory, type Desktop, type HypruseConfig, type Indicator, type Input,
} from '@hypruse/core';
import { needsRestart } from '@hypruse/a11y';
import { IdleNotify, POINTER_MANAGER, WaylandConnection, WirePointer, koffiVersion, waylandSocketPath } from '@hypruse/wayland';
import { IDLE_GRANULARITY_MS, controlPath, readBeacons, readControl } from '@hypruse/trust';
import { createSession, type Session } from '../session.js';
import { VERSION } from '../version.js';
import type { Command } from './types.js';

const USAGE = 'hypruse doctor [--json]';
/** Base budget of session creation (config, plugins, compositor detection), scaled by the time policy. */
const SESSION_TIMEOUT_MS = 1500;
/** Base budget of one check, scaled by the time policy; checks run concurrently once the session is up, so the whole run stays under 5 s at scale 1. */
const CHECK_TIMEOUT_MS = 2000;
const checkMs = (less = 0) => scaledMs(CHECK_TIMEOUT_MS - less);

/** One line of the report. */
export interface CheckResult {
  name: string;
  ok: boolean;
  /** What was found (ok) or what is wrong (failure). */
  detail: string;
  /** One-line fix, on failures. */
  fix?: string;
  /** The failure was a timeout (no answer in time), not a missing or broken component. */
  timedOut?: boolean;
  ms: number;
}

/** A check resolves with its detail line when it passes and throws (a HypruseError with a hint, ideally) when it fails. */
export interface DoctorCheck {
  name: string;
  run(signal: AbortSignal): Promise<string>;
  /** Shown when the check fails and the error carries no hint. */
  fix: string;
  timeoutMs?: number;
}

class CheckTimeout extends Error {
  constructor(message: string, readonly ms: number) {
    super(message);
  }
}

/** A failure that is a ceiling running out rather than a missing component: a timeout of ours, or a backend's "no answer within N ms". */
export function timeoutOf(err: unknown): number | null {
  if (err instanceof CheckTimeout) return err.ms;
  const e = toHypruseError(err);
  // "fix the X check above first": the cause is another check, reported there
  if (e.hint?.startsWith('fix the ')) return null;
  const data = e.data as { timeoutMs?: unknown } | undefined;
  if (typeof data?.timeoutMs === 'number') return data.timeoutMs;
  const m = /\bwithin (\d+(?:\.\d+)?) ?(ms|s)\b/.exec(e.message);
  return m ? Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1)) : null;
}

/** The advice for a timeout: the machine may be slow, and how to give it more time. */
export function timeoutFix(ms: number): string {
  const s = timeScale();
  const next = Math.min(100, Math.max(5, Math.ceil(s * 4)));
  return `no answer within ${ms} ms; the machine may be slow: set ${TIME_SCALE_VAR}=${next} (now ${s}) to give every timeout ${next / s}x longer, and check the component is responsive`;
}

/** Reject after `ms`, aborting `controller`; `late` receives a value that arrives after the deadline (to close it). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string, controller?: AbortController, late?: (v: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const t = setTimeout(() => {
      done = true;
      controller?.abort();
      reject(new CheckTimeout(`${what} did not answer within ${ms} ms`, ms));
    }, ms);
    p.then(
      (v) => {
        if (done) return late?.(v);
        done = true;
        clearTimeout(t);
        resolve(v);
      },
      (err) => {
        if (done) return;
        done = true;
        clearTimeout(t);
        reject(err);
      },
    );
  });
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Run every check concurrently, each under its own timeout, and hand the
 * results to `onResult` in list order as soon as a check and all before it
 * have finished (so progress shows as it goes, in a stable order).
 */
export async function runChecks(checks: DoctorCheck[], onResult: (r: CheckResult) => void = () => undefined): Promise<CheckResult[]> {
  const results: Array<CheckResult | undefined> = new Array(checks.length);
  let printed = 0;
  const flush = () => {
    while (printed < checks.length && results[printed]) onResult(results[printed++]!);
  };
  await Promise.all(
    checks.map(async (c, i) => {
      const t0 = Date.now();
      const controller = new AbortController();
      const ms = c.timeoutMs ?? checkMs();
      try {
        const detail = await withTimeout(Promise.resolve().then(() => c.run(controller.signal)), ms, c.name, controller);
        results[i] = { name: c.name, ok: true, detail: oneLine(detail), ms: Date.now() - t0 };
      } catch (err) {
        const late = timeoutOf(err);
        const e = toHypruseError(err);
        results[i] = {
          name: c.name,
          ok: false,
          detail: oneLine(e.message),
          fix: oneLine(late !== null ? timeoutFix(late) : (e.hint ?? c.fix)),
          ...(late !== null ? { timedOut: true } : {}),
          ms: Date.now() - t0,
        };
      }
      flush();
    }),
  );
  return results as CheckResult[];
}

/** `[ok]   name         detail` / `[FAIL] name         detail` + `       fix: ...`. */
export function formatResult(r: CheckResult): string {
  const head = `${r.ok ? '[ok]  ' : '[FAIL]'} ${r.name.padEnd(12)} ${r.detail}`;
  return r.ok || !r.fix ? head : `${head}\n       fix: ${r.fix}`;
}

/** Absolute path of an executable on PATH, or null. */
export function which(cmd: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, cmd);
    try {
      if (statSync(p).isFile()) {
        accessSync(p, constants.X_OK);
        return p;
      }
    } catch {
      /* not here */
    }
  }
  return null;
}

const on = (b: boolean) => (b ? 'on' : 'off');

/** The effective trust settings in one line. */
export function trustSummary(c: HypruseConfig): string {
  return [
    `read-only ${on(c.readonly)}`,
    `confine ${c.confine.length ? c.confine.join(',') : 'off'}`,
    `auth guard ${c.authGuard}`,
    `strict ${on(c.strict)}`,
    `mark ${on(c.mark)}`,
    `journal ${c.journal.path === null ? 'off' : c.journal.path}${c.journal.path !== null && c.journal.text ? ' (text verbatim)' : ''}`,
    `dry run ${on(c.dryRun)}`,
    `clipboard ${on(c.clipboard)}`,
    `screenshots ${c.screenshot.mode}`,
  ].join(', ');
}

interface DoctorContext {
  env: NodeJS.ProcessEnv;
  session: Session | null;
  sessionError: HypruseError | null;
}

function memo<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

function needSession(ctx: DoctorContext): Session {
  if (ctx.session) return ctx.session;
  throw new HypruseError('error.internal', `no session: ${ctx.sessionError?.message ?? 'not created'}`, { hint: 'fix the config check above first' });
}

function needCompositor(ctx: DoctorContext) {
  const s = needSession(ctx);
  if (s.compositor.id === 'none') {
    throw new HypruseError('unsupported.compositor', 'needs a compositor (none found, see the compositor check)', { hint: 'fix the compositor check above first' });
  }
  return s.compositor;
}

function waylandSockets(dir: string | null): string[] {
  if (!dir) return [];
  try {
    return readdirSync(dir).filter((n) => /^wayland-\d+$/.test(n)).sort();
  } catch {
    return [];
  }
}

/** How to reach a compositor, from what the installed plugins declare (their names and socket variables). */
function compositorFix(ctx: DoctorContext): string {
  const c = ctx.session?.container;
  const factories = c && c.isRegistered(Tokens.CompositorFactory, true) ? c.resolveAll<CompositorFactory>(Tokens.CompositorFactory) : [];
  const names = factories.map((f) => f.manifest?.displayName ?? f.id);
  const vars = [...new Set(factories.flatMap((f) => f.manifest?.envVars ?? f.instanceVars ?? []))];
  const inside = names.length ? `a ${names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names[0]} session` : 'a session of a compositor hypruse has a plugin for';
  return `run hypruse inside ${inside}, or pass its socket variables${vars.length ? ` (${vars.join(', ')})` : ''} and XDG_RUNTIME_DIR`;
}

/** The checks, in report order. */
export function doctorChecks(ctx: DoctorContext): DoctorCheck[] {
  const env = ctx.env;
  const rtDir = runtimeDir(env);
  const input = memo(() => needSession(ctx).services.get<Input>(Tokens.Input).describe());
  const snapshot = memo((): Promise<Desktop> => needCompositor(ctx).snapshot());

  return [
    {
      name: 'config',
      fix: 'fix the file or variable named above (`hypruse config --schema` shows every accepted key)',
      async run() {
        if (ctx.sessionError) throw ctx.sessionError;
        const s = needSession(ctx);
        const plugins = s.config.plugins.length ? `; plugins: ${s.config.plugins.join(', ')}` : '';
        const project = s.loaded.project ? `; project config ${s.loaded.project} (tighten-only)` : '';
        const ignored = s.loaded.ignored.length ? `; ignored: ${s.loaded.ignored.map((i) => `${i.path}: ${i.reason}`).join('; ')}` : '';
        return `${s.loaded.file ?? 'no file (defaults and HYPRUSE_* variables)'}${project}${plugins}${ignored}`;
      },
    },
    {
      name: 'compositor',
      fix: compositorFix(ctx),
      async run(signal) {
        const s = needSession(ctx);
        if (!s.selection?.factory) {
          const why = s.selection?.reasons.map((r) => `${r.id}: ${r.reason}`).join('; ') || 'no compositor plugin installed';
          throw new HypruseError('unsupported.compositor', `none found (${why})`);
        }
        const c = s.compositor;
        const version = await withTimeout(c.version(), checkMs(200), `${c.displayName} IPC`);
        const detail = (await c.doctorDetail?.()) ?? null;
        if (signal.aborted) throw new CheckTimeout('cancelled', checkMs());
        return `${version} via plugin "${s.selection.factory.id}"${detail ? `, ${detail}` : ''} (${s.selection.detail})`;
      },
    },
    {
      name: 'wayland',
      fix: 'start the compositor, or set WAYLAND_DISPLAY (and XDG_RUNTIME_DIR) to its socket',
      async run(signal) {
        const path = waylandSocketPath(env, rtDir);
        if (!existsSync(path)) {
          const found = waylandSockets(rtDir);
          throw new HypruseError('error.wayland', `no Wayland socket at ${path}`, {
            hint: found.length ? `set WAYLAND_DISPLAY=${found[0]} (found ${found.join(', ')} in ${rtDir})` : `no wayland-N socket in ${rtDir ?? '(no runtime dir)'}: start a Wayland session, or pass WAYLAND_DISPLAY and XDG_RUNTIME_DIR`,
          });
        }
        const t0 = Date.now();
        const conn = await WaylandConnection.connect({ path, wantFds: false, timeoutMs: checkMs(300), signal });
        const n = conn.globals.size;
        conn.close();
        return `${path}: ${n} globals in ${Date.now() - t0} ms`;
      },
    },
    {
      name: 'events',
      fix: 'the compositor event socket did not accept a subscription; check the compositor is healthy (hypruse desktop) and its socket variables',
      async run() {
        const c = needCompositor(ctx);
        const t0 = Date.now();
        const sub = await withTimeout(c.subscribe(), checkMs(200), 'the event stream', undefined, (late) => late.close());
        sub.close();
        return `subscribed and closed in ${Date.now() - t0} ms`;
      },
    },
    {
      name: 'pointer',
      fix: 'the compositor must offer zwlr_virtual_pointer_manager_v1 to an unsandboxed client',
      async run(signal) {
        const path = waylandSocketPath(env, rtDir);
        const conn = await WaylandConnection.connect({ path, wantFds: false, timeoutMs: checkMs(300), signal });
        try {
          if (!conn.globals.has(POINTER_MANAGER)) throw new HypruseError('error.input', `the compositor does not advertise ${POINTER_MANAGER}`);
          const t0 = Date.now();
          const p = await WirePointer.create(conn, signal, 0);
          await p.destroy();
          const paths = await input();
          return `virtual pointer created and destroyed in ${Date.now() - t0} ms; pointer path: ${paths.pointer}`;
        } finally {
          conn.close();
        }
      },
    },
    {
      name: 'keyboard',
      fix: 'reinstall hypruse with its optional dependency koffi (fd passing for the in-process keyboard; no compiler needed) or install wtype',
      async run() {
        const { pointer, keyboard: k } = await input();
        if (k.startsWith('unavailable')) throw new HypruseError('error.input', k);
        if (pointer.startsWith('unavailable') && !k.startsWith('wtype')) {
          throw new HypruseError('error.input', `${k.replace(/; not connected\)$/, ')')} cannot be used: no Wayland connection (see the wayland check)`, { hint: 'fix the wayland check above first' });
        }
        if (k.startsWith('wtype') && !which('wtype', env)) throw new HypruseError('error.input', `${k}, but wtype is not on PATH`, { hint: 'install wtype (e.g. apt install wtype, pacman -S wtype)' });
        return k.startsWith('zwp_virtual_keyboard_v1') ? `${k}; keymap fd passed with sendmsg (koffi ${koffiVersion() ?? '?'})` : k;
      },
    },
    {
      name: 'capture',
      fix: 'install grim (e.g. apt install grim, pacman -S grim) and run inside the Wayland session',
      async run(signal) {
        const cap = needSession(ctx).services.get<Capture>(Tokens.Capture);
        if (!existsSync(waylandSocketPath(env, rtDir))) {
          throw new HypruseError('error.capture', 'no Wayland socket to capture from (see the wayland check)', { hint: 'fix the wayland check above first' });
        }
        const how = await cap.describe();
        let target: CaptureTarget = { kind: 'region', rect: { x: 0, y: 0, width: 8, height: 8 }, scale: 1 };
        try {
          const m = (await snapshot()).monitors[0];
          if (m) target = { kind: 'region', rect: { x: m.geometry.x, y: m.geometry.y, width: 8, height: 8 }, scale: m.scale };
        } catch {
          /* no compositor: grim captures the layout origin all the same */
        }
        const t0 = Date.now();
        const f = await cap.capture(target, signal);
        if (!(f.width > 0 && f.height > 0)) throw new HypruseError('error.capture', `the capture came back empty (${f.width}x${f.height})`);
        return `${how}; test capture ${f.width}x${f.height} px in ${Date.now() - t0} ms`;
      },
    },
    {
      name: 'wtype',
      fix: 'install wtype (e.g. apt install wtype, pacman -S wtype)',
      async run() {
        const p = which('wtype', env);
        if (p) return p;
        let keyboard = '';
        try {
          keyboard = (await input()).keyboard;
        } catch {
          /* reported by the keyboard check */
        }
        if (keyboard.startsWith('zwp_virtual_keyboard_v1')) return 'not on PATH; not needed (the in-process virtual keyboard is in use)';
        throw new HypruseError('error.input', 'wtype is not on PATH and the keyboard falls back to it');
      },
    },
    {
      name: 'a11y',
      fix: 'run hypruse inside the desktop session (DBUS_SESSION_BUS_ADDRESS set) with the AT-SPI bus running (at-spi2-core; apps start it on demand, or /usr/libexec/at-spi-bus-launcher --launch-immediately)',
      async run(signal) {
        const a = needSession(ctx).services.get<Accessibility>(Tokens.Accessibility);
        let apps: Awaited<ReturnType<Accessibility['apps']>>;
        try {
          apps = await a.apps(signal);
        } catch (err) {
          // "no such socket" is a missing session, whatever hint the backend gives for other connect failures
          const e = toHypruseError(err);
          if (/ENOENT|not set/.test(e.message)) throw new HypruseError(e.code, e.message);
          throw e;
        }
        if (apps.length === 0) return 'AT-SPI bus up; no application publishes a tree yet (apps register when they start)';
        const names = apps.map((x) => (x.pid !== null ? `${x.name} (pid ${x.pid})` : x.name));
        return `AT-SPI bus up; ${apps.length} ${apps.length === 1 ? 'app publishes' : 'apps publish'} a tree: ${names.join(', ')}`;
      },
    },
    {
      name: 'a11y-switches',
      fix: 'restart the apps named above (or set a11y.switches: true, the default, so hypruse turns the session\'s accessibility on)',
      async run(signal) {
        const s = needSession(ctx);
        const a = s.services.get<Accessibility>(Tokens.Accessibility);
        if (!a.sessionStatus) return 'this accessibility backend reports no switches';
        const st = await a.sessionStatus(signal);
        const on = st.isEnabled
          ? `accessibility on (org.a11y.Status IsEnabled${st.switchedOn ? ', turned on by hypruse now' : ''}${st.screenReaderEnabled ? '; a screen reader runs' : ''})`
          : `accessibility off (org.a11y.Status IsEnabled false${s.config.a11y.switches ? '' : '; a11y.switches is false, so hypruse leaves it off'})`;
        const [apps, desktop] = await Promise.all([a.apps(signal), snapshot().catch(() => null)]);
        const stale = desktop ? needsRestart(desktop.windows, apps) : [];
        if (stale.length === 0) return `${on}; no running browser needs a restart to expose its tree`;
        const list = stale.map((w) => `${w.class} (pid ${w.pid}, "${w.title}"): ${w.engine.enable[0]}`).join('; ');
        throw new HypruseError('error.a11y', `${on}; ${stale.length} running app(s) expose no tree until restarted: ${list}`);
      },
    },
    {
      name: 'clipboard',
      fix: 'install wl-clipboard (wl-copy, wl-paste), e.g. apt install wl-clipboard, pacman -S wl-clipboard',
      async run() {
        const missing = ['wl-copy', 'wl-paste'].filter((t) => !which(t, env));
        if (missing.length) throw new HypruseError('error.clipboard', `${missing.join(' and ')} not on PATH`);
        const desc = await needSession(ctx).services.get<Clipboard>(Tokens.Clipboard).describe();
        const s = needSession(ctx);
        return `${desc}; clipboard tool ${s.config.clipboard && !s.config.readonly ? 'enabled' : 'off (opt-in: HYPRUSE_CLIPBOARD=1)'}`;
      },
    },
    {
      name: 'takeover',
      fix: 'the takeover pause needs ext-idle-notify-v1 or org_kde_kwin_idle from the compositor; set takeover_ms: 0 (HYPRUSE_TAKEOVER_MS=0) to turn it off',
      async run() {
        const cfg = needSession(ctx).config;
        if (cfg.takeoverMs <= 0) return 'off (takeover_ms 0): acting tools never pause for the person\'s input';
        const w = await IdleNotify.open({ env, timeoutMs: IDLE_GRANULARITY_MS, handlers: { idle() {}, resumed() {}, lost() {} }, requestTimeoutMs: checkMs(300) });
        if ('unavailable' in w) throw new HypruseError('unsupported.capability', `takeover pause unavailable: ${w.unavailable}`);
        w.close();
        return `${w.method}, pauses ${cfg.takeoverMs} ms after the person's input; sees ${w.sees}; cannot see ${w.blind}`;
      },
    },
    {
      name: 'chord',
      fix: 'the person stopped hypruse: when they agree, call resume (hypruse resume)',
      async run() {
        const s = needSession(ctx);
        const control = readControl(controlPath(env));
        const state = control.state === 'running' ? 'state running' : `state ${control.state} by ${control.by}`;
        if (control.state === 'stopped') throw new HypruseError('refused.stopped', `hypruse is stopped by ${control.by}: acting tools are refused until resume`);
        const spec = s.config.stopChord.trim();
        if (!spec || spec.toLowerCase() === 'off') return `off (stop_chord "off"); ${state}`;
        parseCombo(spec);
        if (s.compositor.id === 'none') throw new HypruseError('unsupported.compositor', 'no compositor to bind the stop chord in (see the compositor check)');
        if (s.compositor.chordUnsupported || !s.compositor.registerChord) {
          return `${spec} cannot be bound on ${s.compositor.displayName}: ${s.compositor.chordUnsupported ?? 'the plugin has no run-time bindings'}; stop from the monitor page instead; ${state}`;
        }
        const servers = readBeacons(env).live.filter((b) => b.mode.source === 'mcp').map((b) => b.pid);
        const server = servers.length ? `the MCP server (pid ${servers.join(', ')}) binds it while it runs` : 'bound by the MCP server while it runs (none running now)';
        return `${spec} in ${s.compositor.displayName}: ${server}; ${state}`;
      },
    },
    {
      name: 'indicator',
      fix: 'the on-screen indicator needs zwlr_layer_shell_v1 and wl_shm with fd passing from the compositor; set indicator: false (HYPRUSE_INDICATOR=0) to turn it off',
      async run(signal) {
        const s = needSession(ctx);
        const r = await s.services.get<Indicator>(Tokens.Indicator).probe(signal);
        if (!s.config.indicator) return `off (indicator: false); ${r.possible ? 'indicator possible' : `indicator not possible: ${r.detail}`}`;
        if (!r.possible) throw new HypruseError('unsupported.capability', `indicator not possible: ${r.detail}`);
        return `indicator possible: ${r.detail}; the MCP server shows it while it acts and hides it before every capture`;
      },
    },
    {
      name: 'monitor',
      fix: 'start the monitor page with: hypruse monitor (or monitor.serve / HYPRUSE_MONITOR=1 for the MCP server)',
      async run() {
        const pages = readBeacons(env).live.filter((b) => typeof b.monitor === 'string' && b.monitor);
        if (!pages.length) return 'no monitor page running (hypruse monitor, or HYPRUSE_MONITOR=1 for the MCP server, serves one)';
        const who = (b: (typeof pages)[number]) => (b.mode.source === 'monitor' ? 'hypruse monitor' : b.mode.source === 'mcp' ? 'the MCP server' : b.mode.source);
        return `${pages.map((b) => `${b.monitor} (${who(b)}, pid ${b.pid})`).join('; ')}; the address with its token was printed when it started`;
      },
    },
    {
      name: 'trust',
      fix: 'fix the config check above first',
      async run() {
        return trustSummary(needSession(ctx).config);
      },
    },
  ];
}

export interface DoctorReport {
  ok: boolean;
  version: string;
  ms: number;
  checks: CheckResult[];
}

/** Run the doctor against `env`; `onResult` sees each line as it finishes. */
export async function runDoctor(opts: { env?: NodeJS.ProcessEnv; onResult?: (r: CheckResult) => void } = {}): Promise<DoctorReport> {
  const t0 = Date.now();
  const env = opts.env ?? process.env;
  const ctx: DoctorContext = { env, session: null, sessionError: null };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  try {
    ctx.session = await withTimeout(createSession({ source: 'cli', env, logger: env.HYPRUSE_LOG ? undefined : quiet }), scaledMs(SESSION_TIMEOUT_MS, env), 'session setup (config, plugins, compositor detection)', undefined, (late) => void late.dispose());
  } catch (err) {
    ctx.sessionError =
      err instanceof CheckTimeout
        ? new HypruseError('error.internal', err.message, { hint: `${timeoutFix(err.ms)}; if it still hangs, a plugin or the compositor detection is stuck: check the compositor socket, or set HYPRUSE_COMPOSITOR`, data: { timeoutMs: err.ms } })
        : toHypruseError(err);
  }
  try {
    const checks = await runChecks(doctorChecks(ctx), opts.onResult);
    return { ok: checks.every((c) => c.ok), version: VERSION, ms: Date.now() - t0, checks };
  } finally {
    if (ctx.session) await Promise.race([ctx.session.dispose(), new Promise((r) => setTimeout(r, 500))]);
  }
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check the desktop session, input, capture, accessibility, clipboard and config; a fix for each failure',
  usage: USAGE,
  async run(argv) {
    const json = argv.includes('--json');
    const bad = argv.filter((a) => a !== '--json');
    if (bad.length) {
      const e = new UsageError(`unknown argument ${bad[0]}; usage: ${USAGE}`, { code: 'usage.flag' });
      process.stderr.write(`hypruse: usage: ${e.message}\n`);
      return 2;
    }
    if (!json) process.stdout.write(`hypruse doctor ${VERSION} (node ${process.version})\n`);
    const report = await runDoctor({ onResult: json ? undefined : (r) => process.stdout.write(`${formatResult(r)}\n`) });
    if (json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      const failed = report.checks.filter((c) => !c.ok).length;
      process.stdout.write(failed ? `${failed} of ${report.checks.length} checks failed (${report.ms} ms)\n` : `all ${report.checks.length} checks passed (${report.ms} ms)\n`);
    }
    return report.ok ? 0 : 1;
  },
};
