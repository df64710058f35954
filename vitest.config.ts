import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Test ceilings follow hypruse's one timeout policy (HYPRUSE_TIME_SCALE; npm test measures it from the load).
const scale = Math.min(100, Math.max(1, Number(process.env.HYPRUSE_TIME_SCALE) || 1));

export default defineConfig({
  // Outside the checkout, per user: the suite may run as the desktop user, who cannot write here.
  cacheDir: process.env.HYPRUSE_VITEST_CACHE_DIR || join(tmpdir(), `hypruse-vitest-${process.getuid?.() ?? 'user'}`),
  resolve: { conditions: ['@hypruse/source'] },
  ssr: { resolve: { conditions: ['@hypruse/source'], externalConditions: ['@hypruse/source'] } },
  test: {
    setupFiles: ['./tests/setup.ts'],
    testTimeout: Math.round(30000 * scale),
    hookTimeout: Math.round(60000 * scale),
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['packages/*/test/**/*.test.ts', 'tests/arch/**/*.test.ts', 'tests/mcp/**/*.test.ts', 'tests/simulators/**/*.test.ts', 'tests/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'desktop', include: ['tests/contract/**/*.test.ts', 'tests/e2e/**/*.test.ts', 'tests/faults/**/*.test.ts', 'tests/cli/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
