// The compositor contract suite against the examplewm plugin (docs/plugins.md).
import * as vitest from 'vitest';
import { contractSuite, factoryOf } from 'hypruse/contract';
import plugin from './example-compositor.ts';
import { startExamplewm } from './examplewm-server.mjs';

await contractSuite(vitest, [
  {
    id: 'examplewm',
    async unavailable() {
      return null; // or why it cannot run here: "examplewm is not installed"
    },
    async start() {
      const wm = await startExamplewm();
      const factory = await factoryOf(plugin);
      const compositor = await factory.create({ env: { EXAMPLEWM_SOCKET: wm.socket }, runtimeDir: null });
      return {
        compositor,
        factory,
        async spawnWindow(o) {
          return wm.openWindow(o);
        },
        launchCommand: 'foot', // examplewm cannot launch: the suite checks the typed refusal
        slowLaunchCommand: 'foot',
        spareWorkspace: 'spare',
        dropEvents: null, // no event stream
        openLayer: null, // no layer surfaces listed
        async stop() {
          await compositor.dispose();
          await wm.stop();
        },
      };
    },
  },
]);
