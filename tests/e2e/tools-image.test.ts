// Screenshot delivery through the MCP tools: image mode honours the host's
// limits (long edge, bytes) and folds the downscale into `scale`; file mode
// keeps at most 20 shots. The returned bytes are decoded independently with
// sharp, and the shot directory is listed directly.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchFixture, requireDesktop } from '../support/desktop.js';
import { startServer, type Server } from '../support/server.js';
import { slowA11yConfig, type Meta } from '../support/tools.js';


const desk = await requireDesktop();

type Content = Array<{ type: string; data?: string; mimeType?: string; text?: string }>;

const EDGE = 800;
const BYTES = 60000;

describe.skipIf(!desk)('image mode limits and file mode retention', () => {
  let image: Server;
  let file: Server;

  beforeAll(async () => {
    // busy content on both monitors, so the byte budget really bites
    await launchFixture('widget-factory', { workspace: '1' });
    await launchFixture('widget-factory', { workspace: '2' });
    const config = slowA11yConfig();
    image = await startServer(desk!.env, {
      HYPRUSE_CONFIG: config,
      HYPRUSE_SCREENSHOT_MODE: 'image',
      HYPRUSE_MAX_IMAGE_EDGE: String(EDGE),
      HYPRUSE_MAX_IMAGE_BYTES: String(BYTES),
    });
    file = await startServer(desk!.env, { HYPRUSE_CONFIG: config });
  }, 90000);

  afterAll(async () => {
    await image?.close();
    await file?.close();
  });

  async function inline(args: Record<string, unknown>): Promise<{ meta: Meta; bytes: Buffer; mime: string; width: number; height: number; format: string }> {
    const r = await image.call('screenshot', args);
    expect(r.isError, r.text.join('\n')).toBe(false);
    const content = (r.raw as { content: Content }).content;
    const img = content.filter((c) => c.type === 'image');
    expect(img).toHaveLength(1);
    const bytes = Buffer.from(img[0].data!, 'base64');
    const sharp = (await import('sharp')).default;
    const info = await sharp(bytes).metadata();
    const meta = r.data as unknown as Meta;
    expect(meta.path).toBeUndefined();
    return { meta, bytes, mime: img[0].mimeType!, width: info.width!, height: info.height!, format: info.format! };
  }

  for (const m of [
    { monitor: 'HEADLESS-1', logical: [1280, 800], geometry: [0, 0, 1280, 800] },
    { monitor: 'HEADLESS-2', logical: [1280, 720], geometry: [1280, 0, 1280, 720] },
  ]) {
    it(`${m.monitor}: the inline image fits ${EDGE} px and ${BYTES} bytes, and scale = image width / logical width`, async () => {
      for (const lossless of [false, true]) {
        const s = await inline({ monitor: m.monitor, lossless });
        expect(s.bytes.length).toBeLessThanOrEqual(BYTES);
        expect(Math.max(s.width, s.height)).toBeLessThanOrEqual(EDGE);
        // the metadata describes the bytes actually returned
        expect(s.meta.image).toEqual([s.width, s.height]);
        expect(s.mime).toBe(`image/${s.format === 'jpeg' ? 'jpeg' : 'png'}`);
        expect(s.meta.format).toBe(s.format === 'jpeg' ? 'jpeg' : 'png');
        expect(s.meta.geometry).toEqual(m.geometry);
        expect(s.meta.scale).toBeCloseTo(s.width / m.logical[0], 5);
        expect(s.meta.scale).toBeCloseTo(s.height / m.logical[1], 2);
        expect(s.meta.scale).toBeLessThan(1);
      }
    }, 60000);
  }

  it('a tighter byte budget (20000) lowers the resolution too, and scale still maps the returned pixels', async () => {
    const tight = await startServer(desk!.env, {
      HYPRUSE_SCREENSHOT_MODE: 'image',
      HYPRUSE_MAX_IMAGE_EDGE: String(EDGE),
      HYPRUSE_MAX_IMAGE_BYTES: '20000',
    });
    try {
      const r = await tight.call('screenshot', { monitor: 'HEADLESS-1' });
      expect(r.isError, r.text.join('\n')).toBe(false);
      const img = (r.raw as { content: Content }).content.find((c) => c.type === 'image')!;
      const bytes = Buffer.from(img.data!, 'base64');
      expect(bytes.length).toBeLessThanOrEqual(20000);
      const sharp = (await import('sharp')).default;
      const info = await sharp(bytes).metadata();
      const meta = r.data as unknown as Meta;
      expect(meta.image).toEqual([info.width, info.height]);
      expect(info.width!).toBeLessThan(EDGE);
      expect(meta.scale).toBeCloseTo(info.width! / 1280, 5);
    } finally {
      await tight.close();
    }
  }, 60000);

  it('an explicit scale out of range is a usage error and no image is returned', async () => {
    for (const scale of [1.5, -0.2, 0.01]) {
      const r = await image.call('screenshot', { monitor: 'HEADLESS-1', scale });
      expect(r.isError).toBe(true);
      expect(r.text[0]).toMatch(/^usage: /);
      expect((r.raw as { content: Content }).content.some((c) => c.type === 'image')).toBe(false);
    }
  });

  it('an explicit scale is honoured within the limits (0.25 of HEADLESS-1 is 320x200)', async () => {
    const s = await inline({ monitor: 'HEADLESS-1', scale: 0.25 });
    expect([s.width, s.height]).toEqual([320, 200]);
    expect(s.meta.scale).toBe(0.25);
  });

  it('file mode keeps at most 20 shot files in $XDG_RUNTIME_DIR/hypruse, the newest ones', async () => {
    const dir = join(desk!.env.XDG_RUNTIME_DIR, 'hypruse');
    const paths: string[] = [];
    for (let i = 0; i < 24; i++) {
      const r = await file.call('screenshot', { region: `${10 + i},10,40x30` });
      expect(r.isError, r.text.join('\n')).toBe(false);
      const meta = r.data as unknown as Meta;
      expect(meta.path!.startsWith(`${dir}/shot-`)).toBe(true);
      expect(r.text[0]).toBe(`screenshot saved, read this file to view the screen: ${meta.path}`);
      expect(meta.image).toEqual([40, 30]);
      paths.push(meta.path!);
    }
    const shots = readdirSync(dir).filter((f) => f.startsWith('shot-'));
    expect(shots.length).toBeLessThanOrEqual(20);
    expect(new Set(paths).size).toBe(24);
    // the newest 20 survive, the oldest 4 are gone
    for (const p of paths.slice(-20)) expect(existsSync(p), p).toBe(true);
    for (const p of paths.slice(0, 4)) expect(existsSync(p), p).toBe(false);
  }, 60000);
});
