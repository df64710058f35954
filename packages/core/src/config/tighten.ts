import { resolve } from 'node:path';
import type { HypruseConfig } from './schema.js';

/**
 * A configuration found in the working directory (or a folder above it, up to
 * the home directory) is the project's, not the person's: an agent working
 * there can write it. It may make the person's limits stricter, never looser.
 * The person's limits are the defaults, their own file (HYPRUSE_CONFIG, or
 * ~/.config/hypruse/) and the HYPRUSE_* variables, merged first; the project's
 * values are then applied key by key by the rules below. A value the rules
 * keep from the person is reported (`ignored`), so `hypruse config` can say why.
 */

export interface Tightened {
  config: HypruseConfig;
  /** Dotted keys whose value the project set (made stricter, or a neutral setting). */
  set: string[];
  /** `key: why` for each project value that was not taken. */
  ignored: string[];
}

const AUTH_ORDER = ['off', 'on', 'strict'] as const;
const TIER_ORDER = ['view', 'click', 'full'] as const;

type Raw = Record<string, unknown>;

const has = (o: unknown, k: string): boolean => typeof o === 'object' && o !== null && Object.prototype.hasOwnProperty.call(o, k);
const sub = (o: Raw, k: string): Raw => (typeof o[k] === 'object' && o[k] !== null && !Array.isArray(o[k]) ? (o[k] as Raw) : {});
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Apply the project's configuration `raw` (as written, already validated
 * against the schema; `parsed` is it with defaults) to the person's `base`.
 * `trusted`: the person allowed this folder (trustedProjectDirs), so the
 * project's plugins may load too.
 */
export function tightenWith(base: HypruseConfig, raw: Raw, parsed: HypruseConfig, opts: { dir: string; trusted: boolean; personSet?: (key: string) => boolean }): Tightened {
  const out: HypruseConfig = structuredClone(base);
  const set: string[] = [];
  const ignored: string[] = [];
  const take = (key: string, value: unknown, assign: (v: never) => void) => {
    assign(value as never);
    set.push(key);
  };
  const keep = (key: string, why: string) => ignored.push(`${key}: ${why}`);
  const LOOSER = 'a project config cannot loosen the person\'s limits';

  // on/off limits: the project can turn on, never off
  for (const key of ['readonly', 'dryRun', 'strict', 'indicator', 'mark'] as const) {
    if (!has(raw, key)) continue;
    if (parsed[key] && !base[key]) take(key, true, (v) => (out[key] = v));
    else if (!parsed[key] && base[key]) keep(key, LOOSER);
  }
  // permissions: the project can turn off, never on
  const offOnly: Array<[string, boolean, boolean, (v: boolean) => void]> = [
    ['clipboard', base.clipboard, parsed.clipboard, (v) => (out.clipboard = v)],
    ['a11y.setPasswords', base.a11y.setPasswords, parsed.a11y.setPasswords, (v) => (out.a11y.setPasswords = v)],
    ['journal.text', base.journal.text, parsed.journal.text, (v) => (out.journal.text = v)],
    ['allowModifierKeys', base.allowModifierKeys, parsed.allowModifierKeys, (v) => (out.allowModifierKeys = v)],
  ];
  for (const [key, b, p, assign] of offOnly) {
    const [top, leaf] = key.includes('.') ? key.split('.') : [key, undefined];
    if (leaf ? !has(sub(raw, top!), leaf) : !has(raw, top!)) continue;
    if (!p && b) take(key, false, assign as (v: never) => void);
    else if (p && !b) keep(key, `only the person turns it on (${key === 'journal.text' ? 'typed text in the journal' : 'a permission'})`);
  }
  if (has(raw, 'authGuard')) {
    if (AUTH_ORDER.indexOf(parsed.authGuard) > AUTH_ORDER.indexOf(base.authGuard)) take('authGuard', parsed.authGuard, (v) => (out.authGuard = v));
    else if (parsed.authGuard !== base.authGuard) keep('authGuard', LOOSER);
  }
  if (has(raw, 'takeoverMs')) {
    if (parsed.takeoverMs > base.takeoverMs) take('takeoverMs', parsed.takeoverMs, (v) => (out.takeoverMs = v));
    else if (parsed.takeoverMs !== base.takeoverMs) keep('takeoverMs', LOOSER);
  }
  // confinement: any scope is narrower than none; with the person's scopes, only a subset of them
  if (has(raw, 'confine') && !same(parsed.confine, base.confine)) {
    if (parsed.confine.length > 0 && (base.confine.length === 0 || parsed.confine.every((s) => base.confine.includes(s)))) take('confine', [...parsed.confine], (v) => (out.confine = v));
    else keep('confine', parsed.confine.length === 0 ? LOOSER : `not a narrowing of the person's scopes (${base.confine.join(', ')}); only a subset of them is taken`);
  }
  // the launch allowlist: without the person's confinement everything could launch, so the project's list narrows it; with it, the lists intersect
  if (has(sub(raw, 'launch'), 'allow') && !same(parsed.launch.allow, base.launch.allow)) {
    const next = base.confine.length === 0 ? [...parsed.launch.allow] : base.launch.allow.filter((p) => parsed.launch.allow.includes(p));
    if (!same(next, base.launch.allow)) take('launch.allow', next, (v) => (out.launch.allow = v));
    const dropped = parsed.launch.allow.filter((p) => !next.includes(p));
    if (dropped.length) keep('launch.allow', `${dropped.join(', ')} not in the person's allowlist`);
  }
  // the journal: the project may turn it on where the person has none, at the default place only (a path of its
  // choosing could make hypruse append records, verbatim facts included, to a file the person runs, such as ~/.bashrc)
  const rj = sub(raw, 'journal');
  if (has(rj, 'path') && !same(parsed.journal.path, base.journal.path)) {
    if (base.journal.path === null && parsed.journal.path !== null) {
      take('journal.path', 'default', (v) => (out.journal.path = v));
      if (parsed.journal.path !== 'default') keep('journal.path', 'a project turns the journal on at the default place only ($XDG_STATE_HOME/hypruse/journal.ndjson)');
    } else keep('journal.path', base.journal.path === null ? LOOSER : 'the person\'s journal stays where they put it');
  }
  if (has(rj, 'maxBytes') && parsed.journal.maxBytes !== base.journal.maxBytes) keep('journal.maxBytes', 'only the person sizes the journal');
  // dangerous words: added to, never removed
  if (has(sub(raw, 'dangerous'), 'extra')) {
    const extra = [...new Set([...base.dangerous.extra, ...parsed.dangerous.extra])];
    if (!same(extra, base.dangerous.extra)) take('dangerous.extra', extra, (v) => (out.dangerous.extra = v));
  }
  // per-app tiers: the lower of the two for every class
  if (has(raw, 'policy')) {
    const policy = { ...base.policy };
    for (const [cls, tier] of Object.entries(parsed.policy)) {
      const was = base.policy[cls] ?? 'full';
      if (TIER_ORDER.indexOf(tier) < TIER_ORDER.indexOf(was)) policy[cls] = tier;
      else if (tier !== was) keep(`policy.${cls}`, LOOSER);
    }
    if (!same(policy, base.policy)) take('policy', policy, (v) => (out.policy = v));
  }
  // sequence limits: lower only; its settle time is neutral
  const rs = sub(raw, 'sequence');
  for (const key of ['maxSteps', 'maxSeconds'] as const) {
    if (!has(rs, key)) continue;
    if (parsed.sequence[key] < base.sequence[key]) take(`sequence.${key}`, parsed.sequence[key], (v) => (out.sequence[key] = v));
    else if (parsed.sequence[key] !== base.sequence[key]) keep(`sequence.${key}`, LOOSER);
  }
  const personSet = opts.personSet ?? (() => false);
  if (has(rs, 'quietMs') && !personSet('sequence.quietMs')) take('sequence.quietMs', parsed.sequence.quietMs, (v) => (out.sequence.quietMs = v));
  // only the person's: the stop chord, the monitor page, the folders they trust
  if (has(raw, 'stopChord') && parsed.stopChord !== base.stopChord) keep('stopChord', 'only the person sets the stop chord');
  if (has(raw, 'monitor') && !same(parsed.monitor, base.monitor)) keep('monitor', 'only the person serves the monitor page');
  if (has(raw, 'trustedProjectDirs') && parsed.trustedProjectDirs.length) keep('trustedProjectDirs', 'only the person\'s own config names trusted folders');
  // where hypruse works and whether it works beside the person: the person's choice
  if (has(raw, 'desk') && parsed.desk !== base.desk) keep('desk', 'only the person chooses where hypruse works');
  if (has(raw, 'background') && parsed.background !== base.background) keep('background', 'only the person chooses background mode (it changes what pauses the agent)');
  if (has(raw, 'backgroundLivePages') && parsed.backgroundLivePages !== base.backgroundLivePages) keep('backgroundLivePages', "only the person weakens a browser's sandbox");
  // plugins run code: only from a folder the person trusts
  if (has(raw, 'plugins') && parsed.plugins.length) {
    if (opts.trusted) {
      const plugins = [...base.plugins, ...parsed.plugins.map((p) => (p.startsWith('.') ? resolve(opts.dir, p) : p))];
      take('plugins', plugins, (v) => (out.plugins = v));
    } else keep('plugins', 'plugins run code: only from a folder listed in the person\'s trustedProjectDirs');
  }
  // neutral settings (how, not whether): the project's value, where the person set none (their file or a variable wins)
  const neutral: Array<[string, string[]]> = [
    ['compositor', []],
    ['timeScale', []],
    ['screenshot', ['mode', 'maxImageBytes', 'maxImageEdge', 'keep', 'quality']],
    ['a11y', ['timeoutMs', 'maxNodes']],
    ['input', ['keyboard']],
    ['indicatorHoldMs', []],
  ];
  for (const [top, leaves] of neutral) {
    if (!leaves.length) {
      if (has(raw, top) && !personSet(top)) take(top, (parsed as unknown as Raw)[top], (v) => ((out as unknown as Raw)[top] = v));
      continue;
    }
    for (const leaf of leaves) {
      if (has(sub(raw, top), leaf) && !personSet(`${top}.${leaf}`)) take(`${top}.${leaf}`, sub(parsed as unknown as Raw, top)[leaf], (v) => (sub(out as unknown as Raw, top)[leaf] = v));
    }
  }
  // how results are presented to the host; where the seat is served is the person's (an address or allowed host
  // of the project's choosing could expose the seat beyond this machine)
  for (const leaf of Object.keys(sub(raw, 'mcp'))) {
    if (leaf === 'http') {
      if (!same(parsed.mcp.http, base.mcp.http)) keep('mcp.http', 'only the person chooses where the seat is served');
      continue;
    }
    if (!personSet(`mcp.${leaf}`)) take(`mcp.${leaf}`, sub(parsed as unknown as Raw, 'mcp')[leaf], (v) => (sub(out as unknown as Raw, 'mcp')[leaf] = v));
  }
  return { config: out, set, ignored };
}
