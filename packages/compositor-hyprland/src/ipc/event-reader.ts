import { EventHub, HypruseError, LineSplitter, connectUnix, type DesktopEvent, type EventQueue } from '@hypruse/core';
import { parseEventLine, toDesktopEvent, type RawHyprlandEvent } from '../events/parse-event.js';

/** A line longer than this is not Hyprland (DATA is truncated to 1024 chars). */
const MAX_LINE = 64 * 1024;
const PEER = { name: "Hyprland's event socket", hint: 'Is Hyprland running? Without the event stream, close/launch cannot be confirmed.' };

/**
 * `.socket2.sock` through the kit's EventHub: one connection, kept and drained
 * continuously (Hyprland disconnects a client that falls 64 events behind).
 * `fullscreen>>0|1` names no window and is also sent for a maximize:
 * `resolveFullscreen` reads the state and returns what really changed; events
 * after it wait, so the order holds.
 */
export class HyprlandEventReader {
  /** The last raw socket2 events, in arrival order (diagnostics and tests). */
  readonly raw: RawHyprlandEvent[] = [];
  private readonly hub: EventHub;

  constructor(
    readonly socketPath: string,
    resolveFullscreen?: (raw: RawHyprlandEvent) => Promise<DesktopEvent[]>,
  ) {
    this.hub = new EventHub({
      peer: 'Hyprland',
      keepAlive: true,
      maxBuffered: 10000,
      open: async (emit, dropped) => {
        const sock = await connectUnix(socketPath, PEER, { code: 'error.events' });
        sock.unref();
        const lines = new LineSplitter(MAX_LINE);
        let pending: Promise<void> | null = null;
        sock.on('data', (chunk: Buffer) => {
          for (const line of lines.push(chunk)) {
            const raw = parseEventLine(line);
            if (!raw) continue;
            this.raw.push(raw);
            if (this.raw.length > 1024) this.raw.shift();
            const resolve = raw.name === 'fullscreen' ? resolveFullscreen : undefined;
            if (!resolve && !pending) {
              emit([toDesktopEvent(raw)]);
              continue;
            }
            const p: Promise<void> = (pending ?? Promise.resolve())
              // an unreadable state gives the raw event as `other`: it is not claimed to be fullscreen
              .then(async () => emit(resolve ? await resolve(raw).catch((): DesktopEvent[] => [{ type: 'other', name: raw.name, data: raw.data }]) : [toDesktopEvent(raw)]))
              .finally(() => {
                if (pending === p) pending = null;
              });
            pending = p;
          }
        });
        sock.on('error', () => undefined); // 'close' follows
        sock.on('close', () => dropped(new HypruseError('error.events', "Hyprland's event socket closed")));
        return { close: () => sock.destroy() };
      },
    });
  }

  get connected(): boolean {
    return this.hub.connected;
  }

  /** Times the connection dropped and was re-established. */
  get reconnects(): number {
    return this.hub.reconnects;
  }

  subscribe(): Promise<EventQueue> {
    return this.hub.subscribe();
  }

  /** Close the socket, as Hyprland does to a slow client (tests and recovery). */
  dropForTest(): void {
    this.hub.dropForTest();
  }

  dispose(): void {
    this.hub.dispose();
  }
}
