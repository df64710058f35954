// vitest inside the real-compositor guest (tests/real/run.mjs starts it with
// HYPRUSE_REAL_COMPOSITOR and HYPRUSE_CONTRACT_TARGETS set): the compositor
// contract suite against the real compositor, then the tool suite, one file
// at a time (they share one desktop).
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Test files for one compositor of the guest: the person at the seat beside a background server runs on Hyprland (sway's is on the host). */
const ONLY_ON: Record<string, string> = { 'tests/real/background.test.ts': 'hyprland' };
const SCALE = Math.max(1, Number(process.env.HYPRUSE_TIME_SCALE) || 1);

export default defineConfig({
  root: ROOT,
  cacheDir: join(tmpdir(), `hypruse-vitest-${process.getuid?.() ?? 'user'}`),
  resolve: { conditions: ['@hypruse/source'] },
  ssr: { resolve: { conditions: ['@hypruse/source'], externalConditions: ['@hypruse/source'] } },
  test: {
    include: ['tests/contract/contract.test.ts', 'tests/real/**/*.test.ts'],
    // files that apply to one compositor only run on it (under CI a skipped test is a failure)
    exclude: Object.entries(ONLY_ON)
      .filter(([, c]) => c !== process.env.HYPRUSE_REAL_COMPOSITOR)
      .map(([file]) => file),
    setupFiles: ['./tests/setup.ts'],
    testTimeout: 60000 * SCALE,
    hookTimeout: 120000 * SCALE,
    fileParallelism: false,
    maxWorkers: 1,
    sequence: { concurrent: false },
  },
});
