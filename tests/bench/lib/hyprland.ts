/** The Hyprland simulator in its own process and the compiled hyprctl-style one-shot client (hyprland-oneshot.c). */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export interface SimProcess {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts tests/simulators/hyprland/cli.ts with `windows` windows; resolves with its XDG_RUNTIME_DIR and signature. */
export async function startSimulator(windows: number): Promise<SimProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--conditions=@hypruse/source', '--import', 'tsx', join(here, '../../simulators/hyprland/cli.ts'), '--windows', String(windows)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const env: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    let buf = '';
    const t = setTimeout(() => reject(new Error('the Hyprland simulator did not start in 20 s')), 20000);
    child.once('exit', (code) => reject(new Error(`the Hyprland simulator exited (${code})`)));
    child.stdout!.on('data', (d) => {
      buf += d;
      for (const line of buf.split('\n')) {
        const m = /^([A-Z_]+)=(.*)$/.exec(line);
        if (m) env[m[1]] = m[2];
        if (line === 'READY') {
          clearTimeout(t);
          resolve();
        }
      }
    });
  });
  return {
    env,
    async stop() {
      if (child.exitCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(t);
    },
  };
}

/** Compiles hyprland-oneshot.c with cc; null when no compiler is available. */
export function compileOneshot(): string | null {
  const bin = join(mkdtempSync(join(tmpdir(), 'hypruse-bench-oneshot-')), 'oneshot');
  const cc = spawnSync('cc', ['-O2', '-o', bin, join(here, '../hyprland-oneshot.c')], { stdio: 'ignore' });
  return cc.status === 0 && existsSync(bin) ? bin : null;
}
