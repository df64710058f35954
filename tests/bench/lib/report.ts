/** The benchmark table (Markdown): ours beside the baseline a user would otherwise have, the ratio, the target. */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import type { Stats } from './measure.js';

export interface Target {
  /** Human text, e.g. "< 5 ms and >= 5x swaymsg". */
  text: string;
  /** Whether the measured row meets it. */
  met: (row: Row) => boolean;
}

export interface Row {
  group: string;
  path: string;
  ours: Stats | null;
  /** Absent: no baseline for this path. */
  baseline?: { name: string; stats: Stats | null };
  /** Value rows (memory) instead of timings. */
  value?: string;
  target?: Target;
  note?: string;
  /** Why the row could not be measured. */
  error?: string;
}

export const ratio = (r: Row): number | null => {
  const q = r.ours && r.baseline?.stats && r.ours.median > 0 ? r.baseline.stats.median / r.ours.median : null;
  return q !== null && Number.isFinite(q) ? q : null;
};

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const cell = (s: Stats | null | undefined) => (s && s.n ? `${ms(s.median)} (${ms(s.min)}–${ms(s.max)}, n=${s.n})` : '–');
const esc = (s: string) => s.replace(/\|/g, '\\|');

export function table(rows: Row[]): string {
  const out = [
    '| group | path | hypruse ms: median (min–max) | baseline | baseline ms: median (min–max) | speed-up | target | met |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const q = ratio(r);
    const met = r.error ? 'not measured' : r.target ? (r.target.met(r) ? 'yes' : '**MISS**') : '';
    const ours = r.error ? `error: ${r.error}` : r.value ?? cell(r.ours);
    out.push(
      `| ${esc(r.group)} | ${esc(r.path)}${r.note ? ` <br>_${esc(r.note)}_` : ''} | ${esc(ours)} | ${esc(r.baseline?.name ?? '–')} | ${cell(r.baseline?.stats)} | ${q === null ? '–' : `${q.toFixed(1)}x`} | ${esc(r.target?.text ?? '')} | ${met} |`,
    );
  }
  return out.join('\n');
}

function tryRun(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** One line describing the machine and the moment (the load matters: these are wall-clock numbers). */
export function machine(): string {
  const cpu = cpus();
  const la = loadavg().map((x) => x.toFixed(1)).join(' ');
  const sway = tryRun('sway', ['--version']).replace(/^sway version /, '');
  return `${cpu[0]?.model ?? 'cpu'} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${tryRun('uname', ['-r'])}, Node ${process.version}, sway ${sway}, load average at start ${la}`;
}
