import type net from 'node:net';
import { HypruseError, connectUnix, scaledMs, type EventSource, type StreamConnection } from '@hypruse/core';
import { normalizeSwayEvent } from '../events/normalize.js';
import { encodeFrame, FrameDecoder } from './codec.js';
import { eventName, isEvent, SwayMessage, type SwayEventName } from './message-types.js';
import { SOCKET_HINT } from './sway-ipc-client.js';

export interface SwayEventOptions {
  socketPath: string;
  events: readonly SwayEventName[];
  /** Subscribed one by one after `events`; a sway that does not know one (sway 1.7 has no `output` event) refuses only that one. */
  optionalEvents?: readonly SwayEventName[];
}

export interface SwayEventConnection extends StreamConnection {
  /** Optional events sway accepted. */
  readonly optionalAccepted: ReadonlySet<SwayEventName>;
}

const PEER = { name: 'sway', hint: SOCKET_HINT };

/**
 * A dedicated i3-ipc connection carrying SUBSCRIBE events (subscriptions are
 * per connection in sway); resolves once sway confirmed the subscription.
 */
export async function openSwayEvents(
  opts: SwayEventOptions,
  onEvent: (name: SwayEventName, payload: unknown) => void,
  dropped: (why: HypruseError) => void,
): Promise<SwayEventConnection> {
  const sock: net.Socket = await connectUnix(opts.socketPath, PEER, { code: 'error.events' });
  const decoder = new FrameDecoder();
  const optionalQueue = [...(opts.optionalEvents ?? [])];
  const optionalAccepted = new Set<SwayEventName>();
  let closed = false;
  const subscribed = new Promise<void>((resolve, reject) => {
    let confirmed = false;
    const subscribeMs = scaledMs(2000);
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new HypruseError('error.events', `sway did not confirm the event subscription within ${subscribeMs} ms`, { hint: SOCKET_HINT }));
    }, subscribeMs);
    sock.on('data', (chunk: Buffer) => {
      let frames;
      try {
        frames = decoder.push(chunk);
      } catch (err) {
        sock.destroy(err as Error);
        return;
      }
      for (const frame of frames) {
        const text = frame.payload.toString('utf8');
        if (frame.type === SwayMessage.SUBSCRIBE && confirmed) {
          // reply to an optional subscription: remember which ones sway accepted
          const name = optionalQueue.shift();
          if (name && /"success"\s*:\s*true/.test(text)) optionalAccepted.add(name);
          continue;
        }
        if (!confirmed) {
          if (frame.type !== SwayMessage.SUBSCRIBE) continue;
          confirmed = true;
          clearTimeout(timer);
          if (!/"success"\s*:\s*true/.test(text)) {
            sock.destroy();
            reject(new HypruseError('error.events', `sway refused the event subscription ${JSON.stringify(opts.events)}`));
            return;
          }
          resolve();
          continue;
        }
        const name = isEvent(frame.type) ? eventName(frame.type) : null;
        if (!name || closed) continue;
        let payload: unknown;
        try {
          payload = JSON.parse(text);
        } catch {
          continue;
        }
        onEvent(name, payload);
      }
    });
    sock.on('error', () => undefined); // 'close' follows
    sock.on('close', () => {
      clearTimeout(timer);
      if (!confirmed) reject(new HypruseError('error.events', 'the sway IPC socket closed before the event subscription was confirmed', { hint: SOCKET_HINT }));
      else if (!closed) dropped(new HypruseError('error.events', 'the sway event connection closed', { hint: SOCKET_HINT }));
    });
  });
  sock.write(encodeFrame(SwayMessage.SUBSCRIBE, JSON.stringify(opts.events)));
  for (const name of optionalQueue) sock.write(encodeFrame(SwayMessage.SUBSCRIBE, JSON.stringify([name])));
  await subscribed;
  return {
    optionalAccepted,
    close: () => {
      closed = true;
      sock.destroy();
    },
  };
}

/** sway's events for the kit's EventHub: normalized, one connection per subscription. */
export function swayEventSource(opts: SwayEventOptions): EventSource {
  return {
    peer: 'sway',
    open: (emit, dropped) => openSwayEvents(opts, (name, payload) => emit(normalizeSwayEvent(name, payload)), dropped),
  };
}
