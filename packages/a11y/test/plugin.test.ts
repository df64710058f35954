import { Tokens, defaultConfig, type Accessibility, type HypruseConfig } from '@hypruse/core';
import { container } from 'tsyringe';
import { describe, expect, it } from 'vitest';
import { AtspiAccessibility } from '../src/atspi-accessibility.js';
import { a11yPlugin } from '../src/plugin.js';

describe('a11yPlugin', () => {
  it('registers one lazily connecting AtspiAccessibility per container, configured from a11y.*', async () => {
    const base = defaultConfig();
    const config: HypruseConfig = { ...base, a11y: { ...base.a11y, timeoutMs: 1234, maxNodes: 77 } };
    const c = container.createChildContainer();
    c.register(Tokens.Config, { useValue: config });
    await a11yPlugin.register(c, { config, baseDir: process.cwd() });
    const a = c.resolve<Accessibility>(Tokens.Accessibility);
    expect(a).toBeInstanceOf(AtspiAccessibility);
    expect(c.resolve<Accessibility>(Tokens.Accessibility)).toBe(a);
    expect((a as unknown as { timeoutMs: number }).timeoutMs).toBe(1234);
    expect((a as unknown as { maxNodes: number }).maxNodes).toBe(77);
    const other = container.createChildContainer();
    other.register(Tokens.Config, { useValue: config });
    await a11yPlugin.register(other, { config, baseDir: process.cwd() });
    expect(other.resolve<Accessibility>(Tokens.Accessibility)).not.toBe(a);
    await a.dispose();
  });

  it('reports an unreachable session clearly instead of throwing from describe()', async () => {
    const a = new AtspiAccessibility({ env: {}, timeoutMs: 500 });
    expect(await a.describe()).toMatch(/^AT-SPI unavailable: no D-Bus session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set/);
    await expect(a.apps()).rejects.toMatchObject({ code: 'error.a11y', hint: expect.stringMatching(/DBUS_SESSION_BUS_ADDRESS/) });
    await a.dispose();
  });
});
