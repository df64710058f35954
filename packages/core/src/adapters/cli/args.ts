import type { AnyTool } from '../../contracts/tool.js';
import { UsageError } from '../../errors.js';
import type { JsonSchema } from './schema.js';

/** What parsing a verb's argv needs of a tool: its name, its input as JSON schema, its CLI layout (no zod). */
export interface VerbSpec {
  name: string;
  schema: JsonSchema;
  cli?: Pick<NonNullable<AnyTool['cli']>, 'positional' | 'positionalFor' | 'stdinField'>;
}

export interface VerbFlags {
  json: boolean;
  dryRun: boolean;
  help: boolean;
}

export interface ParsedVerb {
  args: Record<string, unknown>;
  flags: VerbFlags;
}

function allowedTypes(s: JsonSchema | undefined): Set<string> {
  const out = new Set<string>();
  if (!s) return out;
  const add = (x: JsonSchema) => {
    if (Array.isArray(x.type)) x.type.forEach((t) => out.add(t));
    else if (typeof x.type === 'string') out.add(x.type);
    if (x.enum) out.add('string');
    if (x.const !== undefined) out.add(typeof x.const);
    for (const k of ['anyOf', 'oneOf'] as const) x[k]?.forEach(add);
  };
  add(s);
  return out;
}

/** Turn one flag string into the type its schema accepts. */
export function coerce(name: string, raw: string, schema: JsonSchema | undefined): unknown {
  const types = allowedTypes(schema);
  if ((types.has('number') || types.has('integer')) && /^-?(\d+\.?\d*|\.\d+)(e-?\d+)?$/i.test(raw.trim())) return Number(raw);
  if (types.has('boolean') && /^(true|false|1|0|yes|no)$/i.test(raw)) return /^(true|1|yes)$/i.test(raw);
  if ((types.has('array') || types.has('object')) && !types.has('string')) {
    try {
      return JSON.parse(raw);
    } catch {
      if (types.has('array')) return raw.split(',').map((s) => s.trim()).filter(Boolean);
      throw new UsageError(`--${name.replace(/_/g, '-')} expects JSON, got ${JSON.stringify(raw)}`, { code: 'usage.flag' });
    }
  }
  return raw;
}

/**
 * `hypruse <verb> [positional...] [--flag value|--flag=value|--switch|--no-switch] [--json] [--dry-run]`.
 * Flags are kebab-case forms of the argument names; `-` as a value reads stdin (`stdin` supplies it);
 * after `--` the rest is joined into the last positional field (launch ... -- app flags).
 */
export function parseVerbSpec(tool: VerbSpec, argv: string[], stdin: () => string): ParsedVerb {
  const schema = tool.schema;
  const props = schema.properties ?? {};
  let positional = tool.cli?.positional ?? [];
  const firstPositional = argv.find((a) => !a.startsWith('-'));
  if (firstPositional && tool.cli?.positionalFor?.[firstPositional]) positional = tool.cli.positionalFor[firstPositional];
  const args: Record<string, unknown> = {};
  const flags: VerbFlags = { json: false, dryRun: false, help: false };
  const rest: string[] = [];
  let posIndex = 0;
  let afterDashDash: string[] | null = null;

  const setField = (name: string, value: string | true) => {
    const key = name.replace(/-/g, '_');
    const prop = props[key];
    if (!prop) {
      const known = Object.keys(props).map((k) => `--${k.replace(/_/g, '-')}`);
      throw new UsageError(`unknown flag --${name} for ${tool.name}; accepted: ${known.join(', ') || '(none)'}`, { code: 'usage.flag' });
    }
    if (value === true) {
      if (!allowedTypes(prop).has('boolean')) throw new UsageError(`--${name} needs a value`, { code: 'usage.flag' });
      args[key] = true;
      return;
    }
    const v = value === '-' && (tool.cli?.stdinField === key || allowedTypes(prop).has('string')) ? stdin() : value;
    args[key] = coerce(key, v, prop);
  };

  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (afterDashDash) {
      afterDashDash.push(a);
      continue;
    }
    if (a === '--') {
      afterDashDash = [];
      continue;
    }
    if (a === '--json') flags.json = true;
    else if (a === '--dry-run') flags.dryRun = true;
    else if (a === '--help' || a === '-h') flags.help = true;
    else if (a.startsWith('--no-')) setField(a.slice(5), 'false');
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) setField(a.slice(2, eq), a.slice(eq + 1));
      else {
        const name = a.slice(2);
        const prop = props[name.replace(/-/g, '_')];
        const next = argv[i + 1];
        const isBool = prop && allowedTypes(prop).has('boolean') && allowedTypes(prop).size === 1;
        if (isBool && (next === undefined || !/^(true|false|1|0|yes|no)$/i.test(next))) setField(name, true);
        else {
          if (next === undefined) throw new UsageError(`--${name} needs a value`, { code: 'usage.flag' });
          setField(name, next);
          i++;
        }
      }
    } else if (posIndex < positional.length) {
      const key = positional[posIndex++];
      args[key] = a === '-' ? stdin() : coerce(key, a, props[key]);
    } else {
      rest.push(a);
    }
  }
  if (afterDashDash && afterDashDash.length) rest.push(...afterDashDash);
  if (rest.length) {
    const last = positional[positional.length - 1];
    if (last && typeof args[last] === 'string' && tool.cli?.stdinField !== last) {
      args[last] = [args[last], ...rest].join(' ');
    } else if (last && args[last] === undefined) {
      args[last] = rest.join(' ');
    } else {
      throw new UsageError(`unexpected argument${rest.length > 1 ? 's' : ''} ${rest.map((r) => JSON.stringify(r)).join(' ')} for ${tool.name}`, {
        code: 'usage.flag',
        hint: `hypruse ${tool.name} --help`,
      });
    }
  }
  return { args, flags };
}
