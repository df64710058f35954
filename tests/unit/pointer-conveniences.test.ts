// pointer conveniences over the real pipeline with in-memory backends: modifiers held around the
// click and released in reverse order also when the click fails, triple click, and image_x/image_y
// converted through the last screenshot's transform (the fake capture honours geometry and scale).
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeSession, type FakeSession } from '../support/fake-session.js';

process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'hypruse-ptr-'));

let session: FakeSession | null = null;
afterEach(async () => {
  await session?.dispose();
  session = null;
});

describe('pointer modifiers', () => {
  it('presses the modifiers in order after the cursor move, releases them in reverse after the click', async () => {
    session = await fakeSession();
    const r = await session.pipeline.call('pointer', { action: 'click', x: 150, y: 160, modifiers: ['ctrl', 'shift'] });
    expect(r.text[0]).toBe('click holding ctrl+shift ok; cursor now at (150, 160)');
    expect(session.fake.compositor.actions.at(-1)).toBe('cursor 150,160');
    expect(session.fake.input.delivered).toEqual(['press ctrl', 'press shift', 'click left x1', 'release shift', 'release ctrl']);
  });

  it('releases them in reverse order when the click fails', async () => {
    session = await fakeSession();
    const input = session.fake.input;
    input.click = async () => {
      input.delivered.push('click failed');
      throw new Error('the compositor went away');
    };
    await expect(session.pipeline.call('pointer', { action: 'click', x: 150, y: 160, modifiers: ['super', 'alt'] })).rejects.toThrow(/went away/);
    expect(input.delivered).toEqual(['press logo', 'press alt', 'click failed', 'release alt', 'release logo']);
  });

  it('accepts aliases and a "ctrl+shift" string, refuses unknown or repeated names before anything moves', async () => {
    session = await fakeSession();
    await session.pipeline.call('pointer', { action: 'scroll', x: 150, y: 160, scroll_dy: 2, modifiers: ['Control+Shift'] });
    expect(session.fake.input.delivered).toEqual(['press ctrl', 'press shift', 'scroll 0,2', 'release shift', 'release ctrl']);
    const before = session.fake.compositor.actions.length;
    await expect(session.pipeline.call('pointer', { action: 'click', x: 150, y: 160, modifiers: ['hyper'] })).rejects.toThrow(/modifier "hyper" is not one of ctrl, shift, alt, super/);
    await expect(session.pipeline.call('pointer', { action: 'click', x: 150, y: 160, modifiers: ['ctrl', 'control'] })).rejects.toThrow(/given twice/);
    await expect(session.pipeline.call('pointer', { action: 'move', x: 150, y: 160, modifiers: ['ctrl'] })).rejects.toThrow(/modifiers are for click, scroll and drag/);
    expect(session.fake.compositor.actions.length).toBe(before);
  });

  it('a drag holds the modifiers around the press and release', async () => {
    session = await fakeSession();
    await session.pipeline.call('pointer', { action: 'drag', x: 150, y: 160, to_x: 200, to_y: 160, modifiers: ['shift'] });
    const d = session.fake.input.delivered;
    expect(d[0]).toBe('press shift');
    expect(d[1]).toBe('press left');
    expect(d.at(-2)).toBe('release left');
    expect(d.at(-1)).toBe('release shift');
  });
});

describe('triple click', () => {
  it('clicks three times; double and triple together are refused', async () => {
    session = await fakeSession();
    const r = await session.pipeline.call('pointer', { action: 'click', x: 150, y: 160, triple: true });
    expect(r.text[0]).toBe('triple click ok; cursor now at (150, 160)');
    expect(session.fake.input.delivered).toEqual(['click left x3']);
    await expect(session.pipeline.call('pointer', { action: 'click', x: 150, y: 160, triple: true, double: true })).rejects.toThrow(/double or triple, not both/);
    await expect(session.pipeline.call('pointer', { action: 'scroll', scroll_dy: 1, triple: true })).rejects.toThrow(/triple is only for click/);
  });
});

describe('image_x/image_y', () => {
  it('needs a screenshot first', async () => {
    session = await fakeSession();
    await expect(session.pipeline.call('pointer', { action: 'click', image_x: 10, image_y: 10 })).rejects.toThrow(/pixels of the last screenshot, but this session has taken none/);
    expect(session.fake.input.delivered).toEqual([]);
  });

  it('converts pixels of a scaled monitor screenshot: global = geometry[:2] + pixel / scale', async () => {
    session = await fakeSession();
    // M2 is 1280x720 logical at 1280,0 with scale 1.5: its image is 1920x1080
    const shot = await session.pipeline.call('screenshot', { monitor: 'M2' });
    expect(shot.data).toMatchObject({ geometry: [1280, 0, 1280, 720], scale: 1.5, image: [1920, 1080] });
    const r = await session.pipeline.call('pointer', { action: 'click', image_x: 300, image_y: 150 });
    expect(session.fake.compositor.actions.at(-1)).toBe('cursor 1480,100');
    expect(r.text[0]).toMatch(/^click ok; cursor now at \(1480, 100\) from pixels of the last monitor image \(origin 1280,0, scale 1\.5\)/);
    await expect(session.pipeline.call('pointer', { action: 'click', image_x: 1921, image_y: 10 })).rejects.toThrow(/outside the last screenshot's image \(1920x1080 pixels\)/);
    await expect(session.pipeline.call('pointer', { action: 'click', image_x: 10, image_y: 10, x: 5, y: 5 })).rejects.toThrow(/either x,y .* or image_x,image_y/);
  });

  it('a window screenshot sets the window the points came from, and a drag converts both ends', async () => {
    session = await fakeSession();
    await session.pipeline.call('screenshot', { window: '11' });
    await session.pipeline.call('pointer', { action: 'drag', image_x: 10, image_y: 20, to_image_x: 110, to_image_y: 20 });
    const cursor = session.fake.compositor.actions.filter((a) => a.startsWith('cursor '));
    expect(cursor.at(-1)).toBe('cursor 110,120');
    expect(session.fake.input.delivered.at(-2)).toBe('abs 210,120');
  });
});
