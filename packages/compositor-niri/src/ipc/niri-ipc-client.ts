import { createConnection, type Socket } from 'node:net';
import { CONNECT_TIMEOUT_MS, CancelledError, HypruseError, LineSplitter, scaledMs, unixRequest } from '@hypruse/core';
import { ShapeError, asArray, asLayer, asOutputs, asWindow, asWorkspace, isObj, responseBody } from './shapes.js';
import type { NiriEvent, NiriLayerSurface, NiriOutput, NiriRequest, NiriWindow, NiriWorkspace } from './types.js';
import { requestName } from './types.js';

export interface NiriRequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface NiriEventStreamHandlers {
  /** One parsed event line. */
  onEvent(event: NiriEvent): void;
  /** The stream ended: `null` when closed by us, else why it died. */
  onClose(error: HypruseError | null): void;
}

export interface NiriEventStream {
  close(): void;
}

const HINT = 'Is niri running in this session? NIRI_SOCKET must point at its socket ($XDG_RUNTIME_DIR/niri.<display>.<pid>.sock).';
const PEER = { name: 'niri', hint: HINT };

/**
 * niri's JSON IPC: one connection per request (`"Request"\n` → one reply
 * line `{"Ok":…}` / `{"Err":"…"}`), and `"EventStream"` connections that keep
 * delivering one event per line after the `Handled` reply. Every call has a
 * deadline and honours an AbortSignal.
 */
export class NiriIpcClient {
  constructor(
    readonly socketPath: string,
    /** Base deadline per request, scaled (default: the kit's one policy). */
    private readonly defaultTimeoutMs?: number,
  ) {}

  /** Send one request; resolves to the `Ok` payload, throws a typed error carrying niri's `Err` text. */
  async request(req: NiriRequest, opts: NiriRequestOptions = {}): Promise<unknown> {
    const name = requestName(req);
    const reply = await unixRequest(this.socketPath, `${JSON.stringify(req)}\n`, PEER, {
      what: name,
      timeoutMs: opts.timeoutMs ?? (this.defaultTimeoutMs ? scaledMs(this.defaultTimeoutMs) : undefined),
      signal: opts.signal,
      complete: (buf) => buf.indexOf(10),
    });
    return parseReply(reply.toString('utf8'), name);
  }

  /** Open an event stream; resolves once niri answered `Handled` (subscribed on the wire). */
  openEventStream(handlers: NiriEventStreamHandlers, opts: NiriRequestOptions = {}): Promise<NiriEventStream> {
    const timeoutMs = opts.timeoutMs ?? scaledMs(CONNECT_TIMEOUT_MS);
    return new Promise<NiriEventStream>((resolve, reject) => {
      if (opts.signal?.aborted) return reject(new CancelledError('niri EventStream cancelled'));
      const sock: Socket = createConnection(this.socketPath);
      const splitter = new LineSplitter();
      let state: 'handshake' | 'live' | 'closed' = 'handshake';
      const stream: NiriEventStream = {
        close: () => end(null),
      };
      const end = (err: HypruseError | null) => {
        const was = state;
        if (was === 'closed') return;
        state = 'closed';
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        sock.destroy();
        if (was === 'handshake') reject(err ?? new CancelledError('niri EventStream closed'));
        else handlers.onClose(err);
      };
      const onAbort = () => end(new CancelledError('niri EventStream cancelled'));
      const timer = setTimeout(
        () => end(new HypruseError('error.events', `niri did not acknowledge EventStream within ${timeoutMs} ms`, { hint: HINT })),
        timeoutMs,
      );
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      sock.on('connect', () => sock.write('"EventStream"\n'));
      sock.on('data', (chunk) => {
        for (const line of splitter.push(chunk)) {
          if (state === 'closed') return;
          if (state === 'handshake') {
            try {
              const ok = parseReply(line, 'EventStream');
              if (ok !== 'Handled') throw new ShapeError(`expected Handled, got ${JSON.stringify(ok).slice(0, 80)}`);
            } catch (e) {
              end(toEventsError(e));
              return;
            }
            state = 'live';
            clearTimeout(timer);
            opts.signal?.removeEventListener('abort', onAbort);
            resolve(stream);
            continue;
          }
          if (line.trim() === '') continue;
          let event: unknown;
          try {
            event = JSON.parse(line);
          } catch {
            end(new HypruseError('error.events', `niri sent an unparsable event line: ${line.slice(0, 120)}`, { hint: 'The event stream is re-established and re-synced.' }));
            return;
          }
          if (!isObj(event) || Object.keys(event).length !== 1) {
            end(new HypruseError('error.events', `niri sent an event that is not {"Variant":{…}}: ${line.slice(0, 120)}`));
            return;
          }
          handlers.onEvent(event as NiriEvent);
        }
      });
      sock.on('error', (e: NodeJS.ErrnoException) => end(toEventsError(connectError(this.socketPath, 'EventStream', e))));
      sock.on('close', () => end(new HypruseError('error.events', 'the niri event stream closed', { hint: HINT })));
    });
  }

  // ---- typed helpers -------------------------------------------------------

  async version(opts?: NiriRequestOptions): Promise<string> {
    return String(body(await this.request('Version', opts), 'Version', (v) => v));
  }

  async outputs(opts?: NiriRequestOptions): Promise<Record<string, NiriOutput>> {
    return body(await this.request('Outputs', opts), 'Outputs', asOutputs);
  }

  async workspaces(opts?: NiriRequestOptions): Promise<NiriWorkspace[]> {
    return body(await this.request('Workspaces', opts), 'Workspaces', (v) => asArray(v, 'Workspaces', asWorkspace));
  }

  async windows(opts?: NiriRequestOptions): Promise<NiriWindow[]> {
    return body(await this.request('Windows', opts), 'Windows', (v) => asArray(v, 'Windows', asWindow));
  }

  async layers(opts?: NiriRequestOptions): Promise<NiriLayerSurface[]> {
    return body(await this.request('Layers', opts), 'Layers', (v) => asArray(v, 'Layers', asLayer));
  }

  async focusedWindow(opts?: NiriRequestOptions): Promise<NiriWindow | null> {
    return body(await this.request('FocusedWindow', opts), 'FocusedWindow', (v) => (v === null ? null : asWindow(v)));
  }

  /** Run an action; niri answers `Handled`. */
  async action(action: Record<string, unknown>, opts?: NiriRequestOptions): Promise<void> {
    const req: NiriRequest = { Action: action };
    const ok = await this.request(req, opts);
    if (ok !== 'Handled') {
      throw new HypruseError('error.compositor', `niri answered ${requestName(req)} with ${JSON.stringify(ok).slice(0, 120)} instead of Handled`);
    }
  }
}

function body<T>(ok: unknown, variant: string, parse: (v: unknown) => T): T {
  try {
    return parse(responseBody(ok, variant));
  } catch (e) {
    throw new HypruseError('error.compositor', `niri's ${variant} reply has an unexpected shape: ${(e as Error).message}`, {
      hint: 'This niri version may be incompatible with this hypruse version.',
    });
  }
}

/** Parse one reply line: `{"Ok": x}` → x; `{"Err": "text"}` → typed error with niri's text. */
export function parseReply(line: string, name: string): unknown {
  let reply: unknown;
  try {
    reply = JSON.parse(line);
  } catch {
    throw new HypruseError('error.compositor', `niri sent an unparsable reply to ${name}: ${line.slice(0, 120)}`, {
      hint: 'NIRI_SOCKET may point at something that is not niri.',
    });
  }
  if (isObj(reply) && 'Ok' in reply) return reply.Ok;
  if (isObj(reply) && 'Err' in reply) {
    const text = String(reply.Err);
    throw new HypruseError('error.compositor', `niri refused ${name}: ${text}`, { data: { niri: text, request: name } });
  }
  throw new HypruseError('error.compositor', `niri's reply to ${name} is neither Ok nor Err: ${line.slice(0, 120)}`);
}

function connectError(path: string, name: string, e: NodeJS.ErrnoException): HypruseError {
  const code = e.code ?? 'error';
  if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ENOTSOCK') {
    return new HypruseError('error.compositor', `cannot connect to niri at ${path} (${code}) for ${name}`, { hint: HINT, cause: e });
  }
  if (code === 'EPIPE' || code === 'ECONNRESET') {
    return new HypruseError('error.ipc_closed', `niri reset the connection during ${name} (${code})`, { hint: HINT, cause: e });
  }
  return new HypruseError('error.compositor', `niri IPC failed during ${name}: ${e.message}`, { hint: HINT, cause: e });
}

function toEventsError(e: unknown): HypruseError {
  if (e instanceof HypruseError && e.code === 'error.events') return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new HypruseError('error.events', `the niri event stream is unavailable: ${msg}`, { hint: HINT, cause: e });
}
