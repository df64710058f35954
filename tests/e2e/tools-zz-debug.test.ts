import { it, expect } from 'vitest';
import sharp from 'sharp';
import { requireDesktop } from '../support/desktop.js';
import { startServer } from '../support/server.js';
const desk = await requireDesktop({ reset: false });
async function diff(p: string, q: string) {
  const [a, b] = await Promise.all([p, q].map((f) => sharp(f).removeAlpha().raw().toBuffer({ resolveWithObject: true })));
  let n = 0; let minx = 1e9, miny = 1e9, maxx = -1, maxy = -1; const w = a.info.width;
  for (let i = 0; i < a.data.length; i += 3) if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) { n++; const px = i / 3; const x = px % w, y = Math.floor(px / w); minx = Math.min(minx, x); maxx = Math.max(maxx, x); miny = Math.min(miny, y); maxy = Math.max(maxy, y); }
  return [n, minx, miny, maxx, maxy];
}
it('debug', async () => {
  const s = await startServer(desk!.env, { HYPRUSE_CONFIG: '/tmp/e2e-explore/hypruse.json' });
  const a = await s.call('screenshot', { monitor: 'HEADLESS-1', lossless: true });
  const c = await s.call('pointer', { action: 'click', x: 69, y: 403 });
  await new Promise((r) => setTimeout(r, 500));
  const b = await s.call('screenshot', { monitor: 'HEADLESS-1', lossless: true });
  console.log(a.data.path, b.data.path, c.text, a.data.source, await diff(a.data.path as string, b.data.path as string));
  await s.close();
}, 60000);
