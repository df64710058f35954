// The closing summary of `npm test`, from vitest JSON reports (pure: no I/O).
//
// Counted from each test's own status, so passed + failed + skipped = total,
// where total is every test vitest listed plus one entry per problem outside
// vitest's counts (a file that could not run, a missing report, ...). Under
// CI a skipped test fails the run: each one is named and counted as failed,
// since CI must run everything.

/**
 * @param {Array<{ name: string, report: any, code: number | null, signal?: string | null }>} runs
 *   one entry per vitest run; `report` is its parsed JSON report, or null when there is none
 * @param {{ ci: boolean, root?: string, problems?: string[] }} opts
 *   `problems`: failures already found outside vitest (each counts as one failed)
 * @returns {{ passed: number, failed: number, skipped: number, total: number, failures: string[], line: string }}
 */
export function summarize(runs, opts) {
  const problems = [...(opts.problems ?? [])];
  const root = opts.root ?? '';
  const rel = (name) => (root && name.startsWith(root) ? name.slice(root.length + 1) : name);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const skippedNames = [];
  for (const { name, report, code, signal } of runs) {
    if (!report) {
      problems.push(`no vitest JSON report for ${name}`);
      continue;
    }
    let listed = 0;
    let runFailed = 0;
    let fileProblems = 0;
    for (const f of report.testResults ?? []) {
      const tests = f.assertionResults ?? [];
      for (const a of tests) {
        listed++;
        if (a.status === 'passed') passed++;
        else if (a.status === 'failed') {
          failed++;
          runFailed++;
        } else {
          // skipped, pending, todo, disabled: it did not run
          skipped++;
          skippedNames.push(`${rel(f.name)} > ${a.fullName ?? a.title}`);
        }
      }
      // A file that failed before any of its tests ran (import error, throw at top level) has no failed test.
      if (f.status === 'failed' && !tests.some((a) => a.status === 'failed')) {
        problems.push(`${rel(f.name)}: ${(f.message || 'failed to run').split('\n')[0]}`);
        fileProblems++;
      }
    }
    if (typeof report.numTotalTests === 'number' && report.numTotalTests !== listed) {
      problems.push(`vitest (${name}) counted ${report.numTotalTests} tests but listed ${listed}`);
    }
    if (code !== 0 && runFailed === 0 && fileProblems === 0) {
      problems.push(listed === 0 ? `vitest (${name}) found no tests to run` : `vitest (${name}) exited with ${code ?? signal} although no test failed (unhandled errors?)`);
    }
  }
  const failures = [];
  if (opts.ci && skipped > 0) {
    for (const n of skippedNames) failures.push(`skipped under CI: ${n}`);
    failures.push(`${skipped} test(s) skipped; CI runs every test, so a skip is a failure`);
    failed += skipped;
    skipped = 0;
  }
  failures.push(...problems);
  failed += problems.length;
  const total = passed + failed + skipped;
  return { passed, failed, skipped, total, failures, line: `${passed} passed, ${failed} failed, ${skipped} skipped, ${total} total` };
}
