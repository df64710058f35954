import { HypruseError, UsageError, scaledMs, type Capture, type CaptureTarget, type Frame, type Logger, type Rect } from '@hypruse/core';
import { parsePpm } from './ppm.js';
import { runTool } from './run-tool.js';

export interface GrimCaptureOptions {
  /** The Wayland session environment (WAYLAND_DISPLAY, XDG_RUNTIME_DIR, PATH). */
  env: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Per-capture ceiling; the child is killed past it. Default 10 s. */
  timeoutMs?: number;
  /** grim executable (default `grim` on PATH). */
  grimPath?: string;
}

/** What the installed grim can do, read once from `grim -h`. */
export interface GrimAbilities {
  /** `-T <toplevel>` window capture (grim ≥ 1.5). */
  toplevel: boolean;
  /** Human version guess from the option set (grim has no --version). */
  version: string;
}

const INSTALL_HINT = 'Install grim (Debian/Ubuntu: `apt install grim`, Arch: `pacman -S grim`) and make sure it is on PATH.';

/** Read grim's abilities from its help text (grim ≥1.5 lists `-T`; 1.4 added `-l`). */
export function grimAbilitiesFromHelp(help: string): GrimAbilities {
  const toplevel = /^\s*-T\b/m.test(help);
  const version = toplevel ? '≥1.5' : /^\s*-l\b/m.test(help) ? '1.4' : '<1.4';
  return { toplevel, version };
}

/** grim's `-g` takes integers: widen a logical rect to whole units around it. */
export function grimGeometry(r: Rect): { arg: string; rect: Rect } {
  if (!(r.width > 0) || !(r.height > 0) || ![r.x, r.y, r.width, r.height].every(Number.isFinite)) {
    throw new UsageError(`capture region ${r.width}x${r.height} at ${r.x},${r.y} is empty or not finite`, {
      code: 'usage.region',
      hint: 'Pass a region as "x,y,WxH" in global logical pixels with W and H greater than 0.',
    });
  }
  const x = Math.floor(r.x);
  const y = Math.floor(r.y);
  const width = Math.ceil(r.x + r.width) - x;
  const height = Math.ceil(r.y + r.height) - y;
  return { arg: `${x},${y} ${width}x${height}`, rect: { x, y, width, height } };
}

/** `%g`-style number for grim's `-s`. */
function fmtScale(s: number): string {
  return String(Number(s.toFixed(6)));
}

/**
 * Screen capture through the `grim` executable (wlr-screencopy), pixels taken
 * as PPM (no PNG encode/decode on either side) and returned as raw RGB.
 */
export class GrimCapture implements Capture {
  private readonly env: NodeJS.ProcessEnv;
  private readonly logger?: Logger;
  private readonly baseTimeoutMs: number;
  /** Scaled by the time policy when armed. */
  private get timeoutMs(): number {
    return scaledMs(this.baseTimeoutMs);
  }
  private readonly grim: string;
  private abilities?: Promise<GrimAbilities>;

  constructor(opts: GrimCaptureOptions) {
    this.env = opts.env;
    this.logger = opts.logger;
    this.baseTimeoutMs = opts.timeoutMs ?? 10_000;
    this.grim = opts.grimPath ?? 'grim';
  }

  /** Detected once per instance from `grim -h`. */
  detect(signal?: AbortSignal): Promise<GrimAbilities> {
    if (!this.abilities) {
      this.abilities = runTool(this.grim, ['-h'], {
        env: this.env,
        code: 'error.capture',
        installHint: INSTALL_HINT,
        timeoutMs: scaledMs(3000),
        signal,
      }).then((r) => grimAbilitiesFromHelp(`${r.stdout.toString('utf8')}\n${r.stderr}`));
      // A failed probe (missing grim, cancelled) is retried on the next call.
      this.abilities.catch(() => {
        this.abilities = undefined;
      });
    }
    return this.abilities;
  }

  async describe(): Promise<string> {
    const a = await this.detect();
    return `grim ${a.version} (ppm → sharp), ${a.toplevel ? 'toplevel window capture (-T)' : 'no toplevel capture: window shots are screen crops'}`;
  }

  async capture(target: CaptureTarget, signal?: AbortSignal): Promise<Frame> {
    switch (target.kind) {
      case 'output':
        return this.grab(['-o', target.name], target.geometry, target.scale, 'output', signal);
      case 'region': {
        const g = grimGeometry(target.rect);
        return this.grab(['-s', fmtScale(target.scale), '-g', g.arg], g.rect, target.scale, 'region', signal);
      }
      case 'window': {
        const a = await this.detect(signal);
        if (a.toplevel) {
          try {
            return await this.grab(['-T', target.toplevelId ?? target.address], target.geometry, target.scale, 'window', signal);
          } catch (e) {
            if (signal?.aborted || !(e instanceof HypruseError) || e.code !== 'error.capture') throw e;
            this.logger?.warn(`grim -T ${target.toplevelId ?? target.address} failed (${e.message}); falling back to a screen crop of the window`);
          }
        }
        const g = grimGeometry(target.geometry);
        return this.grab(['-s', fmtScale(target.scale), '-g', g.arg], g.rect, target.scale, 'crop', signal);
      }
      default: {
        const never: never = target;
        throw new UsageError(`unknown capture target ${JSON.stringify(never)}`);
      }
    }
  }

  private async grab(args: string[], geometry: Rect, scale: number, source: Frame['source'], signal?: AbortSignal): Promise<Frame> {
    const full = ['-t', 'ppm', ...args, '-'];
    const r = await runTool(this.grim, full, {
      env: this.env,
      code: 'error.capture',
      installHint: INSTALL_HINT,
      timeoutMs: this.timeoutMs,
      signal,
    });
    if (r.exitCode !== 0 || r.stdout.length === 0) {
      throw new HypruseError('error.capture', `grim ${full.join(' ')} failed (exit ${r.exitCode ?? 'signal'}): ${r.stderr || 'no output'}`, {
        hint:
          source === 'output'
            ? 'Check the output name with the desktop tool; grim needs a compositor offering zwlr_screencopy_manager_v1.'
            : 'Check the region lies on a monitor; grim needs a compositor offering zwlr_screencopy_manager_v1.',
      });
    }
    const img = parsePpm(r.stdout);
    // grim sizes images as trunc(logical × scale); anything else means the
    // caller's scale was not what grim rendered: trust the pixels.
    let s = scale;
    const expected = geometry.width * scale;
    if (!(scale > 0) || Math.abs(img.width - expected) > 1.01) {
      s = img.width / geometry.width;
      this.logger?.debug(`grim returned ${img.width} px for ${geometry.width} logical (scale ${scale} given); using scale ${s}`);
    }
    return { data: img.pixels, width: img.width, height: img.height, channels: 3, geometry, scale: s, source, via: 'grim' };
  }
}
