import { definePlugin, PLUGIN_API_VERSION, Tokens, type CompositorCapability, type HypruseConfig } from '@hypruse/core';
import { toolsPlugin } from '@hypruse/tools';
import { trustPlugin } from '@hypruse/trust';
import { createSession, type Session } from 'hypruse';
import { FakeAccessibility, FakeCapture, FakeClipboard, FakeCompositor, FakeImaging, FakeInput } from './fakes.js';

export interface FakeSession extends Session {
  fake: { compositor: FakeCompositor; input: FakeInput; a11y: FakeAccessibility; clipboard: FakeClipboard };
}

/** A real session (container, tools, trust layers, pipeline) over in-memory backends. */
export async function fakeSession(overrides: Partial<HypruseConfig> = {}, caps?: CompositorCapability[]): Promise<FakeSession> {
  const compositor = new FakeCompositor(caps);
  const input = new FakeInput();
  const a11y = new FakeAccessibility();
  const clipboard = new FakeClipboard();
  const fakes = definePlugin({
    name: 'fakes',
    apiVersion: PLUGIN_API_VERSION,
    register(c) {
      c.register(Tokens.CompositorFactory, { useValue: { id: 'fake', detect: () => ({ ok: true as const, detail: 'fake' }), create: () => compositor } });
      c.register(Tokens.Input, { useValue: input });
      c.register(Tokens.Capture, { useValue: new FakeCapture() });
      c.register(Tokens.Imaging, { useValue: new FakeImaging() });
      c.register(Tokens.Accessibility, { useValue: a11y });
      c.register(Tokens.Clipboard, { useValue: clipboard });
    },
  });
  const s = await createSession({
    source: 'mcp',
    noFile: true,
    env: { XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? '/tmp', HOME: process.env.HOME ?? '/tmp' },
    plugins: [fakes, toolsPlugin, trustPlugin],
    overrides: (c) => ({ ...c, authGuard: 'off', ...overrides }),
  });
  return Object.assign(s, { fake: { compositor, input, a11y, clipboard } });
}
