import { EventHub, HypruseError, scaledMs, type EventQueue, type Logger } from '@hypruse/core';
import type { NiriIpcClient } from '../ipc/niri-ipc-client.js';
import { NiriReplica } from './niri-replica.js';

/** Deadline for connecting and receiving the initial state burst. */
const SYNC_TIMEOUT_MS = 3000;

/**
 * niri's event stream through the kit's EventHub: one connection kept while
 * anything subscribes, feeding the replica. A reconnect re-syncs the replica
 * from the new initial burst: subscribers get the kit's `resync` event, then
 * the events the burst's diff produces (what was missed).
 */
export class NiriEventHub {
  readonly replica = new NiriReplica();
  private readonly hub: EventHub;

  constructor(ipc: NiriIpcClient, logger?: Logger) {
    const replica = this.replica;
    this.hub = new EventHub({
      peer: 'niri',
      reset: () => replica.reset(),
      async open(emit, dropped) {
        const timeoutMs = scaledMs(SYNC_TIMEOUT_MS);
        replica.beginSync();
        let synced!: () => void;
        const burst = new Promise<void>((r) => (synced = r));
        const [outputs, stream] = await Promise.all([
          ipc.outputs({ timeoutMs }),
          ipc.openEventStream(
            {
              onEvent: (ev) => {
                try {
                  emit(replica.apply(ev));
                } catch (e) {
                  logger?.warn(`niri event ${Object.keys(ev)[0]} has an unexpected shape (${(e as Error).message}); re-syncing`);
                  dropped(new HypruseError('error.events', `niri sent a malformed ${Object.keys(ev)[0]} event`));
                  return;
                }
                if (replica.synced) synced();
              },
              onClose: (err) => err && dropped(err),
            },
            { timeoutMs },
          ),
        ]).catch((e: unknown) => {
          throw e instanceof HypruseError ? e : new HypruseError('error.events', String(e));
        });
        replica.setOutputs(outputs);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new HypruseError('error.events', `niri sent no initial state on its event stream within ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          await Promise.race([burst, late]);
        } catch (e) {
          stream.close();
          throw e;
        } finally {
          clearTimeout(timer);
        }
        return stream;
      },
    });
  }

  /** A new subscription; resolves once the stream is live and the replica is in sync. */
  subscribe(): Promise<EventQueue> {
    return this.hub.subscribe();
  }

  get live(): boolean {
    return this.hub.connected && this.replica.synced;
  }

  /** Close the connection for good; current subscribers get `error.events`. */
  dispose(): void {
    this.hub.dispose();
  }
}
