import { afterEach, describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig, parseTimeScale, resetTimeScale, scaledMs, setTimeScale, slowMachineHint, timeScale } from '../src/index.js';

afterEach(() => resetTimeScale());

describe('time policy', () => {
  it('scales every base ceiling by one factor, configured or from HYPRUSE_TIME_SCALE before any config', () => {
    expect(scaledMs(2000, {})).toBe(2000);
    expect(timeScale({ HYPRUSE_TIME_SCALE: '8' })).toBe(8);
    expect(scaledMs(2000, { HYPRUSE_TIME_SCALE: '2.5' })).toBe(5000);
    // a junk value does not silently change the timing before the config check reports it
    expect(scaledMs(2000, { HYPRUSE_TIME_SCALE: 'fast' })).toBe(2000);
    setTimeScale(10);
    expect(scaledMs(3000, { HYPRUSE_TIME_SCALE: '2' })).toBe(30000);
    expect(slowMachineHint()).toMatch(/slower than HYPRUSE_TIME_SCALE=10 allows/);
    expect(() => setTimeScale(0)).toThrow(RangeError);
  });

  it('parses only plain numbers in 0.1..100', () => {
    expect(parseTimeScale('4')).toBe(4);
    expect(parseTimeScale(' .5 ')).toBe(0.5);
    expect(parseTimeScale('0.05')).toBeNull();
    expect(parseTimeScale('101')).toBeNull();
    expect(parseTimeScale('1e2')).toBeNull();
    expect(parseTimeScale('-3')).toBeNull();
  });

  it('is a config key (timeScale) that HYPRUSE_TIME_SCALE overrides, with a clear error for bad values', async () => {
    expect(ConfigSchema.parse({}).timeScale).toBe(1);
    const loaded = await loadConfig({ env: { HYPRUSE_TIME_SCALE: '12' }, noFile: true });
    expect(loaded.config.timeScale).toBe(12);
    await expect(loadConfig({ env: { HYPRUSE_TIME_SCALE: 'slow' }, noFile: true })).rejects.toThrow(/HYPRUSE_TIME_SCALE="slow" is not a number from 0.1 to 100/);
    expect(() => ConfigSchema.parse({ timeScale: 500 })).toThrow();
  });
});
