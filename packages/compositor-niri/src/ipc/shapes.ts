import type { NiriLayerSurface, NiriOutput, NiriWindow, NiriWorkspace } from './types.js';

/**
 * Structural checks on what niri sent: the fields hypruse relies on must have
 * the right type; everything else (unknown, newer fields) passes through.
 * A failure throws `ShapeError`, which the callers turn into a typed
 * compositor error (request) or a stream re-sync (event).
 */
export class ShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShapeError';
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function need(cond: boolean, what: string): void {
  if (!cond) throw new ShapeError(what);
}

const optNum = (v: unknown) => v === undefined || v === null || typeof v === 'number';
const optStr = (v: unknown) => v === undefined || v === null || typeof v === 'string';

export function asWindow(v: unknown): NiriWindow {
  need(isObj(v), 'window is not an object');
  const w = v as Record<string, unknown>;
  need(typeof w.id === 'number', 'window.id is not a number');
  need(optStr(w.title) && optStr(w.app_id), `window ${w.id}: title/app_id not strings`);
  need(optNum(w.pid) && optNum(w.workspace_id), `window ${w.id}: pid/workspace_id not numbers`);
  need(w.layout === undefined || w.layout === null || isObj(w.layout), `window ${w.id}: layout not an object`);
  return { ...w, is_focused: w.is_focused === true } as NiriWindow;
}

export function asWorkspace(v: unknown): NiriWorkspace {
  need(isObj(v), 'workspace is not an object');
  const w = v as Record<string, unknown>;
  need(typeof w.id === 'number' && typeof w.idx === 'number', 'workspace.id/idx are not numbers');
  need(optStr(w.name) && optStr(w.output), `workspace ${w.id}: name/output not strings`);
  return { ...w, is_active: w.is_active === true, is_focused: w.is_focused === true } as NiriWorkspace;
}

export function asOutputs(v: unknown): Record<string, NiriOutput> {
  need(isObj(v), 'Outputs is not a map');
  const out: Record<string, NiriOutput> = {};
  for (const [key, o] of Object.entries(v as Record<string, unknown>)) {
    need(isObj(o), `output ${key} is not an object`);
    const rec = o as Record<string, unknown>;
    const logical = rec.logical;
    if (logical !== undefined && logical !== null) {
      need(isObj(logical), `output ${key}: logical is not an object`);
      const l = logical as Record<string, unknown>;
      for (const f of ['x', 'y', 'width', 'height', 'scale']) need(typeof l[f] === 'number', `output ${key}: logical.${f} is not a number`);
    }
    out[key] = { ...rec, name: typeof rec.name === 'string' ? rec.name : key } as NiriOutput;
  }
  return out;
}

export function asLayer(v: unknown): NiriLayerSurface {
  need(isObj(v), 'layer is not an object');
  const l = v as Record<string, unknown>;
  need(typeof l.namespace === 'string' && typeof l.layer === 'string', 'layer.namespace/layer are not strings');
  return { ...l, output: typeof l.output === 'string' ? l.output : '' } as NiriLayerSurface;
}

export function asArray<T>(v: unknown, what: string, item: (x: unknown) => T): T[] {
  need(Array.isArray(v), `${what} is not an array`);
  return (v as unknown[]).map(item);
}

/** The payload of a response variant: `{"Windows":[...]}` → `[...]`. */
export function responseBody(ok: unknown, variant: string): unknown {
  if (isObj(ok) && variant in ok) return ok[variant];
  throw new ShapeError(`expected a ${variant} response, got ${JSON.stringify(ok).slice(0, 120)}`);
}

export { isObj };
