/**
 * Protocols-only compositor rows: the wlroots plugin (no IPC, zwlr_foreign_toplevel_manager_v1,
 * wl_output and xdg-output on one Wayland connection) forced on the host's sway with
 * HYPRUSE_COMPOSITOR=wlroots, beside swaymsg doing the same through sway's IPC: `desktop` against the
 * three queries swaymsg needs for the same picture, and focusing a window (alternating two) against
 * one `swaymsg [con_id=N] focus`. Reads how much the no-IPC route costs where both exist.
 */
import { createSession } from 'hypruse';
import type { Row } from './lib/report.js';

type Fn = (i: number) => Promise<unknown>;
type RowFn = (r: Omit<Row, 'ours'>, ours: Fn, base: Fn | null, opts: { runs: number; baseRuns?: number; warmup?: number }) => Promise<Row>;

export async function wlrootsRows(o: {
  env: Record<string, string>;
  row: RowFn;
  runs: number;
  /** sway's picture of the desktop through its IPC (swaymsg get_tree, get_outputs, get_workspaces). */
  swayQueries: () => Promise<void>;
  /** focus a window through sway's IPC, given its title */
  swayFocus: (title: string) => Promise<unknown>;
  log: (m: string) => void;
}): Promise<void> {
  const s = await createSession({ source: 'mcp', noFile: true, env: { ...o.env, HYPRUSE_COMPOSITOR: 'wlroots' } });
  try {
    if (s.compositor.id !== 'wlroots') throw new Error(`expected the wlroots plugin, got ${s.compositor.id}`);
    const group = 'wlroots (protocols only, on sway)';
    await o.row(
      { group, path: '`desktop` (in process, one Wayland round trip)', baseline: { name: 'swaymsg ×3 spawns (get_tree, get_outputs, get_workspaces)', stats: null }, target: { text: '< 5 ms', met: (r) => Boolean(r.ours && r.ours.median < 5) } },
      () => s.pipeline.call('desktop', {}),
      o.swayQueries,
      { runs: o.runs * 2, baseRuns: o.runs, warmup: 5 },
    );
    const d = await s.pipeline.call('desktop', {});
    const wins = ((d.data?.windows ?? []) as Array<{ address: string; title: string }>).filter((w) => w.title).slice(0, 2);
    if (wins.length < 2) {
      o.log(`wlroots: fewer than two titled windows (${wins.length}); no focus row`);
      return;
    }
    let flip = 0;
    await o.row(
      { group, path: '`wm` focus_window (alternating two windows; activate + round trip)', baseline: { name: 'swaymsg [title=...] focus (one spawn)', stats: null } },
      () => s.pipeline.call('wm', { action: 'focus_window', target: wins[flip++ % 2].address }),
      () => o.swayFocus(wins[flip++ % 2].title),
      { runs: o.runs },
    );
  } finally {
    await s.dispose();
  }
}
