import { z } from 'zod';
import { HypruseError, NotFoundError, Tokens, UsageError, backgroundRefusal, defineTool, describeExit, fact, launchEnvironment, result, scaledMs, type AppFamilies, type LaunchPlan, type ToolContext, type Window } from '@hypruse/core';
import { workspaceField } from './common/fields.js';
import { compositorOf, requireCapability } from './common/desktop.js';
import { address, className, pair } from './common/output.js';
import { sleep } from './common/pointer.js';
import { pageState, readElements } from './common/elements.js';

/**
 * A new window is settled when its geometry (and workspace, floating, fullscreen) stayed the same
 * for SETTLE_QUIET_MS, polled every SETTLE_POLL_MS, at most SETTLE_CAP_MS; both scaled by the time
 * policy. Measured on sway 1.7 under load 17: a tiled window mapped at y=0 gained its 27 px title
 * bar 120-190 ms after it was listed, so `ui` right after an unsettled launch placed every point
 * 27 px too high.
 */
export const SETTLE_QUIET_MS = 250;
/**
 * The launch's windows must stay unchanged this long (scaled) before one is the
 * answer, unless the app's family asks for longer: a splash or a first window
 * the app replaces is not the answer.
 */
export const STAY_MS = 300;
export const SETTLE_CAP_MS = 2000;
const SETTLE_POLL_MS = 40;

const placement = (w: Window) => JSON.stringify([w.geometry, w.workspace, w.floating, w.fullscreen, w.positionUnknown ?? null]);

/** Wait until a just-launched window stops moving; the window as last listed, and whether it settled. */
export async function settleWindow(ctx: ToolContext, w: Window): Promise<{ window: Window; ms: number; settled: boolean }> {
  const comp = compositorOf(ctx);
  const quiet = scaledMs(SETTLE_QUIET_MS);
  const cap = scaledMs(SETTLE_CAP_MS);
  const t0 = Date.now();
  let cur = w;
  let key = placement(w);
  let since = t0;
  while (Date.now() - since < quiet) {
    if (Date.now() - t0 >= cap) return { window: cur, ms: Date.now() - t0, settled: false };
    await sleep(SETTLE_POLL_MS, ctx.signal);
    const now = (await comp.snapshot(ctx.signal)).windows.find((x) => x.address === w.address);
    if (!now) break; // it closed meanwhile: answer with what was seen last
    const k = placement(now);
    if (k !== key) {
      key = k;
      since = Date.now();
    }
    cur = now;
  }
  return { window: cur, ms: Date.now() - t0, settled: true };
}

/** A command that opens a web address (a browser given a URL): its launch waits for the page to load. */
const URL_ARG = /(^|\s)['"]?(https?|file):\/\//i;
const PAGE_POLL_MS = 100;

/**
 * Wait until the launched window shows a web page that is no longer loading (its document not
 * `busy`), at most `ms`: the page a browser was given is read right after the launch, not its
 * half-loaded skeleton. `loaded` false when the time ran out (the page may never finish); null
 * when the window exposes no page to wait for (no accessibility tree).
 */
async function waitPageLoad(ctx: ToolContext, address: string, ms: number): Promise<{ loaded: boolean; ms: number } | null> {
  if (!ctx.services.has(Tokens.Accessibility)) return null;
  const t0 = Date.now();
  let seen = false;
  for (;;) {
    try {
      const state = pageState((await readElements(ctx, address, { points: false })).items);
      if (state === 'loaded') return { loaded: true, ms: Date.now() - t0 };
      seen ||= state === 'loading';
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // no tree yet (the engine builds it as the page comes): keep looking until the time is up
    }
    if (Date.now() - t0 >= ms) return seen ? { loaded: false, ms: Date.now() - t0 } : null;
    await sleep(scaledMs(PAGE_POLL_MS, ctx.env), ctx.signal);
  }
}

/** The application-family table's plan for this command (the command as given when no table is registered). */
function planFor(ctx: ToolContext, command: string): LaunchPlan {
  if (!ctx.services.has(Tokens.AppFamilies)) return { command, env: {}, families: [], added: [] };
  return ctx.services.get<AppFamilies>(Tokens.AppFamilies).planLaunch(command, ctx.env, ctx.config.background ? { unseen: true, livePages: ctx.config.backgroundLivePages } : {});
}

const launchOutput = z.strictObject({
  address, class: className, title: z.string(), workspace: fact(z.string()).nullable(), pid: z.number().nullable(),
  /** Where the window settled (null when the compositor reports no position: niri's tiled windows), and its size. */
  at: pair.nullable(), size: pair,
  /** The running instance (pid) the launch was handed to, when it was. */
  handed_to: z.number().optional(),
  /** Other windows of the launch open over this one (first-start dialogs, tips). */
  dialogs: z.array(z.strictObject({ address, class: className, title: z.string() })).optional(),
  note: fact(z.string()).optional(),
});

export const launchTool = defineTool({
  name: 'launch',
  title: 'Launch an application',
  effect: 'open_world',
  background: {
    mode: 'a11y',
    note: "the window opens on the agent's own workspace, out of the person's sight and without the focus (a workspace on an output made for the agent and removed when hypruse stops, or a special workspace no monitor shows until the person toggles it; the result names it and says how the person brings it into view); where the compositor cannot, it is refused with the compositor's reason: work in a private desk",
  },
  description:
    'Start an application and wait for the window of that process (not any window) until its geometry is stable, so points read right after are right; optionally on a workspace (single-instance apps that open elsewhere are moved there). A splash or a first window the app replaces is skipped: the window that stays is returned, with dialogs open over it listed. When a single-instance app hands the request to its running instance, the window that instance opened (or changed) is returned and the note says so. A command holding a web address (a browser and a URL) also waits, within wait_s, for the page to finish loading (its document no longer busy); the note says when it had not. Returns the window address, class, title, workspace and settled position and size.',
  input: z
    .object({
      command: fact(
        z
          .string()
          .min(1, 'name a command')
          .max(4096)
          .refine((s) => !/[\x00]/.test(s), 'the command contains a NUL byte')
          .refine((s) => !/\p{Cs}/u.test(s), 'the command contains a lone surrogate (broken UTF-16)')
          .describe('Shell command line, e.g. "foot" or "zenity --entry".'),
      ),
      workspace: workspaceField.optional(),
      wait_s: z.number().finite().default(8).describe('Seconds to wait for the window, clamped to 1..30.'),
    })
    .strict(),
  output: launchOutput,
  cli: { positional: ['command'], examples: ['hypruse launch foot --workspace 2', 'hypruse launch -- zenity --entry --text Name?'] },
  intent(args, ctx) {
    requireCapability(ctx, 'launch', 'launch');
    if (ctx.config.background) {
      const comp = compositorOf(ctx);
      if (!comp.capabilities.has('launch.unseen')) {
        throw backgroundRefusal(`launch would open a window where the person works and give it the focus: ${comp.unsupportedReason('launch.unseen')}`, 'work in a private desk (desk: "private" or hypruse desk start), where launched apps never reach the person\'s screen');
      }
      if (args.workspace) throw new UsageError('in background mode launch opens the window on the agent\'s own workspace: leave out workspace');
      return { summary: `launch ${JSON.stringify(args.command)} on the agent's workspace, out of the person's sight`, input: 'none', seatless: true, command: args.command };
    }
    return { summary: `launch ${JSON.stringify(args.command)}${args.workspace ? ` on workspace ${args.workspace}` : ''}`, input: 'none', command: args.command, ...(args.workspace ? { workspace: args.workspace } : {}) };
  },
  async handle(args, ctx) {
    const waitMs = Math.min(30, Math.max(1, args.wait_s)) * 1000;
    const comp = compositorOf(ctx);
    const plan = planFor(ctx, args.command);
    const env = { ...launchEnvironment(ctx.env, comp.displayName), ...plan.env };
    const stayMs = scaledMs(Math.max(STAY_MS, plan.stayMs ?? 0));
    const r = await comp.launch(plan.command, {
      workspace: args.workspace, timeoutMs: waitMs, signal: ctx.signal, env, stayMs, ...(ctx.config.background ? { unseen: true } : {}),
      ...(plan.splash ? { splash: plan.splash } : {}), ...(plan.program ? { program: plan.program } : {}),
    });
    if (!r.window && r.candidates?.length) {
      const list = r.candidates.map((w) => `${w.address} ${w.class} "${w.title}" (pid ${w.pid ?? '?'})`).join('; ');
      throw new NotFoundError('not_found.ambiguous', `${JSON.stringify(args.command)} was handed to a running instance, and ${r.candidates.length} of its windows opened or changed meanwhile: ${list}; either could be this launch's`, {
        hint: 'look at both (ui or screenshot with window=ADDRESS) and continue with the one that shows what you launched',
        data: { pid: r.pid, candidates: r.candidates.map((w) => ({ address: w.address, class: w.class, title: w.title, pid: w.pid })) },
      });
    }
    if (!r.window && r.exited) {
      const said = r.exited.errorTail ? `; its last error output:\n${r.exited.errorTail}` : '; it wrote nothing to its error output';
      throw new HypruseError('error.launch_exited', `${JSON.stringify(args.command)}${r.pid ? ` (pid ${r.pid})` : ''} ended (${describeExit(r.exited)}) before opening a window${said}`, {
        hint: 'the program failed at start: read its error output above; check the command and its arguments (run it in a terminal to see more)',
        data: { pid: r.pid, exit_code: r.exited.code, signal: r.exited.signal, error_output: r.exited.errorTail },
      });
    }
    if (!r.window) {
      throw new NotFoundError('not_found.launch', `launched ${JSON.stringify(args.command)}${r.pid ? ` (pid ${r.pid})` : ''}, but no window of it appeared within ${waitMs / 1000}s`, {
        hint: 'call desktop to look; the app may open slowly (raise wait_s) or not open a window at all',
        data: { pid: r.pid },
      });
    }
    ctx.session.launched.add(r.window.address);
    const s = await settleWindow(ctx, r.window);
    let w = s.window;
    // a browser given a web address: answer once its page has loaded (its document no longer busy)
    const page = URL_ARG.test(args.command) ? await waitPageLoad(ctx, w.address, waitMs) : null;
    if (page) w = (await comp.snapshot(ctx.signal)).windows.find((x) => x.address === w.address) ?? w;
    const loading = page && !page.loaded ? `the page was still loading after ${Math.round(page.ms / 100) / 10} s (wait_for idle waits for it longer)` : '';
    ctx.session.observed.set(w.address, { ...w.geometry });
    const moving = s.settled ? '' : `the window was still moving after ${Math.round(s.ms / 100) / 10}s; read its points again before acting`;
    const switches = plan.added.length ? `started with ${plan.added.join(', ')}` : '';
    const handed = r.handoff
      ? r.handoff.to === 'window'
        ? `handed over to the running instance (pid ${r.handoff.pid}), which opened this window for it`
        : `handed over to the running instance (pid ${r.handoff.pid}), which showed it in its existing window (now titled "${w.title}")`
      : '';
    const replaced = r.replaced?.length
      ? `${r.replaced.map((x) => `${x.address}${x.title ? ` "${x.title}"` : ''}`).join(', ')} opened first and closed (splash or replaced); this is the window that stayed`
      : '';
    const dialogs = (r.dialogs ?? []).filter((d) => d.address !== w.address);
    const over = dialogs.length ? `${dialogs.length === 1 ? 'a dialog is' : `${dialogs.length} dialogs are`} open over it: ${dialogs.map((d) => `${d.address} "${d.title}"`).join(', ')} (it may hold the keyboard: answer or close it first)` : '';
    // a window moved there after it showed elsewhere (r.relocated): the plugin's note says what the person may have seen
    const unseen = r.unseen ? `${r.relocated ? 'now on' : 'opened on'} the agent's workspace ${JSON.stringify(r.unseen.workspace)}${r.unseen.output ? ` (output ${r.unseen.output})` : ''}${r.relocated ? '' : ", out of the person's sight and without the focus"}; ${r.unseen.reveal.replaceAll('ADDRESS', w.address)}` : '';
    const note = [unseen, handed, r.note, replaced, over, switches, moving, loading].filter(Boolean).join('; ');
    const data = {
      address: w.address, class: w.class, title: w.title, workspace: args.workspace && r.relocated ? args.workspace : w.workspace, pid: w.pid,
      at: w.positionUnknown === undefined ? [w.geometry.x, w.geometry.y] as [number, number] : null, size: [w.geometry.width, w.geometry.height] as [number, number],
      ...(r.handoff ? { handed_to: r.handoff.pid } : {}),
      ...(dialogs.length ? { dialogs: dialogs.map((d) => ({ address: d.address, class: d.class, title: d.title })) } : {}),
      ...(note ? { note } : {}),
    };
    return result(`launched ${w.class} "${w.title}" as ${w.address} on workspace ${data.workspace ?? '-'}${note ? `; ${note}` : ''}`)
      .text(JSON.stringify(data))
      .data(data)
      .build();
  },
});
