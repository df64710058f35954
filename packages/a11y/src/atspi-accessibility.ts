import {
  NotFoundError, UsageError, procfsTable, scaledMs, throwIfAborted,
  type A11yElement, type A11yOption, type Rect, type A11yReadOptions, type A11yReadResult, type A11yWindowQuery, type Accessibility, type Logger,
} from '@hypruse/core';
import { AtspiBus, isGoneError, isMissingInterfaceError, type BusSignal } from './atspi-bus.js';
import { ATSPI_REGISTRY, ATSPI_ROOT_PATH, IFACE, Role, decodeStates } from './atspi-constants.js';
import { Deadline, withDeadline } from './deadline.js';
import { boxProblem, closedMenuBranch, collectElements, isSkeleton, mayBeListed, toElement } from './elements.js';
import { ElementOps } from './element-ops.js';
import { placePopupItems } from './popup-extents.js';
import { dropShadowMenuBars } from './shadow-menus.js';
import { ChangeListener } from './change-listener.js';
import { ReadReuse, type ReuseTicket } from './read-reuse.js';
import { TreeReader, isPasswordAttrs, nodeFromCacheItem, type CacheItems, type NodeRef, type RawNode } from './tree-reader.js';
import { hasWindowTitled, pickWindow } from './window-matcher.js';
import { DocumentText } from './document-text.js';
import { engineOfClass, engineOfToolkit, undrawnOf, type WebEngine } from './web-engines.js';
import { familyOfWindowClass } from './app-families.js';

export interface AtspiAccessibilityOptions {
  env: NodeJS.ProcessEnv;
  /** Ceiling for one application (a whole tree read, a refresh, an action). Default 2000 ms. */
  timeoutMs?: number;
  /** Stop walking a tree after this many objects. Default 4000. */
  maxNodes?: number;
  /**
   * How `read` gets a window's tree: `cache` (the default) from the application's
   * org.a11y.atspi.Cache where it has one, walking where not; `walk` always walks.
   */
  reader?: 'cache' | 'walk';
  /**
   * Switch accessibility on where an app needs it (default true): the session's
   * `org.a11y.Status IsEnabled` (read by toolkits at start), and a web engine's own wake call
   * on a window whose page is not exposed yet (see web-engines.ts). Config: `a11y.switches`.
   */
  switches?: boolean;
  logger?: Logger;
}

/** The session's accessibility state, as doctor reports it. */
export interface A11ySessionStatus {
  isEnabled: boolean;
  screenReaderEnabled: boolean;
  /** hypruse turned IsEnabled on (it was off). */
  switchedOn: boolean;
}

/** How long a woken web engine gets to build its page's tree. */
const WAKE_MS = 4000;

interface RegisteredApp {
  ref: NodeRef;
  pid: number | null;
}

/** Characters of text returned by focusedText (typing verification wants the whole field). */
const FOCUSED_TEXT_LIMIT = 10000;
/** Documents of web pages (a page's focus, not a text field unless editable). */
const WEB_DOCUMENTS: ReadonlySet<number> = new Set([Role.DOCUMENT_WEB, Role.DOCUMENT_FRAME]);

/** A node near a web window's root holding children while its role reads ROLE_INVALID: a document the engine is still building. */
export function unbuiltDocument(root: RawNode, depth = 3): boolean {
  let level: RawNode[] = [root];
  for (let i = 0; i < depth && level.length; i++) {
    level = level.flatMap((n) => n.children);
    if (level.some((n) => n.roleId === Role.INVALID && n.children.length > 0)) return true;
  }
  return false;
}

const FALLBACK_HINT = 'Use screenshot + zoom instead.';

/**
 * The AT-SPI events a changed application sends (any of them drops its reused reads): what GTK 3's
 * bridge (at-spi2-atk) and GTK 4 emit when a widget appears, goes, moves, is renamed, changes
 * state, text or value, and window events. The bridges emit only what some client registered.
 */
export const CHANGE_EVENTS = [
  'object:children-changed', 'object:state-changed', 'object:property-change', 'object:text-changed', 'object:bounds-changed',
  'object:visible-data-changed', 'object:value-changed', 'object:selection-changed', 'object:active-descendant-changed',
  'object:attributes-changed', 'object:model-changed', 'object:row-inserted', 'object:row-deleted', 'object:row-reordered',
  'object:column-inserted', 'object:column-deleted', 'object:column-reordered', 'object:text-attributes-changed',
  'window:create', 'window:destroy', 'window:activate', 'window:deactivate', 'window:minimize', 'window:maximize', 'window:restore',
  'window:close', 'window:reparent', 'window:shade', 'window:unshade', 'window:raise', 'window:lower', 'window:move', 'window:resize',
] as const;

/** How old a read may be and still be reused (when nothing else ruled it out). */
const REUSE_MAX_AGE_MS = 2000;

interface KeptRead {
  result: Extract<A11yReadResult, { status: 'ok' }>;
  frame: NodeRef;
}

/**
 * A node collectElements drops in any window and any popup: a zero box or an absurd origin (a
 * hidden notebook page), on a node that is not showing (a showing one may be a menu item whose
 * screen extents placePopupItems puts in place of these). Its other details are not read.
 */
const offscreen = (node: RawNode, extents: Rect | null): boolean => {
  if (!extents || node.states.includes('showing')) return false;
  const p = boxProblem({ extents } as RawNode, 0, 0);
  return p === 'zero size' || p === 'absurd origin';
};

/**
 * The accessibility backend: AT-SPI over dbus-next, with level-pipelined
 * tree reads and one ceiling per application so a hung app cannot hang the
 * server.
 */
export class AtspiAccessibility implements Accessibility {
  private readonly bus: AtspiBus;
  private readonly reader: TreeReader;
  private readonly ops: ElementOps;
  private readonly baseTimeoutMs: number;
  private readonly maxNodes: number;
  private readonly useCache: boolean;
  private readonly logger?: Logger;
  /** pid per unique bus name (unique names are never reused while the bus lives). */
  private readonly pids = new Map<string, number | null>();
  private readonly reuse = new ReadReuse<KeptRead>({ maxAgeMs: REUSE_MAX_AGE_MS });
  /** Whose change signals reach us: only while a read of theirs may be reused. */
  private readonly listener: ChangeListener;
  /** The one registered application of a pid at the last read (its cache is asked early next time). */
  private readonly appOfPid = new Map<number, NodeRef>();
  /** The bounds each object last reported in a BoundsChanged event, by `bus|path`. */
  private readonly lastBounds = new Map<string, string>();
  /** Reads answered from a reused read (a debug counter). */
  reusedReads = 0;
  private readonly switches: boolean;
  private switchedOn: Promise<boolean> | undefined;
  /** Windows already asked to build their web tree, by `bus|path` (asked once). */
  private readonly woken = new Set<string>();

  /** The per-application ceiling, scaled by the time policy when it is armed. */
  private get timeoutMs(): number {
    return scaledMs(this.baseTimeoutMs);
  }

  constructor(opts: AtspiAccessibilityOptions) {
    this.baseTimeoutMs = opts.timeoutMs ?? 2000;
    this.maxNodes = opts.maxNodes ?? 4000;
    this.useCache = opts.reader !== 'walk';
    this.switches = opts.switches !== false;
    this.logger = opts.logger;
    this.bus = new AtspiBus(opts.env, opts.logger);
    this.reader = new TreeReader(this.bus);
    this.ops = new ElementOps(this.bus, this.reader);
    this.bus.onSignal((sig) => {
      if (!this.repeatedBounds(sig)) this.reuse.changed(sig.sender);
    });
    this.listener = new ChangeListener(
      {
        addMatch: (rule) => this.onBus('the accessibility bus', (d) => this.bus.addMatch(rule, d)),
        removeMatch: (rule) => this.onBus('the accessibility bus', (d) => this.bus.removeMatch(rule, d)),
        registerEvents: () => this.onBus('the accessibility registry', (d) => Promise.all(CHANGE_EVENTS.map((e) => this.registerEvent(e, d))).then(() => undefined)),
        deregisterEvents: () => this.onBus('the accessibility registry', (d) => Promise.all(CHANGE_EVENTS.map((e) => this.deregisterEvent(e, d))).then(() => undefined)),
      },
      {
        listening: (app) => this.reuse.watching(app),
        unlistened: (app) => {
          this.reuse.unwatched(app);
          // bounds reported before a gap in listening prove nothing about the ones after it
          for (const k of this.lastBounds.keys()) if (k.startsWith(`${app}|`)) this.lastBounds.delete(k);
        },
        failed: (what, err) => this.logger?.debug(`a11y: ${what}: ${(err as Error).message}`),
      },
      { keepMs: REUSE_MAX_AGE_MS },
    );
    this.bus.onLost(() => {
      this.reuse.lost();
      this.lastBounds.clear();
      this.listener.lost();
    });
  }

  /** A call on the bus outside any read (under the per-application ceiling). */
  private onBus<T>(what: string, fn: (d: Deadline) => Promise<T>): Promise<T> {
    return withDeadline(this.timeoutMs, what, undefined, fn);
  }

  /** The applications whose change signals are listened to now, by bus name (for tests). */
  get listened(): string[] {
    return this.listener.listened;
  }

  /** Signals received on the accessibility bus so far (a debug counter). */
  get signals(): number {
    return this.bus.signals;
  }

  /** Method calls sent on the accessibility bus so far (a debug counter). */
  get calls(): number {
    return this.bus.calls;
  }

  forget(): void {
    this.reuse.input();
  }

  async exists(ref: A11yElement['ref'], signal?: AbortSignal): Promise<boolean> {
    throwIfAborted(signal);
    return withDeadline(this.timeoutMs, `the application owning ${ref.bus}`, signal, (d) => this.alive(ref, d));
  }

  /**
   * A BoundsChanged event repeating the bounds its object reported last: no change. GTK 3 sends
   * one per frame for an animating spinner or pulsing progress bar, with the same box each time.
   */
  private repeatedBounds(sig: BusSignal): boolean {
    if (sig.iface !== IFACE.EventObject || sig.member !== 'BoundsChanged') return false;
    const box = (sig.body[3] as { value?: unknown } | undefined)?.value;
    const key = `${sig.sender}|${sig.path}`;
    const now = Array.isArray(box) ? box.join(',') : '';
    const before = this.lastBounds.get(key);
    this.lastBounds.set(key, now);
    return now !== '' && before === now;
  }

  /** One call: the object answers and is not defunct. */
  private async alive(ref: NodeRef, d: Deadline): Promise<boolean> {
    try {
      const b = await this.bus.call({ dest: ref.bus, path: ref.path, iface: IFACE.Accessible, member: 'GetState' }, d);
      return !decodeStates((b[0] as number[]) ?? []).includes('defunct');
    } catch (err) {
      if (isGoneError(err)) return false;
      throw err;
    }
  }

  private async registerEvent(event: string, d: Deadline): Promise<void> {
    const call = (signature: string, body: unknown[]) =>
      this.bus.call({ dest: ATSPI_REGISTRY, path: '/org/a11y/atspi/registry', iface: 'org.a11y.atspi.Registry', member: 'RegisterEvent', signature, body }, d);
    try {
      // at-spi2-core 2.46: (event, properties, application bus name; '' = every application)
      await call('sass', [event, [], '']);
    } catch (err) {
      if (!isMissingInterfaceError(err)) throw err;
      // older registries take the event alone
      await call('s', [event]);
    }
  }

  private async deregisterEvent(event: string, d: Deadline): Promise<void> {
    await this.bus.call({ dest: ATSPI_REGISTRY, path: '/org/a11y/atspi/registry', iface: 'org.a11y.atspi.Registry', member: 'DeregisterEvent', signature: 's', body: [event] }, d);
  }

  async describe(): Promise<string> {
    try {
      return await withDeadline(this.timeoutMs, 'the accessibility registry', undefined, async (d) => {
        const address = await this.bus.address(d);
        const apps = await this.registry(d);
        return `AT-SPI over dbus-next: accessibility bus ${address.split(',')[0]} (from ${this.bus.addressSource}), ${apps.length} application(s) registered`;
      });
    } catch (err) {
      return `AT-SPI unavailable: ${(err as Error).message}`;
    }
  }

  async apps(signal?: AbortSignal): Promise<Array<{ name: string; pid: number | null; bus: string }>> {
    throwIfAborted(signal);
    const apps = await withDeadline(this.timeoutMs, 'the accessibility registry', signal, (d) => this.registry(d));
    // Each app answers for its own name under its own ceiling; a hung app is listed by bus name.
    const names = await Promise.allSettled(
      apps.map((a) =>
        withDeadline(this.timeoutMs, a.ref.bus, signal, (d) =>
          this.bus.call({ dest: a.ref.bus, path: a.ref.path, iface: IFACE.Properties, member: 'Get', signature: 'ss', body: [IFACE.Accessible, 'Name'] }, d),
        ),
      ),
    );
    throwIfAborted(signal);
    return apps.map((a, i) => {
      const r = names[i];
      const v = r.status === 'fulfilled' ? (r.value[0] as { value?: unknown } | undefined)?.value : undefined;
      return { name: typeof v === 'string' && v !== '' ? v : a.ref.bus, pid: a.pid, bus: a.ref.bus };
    });
  }

  async read(window: A11yWindowQuery, opts: A11yReadOptions): Promise<A11yReadResult> {
    throwIfAborted(opts.signal);
    const label = window.class || window.title || (window.pid !== null ? `pid ${window.pid}` : 'the window');
    // an app that stops answering while it works (AppFamily.answerMs) is waited for longer
    const ceiling = Math.max(this.timeoutMs, scaledMs(familyOfWindowClass(window.class ?? '')?.answerMs ?? 0));
    const key = JSON.stringify([window.pid, window.title, window.width, window.height, window.class ?? null, window.x ?? null, window.y ?? null, opts.actionableOnly, opts.name ?? '', opts.maxNodes ?? this.maxNodes, opts.offscreen === true, opts.closedMenus === true, window.drawn ?? null]);
    const kept = this.reuse.lookup(key);
    if (kept) {
      // the window is still there, and its answer comes after every signal the application sent before it
      const alive = await withDeadline(ceiling, label, opts.signal, (d) => this.alive(kept.value.frame, d));
      if (alive && this.reuse.current(kept.ticket)) {
        this.reusedReads++;
        return { ...structuredClone(kept.value.result), reused: true };
      }
    }
    // the applications listened to for this read, given back once it is kept (or not)
    const ends: Array<() => void> = [];
    try {
      const fresh = await this.readFresh(window, opts, label, ends, ceiling);
      if (fresh.kept) this.reuse.store(key, fresh.kept.ticket, { result: structuredClone(fresh.result as KeptRead['result']), frame: fresh.kept.frame });
      return fresh.result;
    } finally {
      for (const end of ends) end();
    }
  }

  /**
   * Listen to `app` for this read; resolves with the counts the read starts under once its change
   * signals reach us (undefined when they could not be made to: the read is as right, only never
   * reused). Every call of the read to the application must be sent after this resolves.
   */
  private listenFor(app: string, ends: Array<() => void>): Promise<ReuseTicket | undefined> {
    const l = this.listener.begin(app);
    ends.push(l.end);
    return l.ready.then(
      () => this.reuse.begin(app),
      (err: unknown) => {
        this.logger?.debug(`a11y: no change events from ${app}: ${(err as Error).message}`);
        return undefined;
      },
    );
  }

  /**
   * Turn the session's accessibility on (`org.a11y.Status IsEnabled`) once, when it is off and
   * switches are allowed: apps started from then on load their AT-SPI bridge (Chromium, Electron,
   * Qt read it at start). Resolves whether hypruse turned it on; never throws.
   */
  switchOn(signal?: AbortSignal): Promise<boolean> {
    if (!this.switches) return Promise.resolve(false);
    this.switchedOn ??= withDeadline(this.timeoutMs, 'the D-Bus session bus', signal, async (d) => {
      const st = await this.bus.a11yStatus(d);
      if (st.isEnabled) return false;
      await this.bus.setA11yEnabled(true, d);
      this.logger?.info('a11y: turned the session\'s accessibility on (org.a11y.Status IsEnabled)');
      return true;
    }).catch((err: unknown) => {
      this.logger?.debug(`a11y: could not turn the session's accessibility on: ${(err as Error).message}`);
      this.switchedOn = undefined;
      return false;
    });
    return this.switchedOn;
  }

  /** The session's accessibility switches (doctor). */
  async sessionStatus(signal?: AbortSignal): Promise<A11ySessionStatus> {
    const switchedOn = await this.switchOn(signal);
    const st = await withDeadline(this.timeoutMs, 'the D-Bus session bus', signal, (d) => this.bus.a11yStatus(d));
    return { ...st, switchedOn };
  }

  /** The web engine of a registered application (by its toolkit name), if it is one. */
  private async engineOf(app: NodeRef, d: Deadline): Promise<WebEngine | undefined> {
    try {
      const b = await this.bus.call({ dest: app.bus, path: app.path, iface: IFACE.Properties, member: 'Get', signature: 'ss', body: ['org.a11y.atspi.Application', 'ToolkitName'] }, d);
      return engineOfToolkit(String((b[0] as { value?: unknown } | undefined)?.value ?? ''));
    } catch (err) {
      if (d.fired) throw err;
      return undefined;
    }
  }

  /**
   * Ask a web engine's window to build its page's tree (its wake call), then wait until the
   * window holds a document (or WAKE_MS). True when it was asked.
   */
  private async wake(engine: WebEngine, frame: NodeRef, signal?: AbortSignal): Promise<boolean> {
    const key = `${frame.bus}|${frame.path}`;
    if (!this.switches || engine.wake !== 'attributes' || this.woken.has(key)) return false;
    this.woken.add(key);
    const until = Date.now() + scaledMs(WAKE_MS);
    await withDeadline(this.timeoutMs, engine.label, signal, (d) => this.bus.call({ dest: frame.bus, path: frame.path, iface: IFACE.Accessible, member: 'GetAttributes' }, d)).catch(() => undefined);
    while (Date.now() < until) {
      throwIfAborted(signal);
      await new Promise((r) => setTimeout(r, 100));
      const hasDoc = await withDeadline(this.timeoutMs, engine.label, signal, async (d) => {
        const t = await this.reader.readTree(frame, d, { maxNodes: 400, details: false, stopAt: (n) => n.roleId === Role.DOCUMENT_WEB });
        return Boolean(t?.stoppedAt);
      }).catch(() => false);
      if (hasDoc) break;
    }
    this.logger?.debug(`a11y: woke ${engine.label}'s window ${frame.path}`);
    return true;
  }

  /** Why a web engine's window shows no tree, and what the person does about it. */
  private engineAdvice(engine: WebEngine | undefined, appLabel: string): string {
    if (!engine) return '';
    return ` ${appLabel} is ${engine.label === appLabel ? 'a' : `${engine.label}-based, a`} browser engine whose accessibility bridge was off when it started; to expose its tree: ${engine.enable.join('; ')}.`;
  }

  /** A read from the application; `kept` when it may be reused (with the counts it began under). */
  private async readFresh(
    window: A11yWindowQuery,
    opts: A11yReadOptions,
    label: string,
    ends: Array<() => void>,
    /** How long (ms) each step waits for the app to answer. */
    ceiling: number,
  ): Promise<{ result: A11yReadResult; kept?: { ticket: ReuseTicket; frame: NodeRef } }> {
    // The application that had this pid last time is listened to and asked for its cache beside
    // the registry (the cache asked once its signals reach us); used only if the registry still
    // says it is the one.
    const known = window.pid !== null && this.useCache ? this.appOfPid.get(window.pid) : undefined;
    let early: { ref: NodeRef; ticket: Promise<ReuseTicket | undefined>; items: ReturnType<TreeReader['cacheItems']> } | undefined;
    if (known) {
      const ticket = this.listenFor(known.bus, ends);
      early = { ref: known, ticket, items: ticket.then(() => withDeadline(ceiling, label, opts.signal, (d) => this.reader.cacheItems(known, d))) };
      early.items.catch(() => undefined);
    }
    const [apps] = await Promise.all([withDeadline(this.timeoutMs, 'the accessibility registry', opts.signal, (d) => this.registry(d)), this.switchOn(opts.signal)]);
    const byPid = window.pid !== null ? apps.filter((a) => a.pid === window.pid) : [];
    if (window.pid !== null) {
      if (byPid.length === 1) this.appOfPid.set(window.pid, byPid[0].ref);
      else this.appOfPid.delete(window.pid);
    }
    const same = early !== undefined && byPid.length === 1 && byPid[0].ref.bus === early.ref.bus && byPid[0].ref.path === early.ref.path;
    // reusable only when the change signals of the one application of that pid reach us from before
    // the read's first call to it
    let ticket: ReuseTicket | undefined;
    let prefetch: ReturnType<TreeReader['cacheItems']> | undefined;
    if (same) {
      ticket = await withDeadline(ceiling, label, opts.signal, () => early!.ticket);
      prefetch = early!.items;
    } else if (byPid.length === 1) {
      const app = byPid[0].ref;
      ticket = await withDeadline(ceiling, label, opts.signal, () => this.listenFor(app.bus, ends));
      // the application's cache is asked beside the window lookup (under its own ceiling), not after it
      prefetch = this.useCache ? withDeadline(ceiling, label, opts.signal, (d) => this.reader.cacheItems(app, d)) : undefined;
      prefetch?.catch(() => undefined);
    }

    const inApp = byPid.length > 0 ? await this.findWindowInApps(byPid, window, label, opts.signal, prefetch, ceiling) : null;
    if (inApp === 'no_windows') {
      return { result: { status: 'no_tree', reason: `${label} is registered on the accessibility bus but publishes no windows. ${FALLBACK_HINT}` } };
    }
    // Multi-process apps: the window belongs to another process than the one registered; match by title.
    const found = inApp ?? (await this.findWindowByTitle(apps.filter((a) => !byPid.includes(a)), window, opts.signal));
    if (!found) {
      const engine = engineOfClass(window.class);
      return {
        result: {
          status: 'no_app',
          reason:
            `no accessible application matches ${label}` +
            (window.pid !== null ? ` (pid ${window.pid})` : '') +
            ` or has a window titled '${window.title}'.` +
            (engine ? this.engineAdvice(engine, label) : ' The app may not support accessibility, or it has not registered yet.') +
            ` ${FALLBACK_HINT}`,
        },
      };
    }

    const { app, frame } = found;
    const appLabel = app.name || label;
    // the application's extents fix (extents-fix.ts): chosen once, what it subtracts measured for this window
    await withDeadline(ceiling, appLabel, opts.signal, (d) => this.reader.fixes.prepare(app.ref, app.name, frame.ref, window, d));
    const maxNodes = opts.maxNodes ?? this.maxNodes;
    const filter = { actionableOnly: opts.actionableOnly, name: opts.name };
    // a page of an engine whose `showing` means in view: only what shows is read, unless scrolled-out objects are asked for
    const pageEngine = engineOfClass(window.class);
    // a window the compositor draws nowhere: an engine that then clears `showing` below it says nothing by it
    // (unless its process was started so that its tree follows the page there: WebEngine.undrawnFollows)
    const undrawn = window.drawn === false && pageEngine ? undrawnOf(pageEngine, pageEngine.undrawnFollows && window.pid !== null ? (procfsTable.args?.(window.pid) ?? null) : null) : undefined;
    const showingSays = undrawn !== 'unshowing';
    const showingOnly = opts.offscreen !== true && pageEngine?.showingMeansInView === true ? (n: RawNode) => WEB_DOCUMENTS.has(n.roleId) : undefined;
    // a web view whose cached document may be a page it left (Chromium 156 keeps it in its cache after a navigation)
    const liveChildren = (_n: RawNode, kids: ReadonlyArray<{ roleId: number }>) => kids.some((k) => WEB_DOCUMENTS.has(k.roleId));
    const readTree = () => withDeadline(ceiling, appLabel, opts.signal, async (d) => {
      if (this.useCache) {
        try {
          const items = prefetch && app.ref.bus === byPid[0].ref.bus ? prefetch : undefined;
          const cached = await this.reader.readTreeCached(app.ref, frame.ref, d, { maxNodes, wanted: (n) => mayBeListed(n, filter), unlisted: offscreen, mayBeUnlisted: (n) => !n.states.includes('showing'), pruneBelow: opts.offscreen !== true && opts.closedMenus !== true && showingSays, items, showingOnly, liveChildren });
          if (cached && isSkeleton(cached.root)) {
            // a skeleton judgement needs every click action: read the details the cached read skipped
            const rest: RawNode[] = [];
            const stack = [cached.root];
            while (stack.length) {
              const n = stack.pop() as RawNode;
              if ((n.extents === null || cached.partial?.has(n)) && n.actions.length === 0) rest.push(n);
              stack.push(...n.children);
            }
            await this.reader.fillDetails(rest, d);
          }
          if (cached !== undefined) return cached;
        } catch (err) {
          if (d.fired || !isGoneError(err)) throw err;
        }
      }
      // no usable cache (Qt): a walk that leaves closed menus unread and asks details only of nodes that may be listed
      const walked = await this.reader.readTree(frame.ref, d, { maxNodes, wanted: (n) => mayBeListed(n, filter), prune: opts.offscreen === true || opts.closedMenus === true ? undefined : closedMenuBranch, showingOnly });
      if (walked && isSkeleton(walked.root)) {
        // a skeleton judgement needs every click action: read the details the walk skipped
        const rest: RawNode[] = [];
        const stack = [walked.root];
        while (stack.length) {
          const n = stack.pop() as RawNode;
          if (n.extents === null && n.actions.length === 0) rest.push(n);
          stack.push(...n.children);
        }
        await this.reader.fillDetails(rest, d);
      }
      return walked;
    });
    let tree = await readTree();
    let engine: WebEngine | undefined;
    if (tree && (tree.root.childRefs.length === 0 || isSkeleton(tree.root))) {
      // a web engine that builds its tree only for a screen reader: ask it as one does
      engine = await withDeadline(ceiling, appLabel, opts.signal, (d) => this.engineOf(app.ref, d));
      if (engine && (await this.wake(engine, frame.ref, opts.signal))) {
        ticket = undefined;
        prefetch = undefined;
        tree = await readTree();
      }
    }
    // a page the engine is still building: its document reads as ROLE_INVALID for a moment (Chromium 156,
    // a window that opened while accessibility was already on, read as it appeared: the page's options
    // then showed as items, its document unnamed as one), so the read is made again until it has its role
    if (pageEngine && tree && unbuiltDocument(tree.root)) {
      const until = Date.now() + scaledMs(WAKE_MS);
      while (tree && unbuiltDocument(tree.root) && Date.now() < until) {
        throwIfAborted(opts.signal);
        await new Promise((r) => setTimeout(r, 100));
        ticket = undefined;
        prefetch = undefined;
        tree = await readTree();
      }
      this.logger?.debug(`a11y: ${appLabel}'s page was still being built; read again`);
    }
    // a menu bar the app keeps beside the native one that shows the same menus (AppFamily.shadowMenuBar): listed once
    if (tree && this.reader.fixes.familyOf(frame.ref.bus)?.shadowMenuBar) {
      await withDeadline(ceiling, appLabel, opts.signal, (d) => dropShadowMenuBars(tree.root, (n) => this.reader.readExtents(n, d)));
    }
    // a root pane placed relative to the native container holding it (an embedded-pane application): moved into the window
    if (tree) await withDeadline(ceiling, appLabel, opts.signal, (d) => this.reader.fixes.placeTree(tree.root, (n) => this.reader.readExtents(n, d)));
    // open menus are popup surfaces of their own: their items are placed by the popup's origin
    const unplaced = new Set<RawNode>();
    const popups = tree ? await withDeadline(ceiling, appLabel, opts.signal, (d) => placePopupItems(tree.root, this.ops, d, unplaced)) : undefined;
    if (!tree) {
      return { result: { status: 'no_tree', reason: `${appLabel} closed its window '${frame.name}' while it was being read. ${FALLBACK_HINT}` } };
    }
    if (tree.root.childRefs.length === 0) {
      return { result: { status: 'no_tree', reason: `${appLabel} exposes no accessibility tree (its window has no accessible children).${this.engineAdvice(engine, appLabel)} ${FALLBACK_HINT}` } };
    }
    if (isSkeleton(tree.root)) {
      return {
        result: {
          status: 'no_tree',
          skeleton: true,
          reason:
            `${appLabel} exposes only an empty accessibility skeleton.` +
            (this.engineAdvice(engine, appLabel) || ' (typical of Chromium/Electron apps started without accessibility, e.g. --force-renderer-accessibility).') +
            ` ${FALLBACK_HINT}`,
        },
      };
    }
    const elements = collectElements(tree.root, {
      actionableOnly: opts.actionableOnly,
      name: opts.name,
      windowWidth: window.width,
      windowHeight: window.height,
      offscreen: opts.offscreen,
      closedMenus: opts.closedMenus,
      popups,
      unplaced,
      hideUnshown: pageEngine?.unshownIsHidden === true && showingSays,
      ...(showingSays ? {} : { showingUnknown: true }),
    });
    const result: A11yReadResult = { status: 'ok', app: appLabel, windowName: tree.root.name, elements, truncated: tree.truncated, nodes: tree.nodes };
    if (pageEngine?.ignoresEditableText) result.noEditableText = pageEngine.ignoresEditableText;
    if (undrawn === 'unshowing' && pageEngine?.undrawnSettleMs) result.settleMs = pageEngine.undrawnSettleMs;
    if (undrawn === 'frozen') {
      result.frozen = `${pageEngine!.label} does not update its accessibility tree while its window is not drawn (on a workspace no output shows): what an action changes there does not show in the tree, so it cannot be verified`;
    }
    return { result, kept: ticket && ticket.app === app.ref.bus ? { ticket, frame: frame.ref } : undefined };
  }

  async refresh(ref: A11yElement['ref'], signal?: AbortSignal): Promise<A11yElement | null> {
    throwIfAborted(signal);
    const node = await withDeadline(this.timeoutMs, `the application owning ${ref.bus}`, signal, (d) =>
      this.reader.readOne(ref, d, { details: true }),
    );
    return node ? toElement(node) : null;
  }

  async doAction(ref: A11yElement['ref'], index: number, signal?: AbortSignal): Promise<boolean> {
    return (await this.runAction(ref, index, undefined, signal)) === true;
  }

  async sendAction(ref: A11yElement['ref'], index: number, replyMs: number, signal?: AbortSignal): Promise<boolean | 'pending'> {
    return this.runAction(ref, index, replyMs, signal);
  }

  /** DoAction; with `replyMs`, a reply not in by then answers 'pending' (the call went out; its reply is dropped). */
  private async runAction(ref: A11yElement['ref'], index: number, replyMs: number | undefined, signal?: AbortSignal): Promise<boolean | 'pending'> {
    if (!Number.isInteger(index) || index < 0) {
      throw new UsageError(`action index must be a non-negative integer, got ${index}`);
    }
    throwIfAborted(signal);
    this.reuse.input();
    return withDeadline(this.timeoutMs, `the application owning ${ref.bus}`, signal, async (d) => {
      const call = (member: string, signature?: string, body?: unknown[]) =>
        this.bus.call({ dest: ref.bus, path: ref.path, iface: IFACE.Action, member, signature, body }, d);
      try {
        const actions = ((await call('GetActions'))[0] as Array<[string, string, string]>) ?? [];
        if (index >= actions.length) {
          throw new UsageError(
            actions.length === 0
              ? 'the element has no actions'
              : `the element has ${actions.length} action(s) (${actions.map((a, i) => `${i}=${a[0]}`).join(', ')}); index ${index} is out of range`,
          );
        }
        if (replyMs === undefined) return (await call('DoAction', 'i', [index]))[0] === true;
        // a deadline of its own: its firing means only that the reply is late (the app may still be alive)
        const late = new Deadline(replyMs, `the application owning ${ref.bus}`, signal);
        try {
          const reply = await late.race(this.bus.call({ dest: ref.bus, path: ref.path, iface: IFACE.Action, member: 'DoAction', signature: 'i', body: [index] }, late));
          return reply[0] === true;
        } catch (err) {
          if (late.fired && !signal?.aborted) return 'pending';
          throw err;
        } finally {
          late.clear();
        }
      } catch (err) {
        if (isGoneError(err)) {
          throw new NotFoundError('not_found.element', 'the element is gone (its application closed it or exited)', {
            hint: 'Read the window again (ui) to get current elements.',
            cause: err,
          });
        }
        if (isMissingInterfaceError(err)) {
          throw new UsageError('the element has no actions (no AT-SPI Action interface)', {
            hint: 'Click it with the pointer at its coordinates instead.',
          });
        }
        throw err;
      }
    });
  }

  async textRange(ref: A11yElement['ref'], range: { offset: number; limit: number }, signal?: AbortSignal): Promise<{ text: string; total: number; password?: boolean } | null> {
    throwIfAborted(signal);
    return withDeadline(this.timeoutMs, `the application owning ${ref.bus}`, signal, async (d) => {
      const call = (iface: string, member: string, signature?: string, body?: unknown[]) => this.bus.call({ dest: ref.bus, path: ref.path, iface, member, signature, body }, d);
      try {
        const [role, attrs, ifaces, count] = await Promise.all([
          call(IFACE.Accessible, 'GetRole').then((b) => Number(b[0])),
          call(IFACE.Accessible, 'GetAttributes').then((b) => (b[0] ?? {}) as Record<string, string>, () => ({})),
          call(IFACE.Accessible, 'GetInterfaces').then((b) => (b[0] as string[] | undefined) ?? []),
          // an object without Text answers this with a plain "Get failed" (at-spi2-atk), not a missing interface
          call(IFACE.Properties, 'Get', 'ss', [IFACE.Text, 'CharacterCount']).then((b) => Number((b[0] as { value?: unknown } | undefined)?.value ?? 0), () => NaN),
        ]);
        if (role === Role.PASSWORD_TEXT || isPasswordAttrs(attrs)) return { text: '', total: 0, password: true };
        if (!ifaces.includes(IFACE.Text)) return null;
        const total = Number.isFinite(count) && count > 0 ? count : 0;
        const start = Math.min(Math.max(0, range.offset), total);
        const end = Math.min(total, start + Math.max(0, range.limit));
        if (end <= start) return { text: '', total };
        const body = await call(IFACE.Text, 'GetText', 'ii', [start, end]);
        return { text: String(body[0] ?? ''), total };
      } catch (err) {
        if (isGoneError(err) || isMissingInterfaceError(err)) return null;
        throw err;
      }
    });
  }

  async documentText(ref: A11yElement['ref'], signal?: AbortSignal): Promise<{ text: string; truncated: boolean } | null> {
    throwIfAborted(signal);
    try {
      // a long page is many objects: three ceilings, still bounded
      return await withDeadline(this.timeoutMs * 3, `the application owning ${ref.bus}`, signal, (d) => new DocumentText(this.bus, this.maxNodes).read(ref, d));
    } catch (err) {
      if (isGoneError(err)) return null;
      throw err;
    }
  }

  async focusedText(pid: number, signal?: AbortSignal, window?: { title: string }): Promise<{ element: A11yElement; text: string | null } | null> {
    throwIfAborted(signal);
    const apps = await withDeadline(this.timeoutMs, 'the accessibility registry', signal, (d) => this.registry(d));
    const mine = apps.filter((a) => a.pid === pid);
    for (const app of mine) {
      const hit = await withDeadline(this.timeoutMs, `the application with pid ${pid}`, signal, async (d) => {
        // GTK 4 sets `showing` on its windows only: below them, `visible` stands for it (as in collectElements)
        let showingBelow = false;
        // the window typed into, when the app has one of its title: another of its windows may keep a focused field
        let root: { children: Array<{ name: string }> } | null = null;
        const only = (name: string) => !window?.title || name === window.title || !root?.children.some((f) => f.name === window.title);
        const isField = (n: RawNode) => n.states.includes('focused') && n.interfaces.includes('Text') && (!WEB_DOCUMENTS.has(n.roleId) || n.states.includes('editable'));
        // an engine whose `showing` means in view (Chromium): its windows are asked for their focused
        // objects in one Collection.GetMatches each, not walked (a walk read ~400 objects of its chrome)
        if ((await this.engineOf(app.ref, d))?.showingMeansInView === true) {
          const frames = await this.reader.readTree(app.ref, d, { maxNodes: 64, details: false, descend: (n) => n.depth === 0 });
          root = frames?.root ?? null;
          for (const f of frames?.root.children ?? []) {
            if (!f.states.includes('showing') || !only(f.name)) continue;
            for (const ref of (await this.reader.inStateBelow(f.ref, 'focused', d)) ?? []) {
              const n = await this.reader.readNode(ref, 2, d, { details: false });
              if (n && isField(n) && n.states.includes('showing')) return this.reader.readOne(ref, d, { details: true, anyText: true, textLimit: FOCUSED_TEXT_LIMIT }, 2);
            }
          }
        }
        const tree = await this.reader.readTree(app.ref, d, {
          maxNodes: this.maxNodes,
          details: false,
          descend: (n) => {
            if (n.depth === 0) root = n;
            if (n.depth >= 2 && n.states.includes('showing')) showingBelow = true;
            return n.depth <= 1 ? n.depth === 0 || (n.states.includes('showing') && only(n.name)) : n.states.includes('showing') || (!showingBelow && n.states.includes('visible'));
          },
          // a web document keeps `focused` while a field inside it has the focus (Chromium also keeps
          // its hidden WebUI documents focused, above the page): it is the field only when editable
          stopAt: isField,
        });
        if (!tree?.stoppedAt) return null;
        return this.reader.readOne(tree.stoppedAt.ref, d, { details: true, anyText: true, textLimit: FOCUSED_TEXT_LIMIT }, tree.stoppedAt.depth);
      });
      if (hit) return { element: toElement(hit), text: hit.password ? null : (hit.text ?? '') };
    }
    return null;
  }

  setText(ref: A11yElement['ref'], text: string, signal?: AbortSignal): Promise<boolean> {
    this.reuse.input();
    return this.onElement(ref, signal, (d) => this.ops.setText(ref, text, d));
  }

  insertText(ref: A11yElement['ref'], text: string, signal?: AbortSignal): Promise<{ offset: number; before: string } | null> {
    this.reuse.input();
    return this.onElement(ref, signal, (d) => this.ops.insertText(ref, text, d));
  }

  text(ref: A11yElement['ref'], limit: number, signal?: AbortSignal): Promise<string | null> {
    return this.onElement(ref, signal, (d) => this.ops.text(ref, limit, d));
  }

  focus(ref: A11yElement['ref'], signal?: AbortSignal): Promise<boolean> {
    this.reuse.input();
    return this.onElement(ref, signal, (d) => this.ops.focus(ref, d));
  }

  scrollTo(ref: A11yElement['ref'], how: 'scroll' | 'focus', signal?: AbortSignal): Promise<'scroll' | 'focus' | null> {
    this.reuse.input();
    return this.onElement(ref, signal, (d) => this.ops.scrollTo(ref, d, how));
  }

  visibleArea(ref: A11yElement['ref'], signal?: AbortSignal): Promise<Rect | null> {
    return this.onElement(ref, signal, (d) => this.ops.visibleArea(ref, d));
  }

  options(ref: A11yElement['ref'], signal?: AbortSignal): Promise<A11yOption[] | null> {
    return this.onElement(ref, signal, (d) => this.ops.options(ref, d));
  }

  selectOption(ref: A11yElement['ref'], index: number, signal?: AbortSignal): Promise<boolean> {
    if (!Number.isInteger(index) || index < 0) throw new UsageError(`option index must be a non-negative integer, got ${index}`);
    this.reuse.input();
    return this.onElement(ref, signal, (d) => this.ops.selectOption(ref, index, d));
  }

  selectRow(ref: A11yElement['ref'], signal?: AbortSignal): Promise<{ row: number; selected: boolean } | null> {
    this.reuse.input();
    return this.onElement(ref, signal, (d) => this.ops.selectRow(ref, d));
  }

  /** One operation on one element under the per-application ceiling; a vanished element is a typed not_found. */
  private async onElement<T>(ref: A11yElement['ref'], signal: AbortSignal | undefined, run: (d: Deadline) => Promise<T>): Promise<T> {
    throwIfAborted(signal);
    try {
      return await withDeadline(this.timeoutMs, `the application owning ${ref.bus}`, signal, run);
    } catch (err) {
      if (isGoneError(err)) {
        throw new NotFoundError('not_found.element', 'the element is gone (its application closed it or exited)', {
          hint: 'Read the window again (ui) to get current elements.',
          cause: err,
        });
      }
      throw err;
    }
  }

  async dispose(): Promise<void> {
    this.listener.dispose();
    await this.bus.dispose();
  }

  /** The registered applications with the pid of their bus connection. */
  private async registry(d: Deadline): Promise<RegisteredApp[]> {
    d.what = 'the accessibility registry';
    const body = await this.bus.call(
      { dest: ATSPI_REGISTRY, path: ATSPI_ROOT_PATH, iface: IFACE.Accessible, member: 'GetChildren' },
      d,
    );
    const refs = ((body[0] as Array<[string, string]>) ?? []).filter(([bus, path]) => bus && path).map(([bus, path]) => ({ bus, path }));
    d.what = 'the accessibility bus';
    const pids = await Promise.all(refs.map((r) => this.pidOf(r.bus, d)));
    return refs.map((ref, i) => ({ ref, pid: pids[i] }));
  }

  private async pidOf(bus: string, d: Deadline): Promise<number | null> {
    if (this.pids.has(bus)) return this.pids.get(bus) ?? null;
    try {
      const body = await this.bus.call(
        { dest: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', iface: 'org.freedesktop.DBus', member: 'GetConnectionUnixProcessID', signature: 's', body: [bus] },
        d,
      );
      const pid = Number(body[0]);
      const v = Number.isInteger(pid) && pid > 0 ? pid : null;
      this.pids.set(bus, v);
      return v;
    } catch (err) {
      if (d.fired) throw err;
      this.logger?.debug(`a11y: no pid for ${bus}: ${(err as Error).message}`);
      return null;
    }
  }

  /**
   * The app root and its top-level windows from the application's cache (name, role, states,
   * interfaces) with their extents asked (one call each); null when the cache does not hold the
   * root and every one of its children.
   */
  private async appWindowsCached(app: RegisteredApp, items: CacheItems | null, d: Deadline): Promise<{ name: string; ref: NodeRef; windows: RawNode[] } | null> {
    const root = items?.get(app.ref.path);
    if (!items || !root || root.ref.bus !== app.ref.bus) return null;
    // the root's parent is the registry's root, which has the same path: it is not its own child
    const kids = [...items.values()].filter((it) => it.parent === app.ref.path && it.ref.path !== app.ref.path && it.ref.bus === app.ref.bus);
    if (kids.length !== root.childCount) return null;
    kids.sort((a, b) => a.index - b.index);
    const windows = kids.map((it) => nodeFromCacheItem(it, 1)).filter((w) => !w.states.includes('defunct'));
    // pickWindow takes a lone window whatever its size: extents only choose among several
    if (windows.length === 1) return { name: root.name, ref: app.ref, windows };
    const boxes = await Promise.all(windows.map((w) => this.reader.readExtents(w, d).catch((err: unknown) => (isGoneError(err) ? undefined : Promise.reject(err)))));
    const live: RawNode[] = [];
    windows.forEach((w, i) => {
      if (boxes[i] === undefined) return;
      w.extents = boxes[i];
      live.push(w);
    });
    return { name: root.name, ref: app.ref, windows: live };
  }

  /** The app root and its top-level windows (name, role, states, extents). */
  private async appWindows(app: RegisteredApp, d: Deadline): Promise<{ name: string; ref: NodeRef; windows: RawNode[] } | null> {
    const root = await this.reader.readNode(app.ref, 0, d, { children: true, details: false });
    if (!root) return null;
    const windows = await Promise.all(root.childRefs.map((r) => this.reader.readNode(r, 1, d, { details: true })));
    return { name: root.name, ref: app.ref, windows: windows.filter((w): w is RawNode => w !== null) };
  }

  private async findWindowInApps(
    apps: RegisteredApp[],
    window: A11yWindowQuery,
    label: string,
    signal: AbortSignal | undefined,
    /** The cache of the one application in `apps` (its windows are taken from it where it holds them all). */
    items?: Promise<CacheItems | null>,
    ceiling = this.timeoutMs,
  ): Promise<{ app: { name: string; ref: NodeRef }; frame: RawNode } | 'no_windows' | null> {
    const listed = await withDeadline(ceiling, label, signal, async (d) => {
      const cached = items && apps.length === 1 ? await this.appWindowsCached(apps[0], await items.catch(() => null), d) : null;
      return cached ? [cached] : Promise.all(apps.map((a) => this.appWindows(a, d)));
    });
    const all = listed.flatMap((l) => (l ? l.windows.map((w) => ({ app: l, w })) : []));
    if (all.length === 0) return listed.some((l) => l !== null) ? 'no_windows' : null;
    const frame = pickWindow(
      all.map((x) => x.w),
      window,
    );
    if (!frame) return null;
    const owner = all.find((x) => x.w === frame);
    return { app: { name: owner?.app.name ?? '', ref: owner?.app.ref ?? frame.ref }, frame };
  }

  private async findWindowByTitle(
    apps: RegisteredApp[],
    window: A11yWindowQuery,
    signal: AbortSignal | undefined,
  ): Promise<{ app: { name: string; ref: NodeRef }; frame: RawNode } | null> {
    if (!window.title) return null;
    // Every app under its own ceiling, in parallel; apps that do not answer are skipped.
    const listed = await Promise.allSettled(apps.map((a) => withDeadline(this.timeoutMs, a.ref.bus, signal, (d) => this.appWindows(a, d))));
    throwIfAborted(signal);
    for (const r of listed) {
      if (r.status !== 'fulfilled' || !r.value) continue;
      if (hasWindowTitled(r.value.windows, window.title)) {
        const frame = pickWindow(r.value.windows, window);
        if (frame) return { app: { name: r.value.name, ref: r.value.ref }, frame };
      }
    }
    const failed = listed.filter((r) => r.status === 'rejected').length;
    if (failed > 0) this.logger?.debug(`a11y: ${failed} app(s) did not answer during the title fallback`);
    return null;
  }
}
