import { describe, expect, it } from 'vitest';
import { summarize } from '../../scripts/test-summary.mjs';

const file = (name: string, statuses: string[], extra: Record<string, unknown> = {}) => ({
  name: `/repo/${name}`,
  status: statuses.includes('failed') ? 'failed' : 'passed',
  assertionResults: statuses.map((status, i) => ({ status, title: `t${i}`, fullName: `suite t${i}` })),
  ...extra,
});
const report = (...files: ReturnType<typeof file>[]) => ({
  numTotalTests: files.reduce((n, f) => n + f.assertionResults.length, 0),
  testResults: files,
});

describe('npm test summary', () => {
  it('counts every status, and passed + failed + skipped = total', () => {
    const s = summarize(
      [
        { name: 'unit', report: report(file('a.test.ts', ['passed', 'passed', 'skipped']), file('b.test.ts', ['failed', 'pending', 'todo'])), code: 1 },
        { name: 'desktop', report: report(file('c.test.ts', ['passed'])), code: 0 },
      ],
      { ci: false, root: '/repo' },
    );
    expect(s).toMatchObject({ passed: 3, failed: 1, skipped: 3, total: 7, failures: [] });
    expect(s.line).toBe('3 passed, 1 failed, 3 skipped, 7 total');
  });

  it('under CI a skipped test fails the run, named, and the totals still add up', () => {
    const s = summarize([{ name: 'desktop', report: report(file('e2e/x.test.ts', ['passed', 'skipped'])), code: 0 }], { ci: true, root: '/repo' });
    expect(s).toMatchObject({ passed: 1, failed: 1, skipped: 0, total: 2 });
    expect(s.failures).toEqual(['skipped under CI: e2e/x.test.ts > suite t1', '1 test(s) skipped; CI runs every test, so a skip is a failure']);
    expect(s.line).toBe('1 passed, 1 failed, 0 skipped, 2 total');
  });

  it('a file that could not run, a missing report and a vitest that failed alone each count as one failed entry', () => {
    const broken = { name: '/repo/broken.test.ts', status: 'failed', message: 'SyntaxError: nope\nat ...', assertionResults: [] };
    const s = summarize(
      [
        { name: 'unit', report: { numTotalTests: 1, testResults: [file('ok.test.ts', ['passed']), broken] }, code: 1 },
        { name: 'desktop', report: null, code: null, signal: 'SIGTERM' },
        { name: 'extra', report: report(file('d.test.ts', ['passed'])), code: 1 },
      ],
      { ci: false, root: '/repo', problems: ['the test desktop did not start'] },
    );
    expect(s.failures).toEqual([
      'the test desktop did not start',
      'broken.test.ts: SyntaxError: nope',
      'no vitest JSON report for desktop',
      'vitest (extra) exited with 1 although no test failed (unhandled errors?)',
    ]);
    expect(s).toMatchObject({ passed: 2, failed: 4, skipped: 0, total: 6 });
  });

  it('a report whose count disagrees with its list, and an empty run, are failures', () => {
    const s = summarize(
      [
        { name: 'unit', report: { numTotalTests: 5, testResults: [file('a.test.ts', ['passed'])] }, code: 0 },
        { name: 'none', report: { numTotalTests: 0, testResults: [] }, code: 1 },
      ],
      { ci: false },
    );
    expect(s.failures).toEqual(['vitest (unit) counted 5 tests but listed 1', 'vitest (none) found no tests to run']);
    expect(s.total).toBe(s.passed + s.failed + s.skipped);
  });
});
