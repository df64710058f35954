export interface SummaryRun {
  name: string;
  /** The parsed vitest JSON report, or null when there is none. */
  report: unknown;
  code: number | null;
  signal?: string | null;
}

export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  total: number;
  failures: string[];
  line: string;
}

export function summarize(runs: SummaryRun[], opts: { ci: boolean; root?: string; problems?: string[] }): Summary;
