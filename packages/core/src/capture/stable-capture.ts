import { CancelledError, throwIfAborted } from '../errors.js';
import { scaledMs } from '../time.js';
import type { Capture, CaptureTarget, Frame, Imaging } from '../contracts/capture.js';

export interface StableCaptureOptions {
  signal?: AbortSignal;
  /** Pause between captures, default 150 ms. */
  intervalMs?: number;
  /** Give up and return the last frame after this long, default 2000 ms times the time scale. */
  timeoutMs?: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new CancelledError());
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Pixels comparable across frames: raw as is, encoded frames decoded through the imaging pipeline. */
async function pixels(frame: Frame, imaging: Imaging): Promise<Buffer> {
  return frame.encoded ? (await imaging.raw(frame)).data : frame.data;
}

function sameShape(a: Frame, b: Frame): boolean {
  return a.width === b.width && a.height === b.height;
}

/**
 * Capture until the screen holds still: re-capture every `intervalMs` until two
 * consecutive frames are pixel-identical (`stable: true`), or return the last
 * frame when `timeoutMs` runs out (`stable: false`). Raw pixel buffers are
 * compared, which is cheaper than encoding and does not depend on the encoder.
 */
export async function stableCapture(
  capture: Capture,
  imaging: Imaging,
  target: CaptureTarget,
  opts: StableCaptureOptions = {},
): Promise<{ frame: Frame; stable: boolean }> {
  const interval = opts.intervalMs ?? 150;
  const deadline = Date.now() + (opts.timeoutMs ?? scaledMs(2000));
  let prev = await capture.capture(target, opts.signal);
  let prevPx = await pixels(prev, imaging);
  while (Date.now() + interval < deadline) {
    await sleep(interval, opts.signal);
    throwIfAborted(opts.signal);
    const cur = await capture.capture(target, opts.signal);
    const curPx = await pixels(cur, imaging);
    if (sameShape(prev, cur) && curPx.equals(prevPx)) return { frame: cur, stable: true };
    prev = cur;
    prevPx = curPx;
  }
  return { frame: prev, stable: false };
}
