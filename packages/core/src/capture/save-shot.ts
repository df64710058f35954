import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HypruseError } from '../errors.js';
import type { EncodedImage } from '../contracts/capture.js';
import { createExclusive, ensurePrivateDir } from '../private-files.js';

const SHOT_RE = /^shot-\d+-\d+\.(jpg|png)$/;
let seq = 0;

/** `shot-<epoch ms>-<seq>.<jpg|png>`; the 4-digit sequence keeps names of one millisecond in write order when sorted. */
export function shotName(epochMs: number, n: number, format: EncodedImage['format']): string {
  return `shot-${epochMs}-${String(n % 10000).padStart(4, '0')}.${format === 'jpeg' ? 'jpg' : 'png'}`;
}

/** Delete all but the newest `keep` shot files (name order = time order). Returns the deleted names. */
export async function pruneShots(dir: string, keep: number): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => SHOT_RE.test(n)).sort();
  const drop = names.slice(0, Math.max(0, names.length - keep));
  await Promise.all(
    drop.map((n) =>
      unlink(join(dir, n)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      }),
    ),
  );
  return drop;
}

/**
 * File mode of the screenshot tool: write the image to
 * `<runtimeDir>/hypruse/shot-<epoch ms>-<seq>.<jpg|png>` (dir 0700, file 0600)
 * and keep only the newest `keep` shots. Returns the absolute path.
 */
export async function saveShot(runtimeDir: string, image: EncodedImage, keep = 20): Promise<string> {
  const dir = join(runtimeDir, 'hypruse');
  try {
    ensurePrivateDir(dir);
    for (let attempt = 0; ; attempt++) {
      const path = join(dir, shotName(Date.now(), seq++, image.format));
      try {
        await createExclusive(path, image.data);
        await pruneShots(dir, Math.max(1, keep));
        return path;
      } catch (e) {
        // Another hypruse process wrote the same name in the same millisecond: take the next number.
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 20) throw e;
      }
    }
  } catch (e) {
    if (e instanceof HypruseError) throw e;
    throw new HypruseError('error.capture', `could not save the screenshot in ${dir}: ${e instanceof Error ? e.message : String(e)}`, {
      hint: 'Check that XDG_RUNTIME_DIR exists and is writable, or use image mode.',
      cause: e,
    });
  }
}
