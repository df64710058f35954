import { HypruseError, scaledMs, unixRequest } from '@hypruse/core';
import { buildBatch, decodeBatch, decodeJsonValues } from './batch.js';

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Hyprland <= 0.56 reads a request in a blocking loop of 1023-byte reads that
 * ends on a short read: a request of exactly k x 1023 bytes blocks its main
 * thread until the client closes its write side. Such a request gets one
 * harmless byte more: an empty flag block (`/cmd`, the form hyprctl itself
 * sends) or, with flags, the first flag twice (`jj/cmd`); inside a batch, the
 * first command is padded.
 */
export function avoidBlockingLength(request: string): string {
  if (Buffer.byteLength(request, 'utf8') % 1023 !== 0) return request;
  const pad = (cmd: string) => {
    const m = /^([a-z]*)\//.exec(cmd);
    if (m && !cmd.slice(0, m[0].length).includes(' ')) return m[1] ? `${m[1][0]}${cmd}` : `/${cmd}`;
    return `/${cmd}`;
  };
  return request.startsWith('[[BATCH]]') ? `[[BATCH]]${pad(request.slice(9))}` : pad(request);
}

/** Hyprland reads a request in reads of this many bytes (HyprCtl.cpp); a shorter one is read whole or not at all. */
const HYPRLAND_READ_BYTES = 1023;

const PEER = { name: 'Hyprland', hint: 'Is Hyprland running in this session? HYPRLAND_INSTANCE_SIGNATURE may point at an old instance.' };

/**
 * Client for Hyprland's request socket (`.socket.sock`): one connection per
 * request; write the request, read until the server closes. Never hangs: every
 * request has a timeout and honours an AbortSignal.
 */
export class HyprlandRequestClient {
  constructor(
    readonly socketPath: string,
    /** Base ceiling per request, scaled by the time policy (default: the kit's one policy). */
    private readonly baseTimeoutMs?: number,
  ) {}

  /**
   * Send one raw request and return the reply text. Sent once more when
   * Hyprland closed the connection before answering a single byte and either
   * - it is a read-only query (`j/...`, or a batch of them), or
   * - Hyprland provably never read it: the kernel reported ECONNRESET (the
   *   server closed with our bytes still unread in its queue) or EPIPE (it
   *   had closed before we wrote), and the request fits Hyprland's first
   *   read (it reads the whole request before acting on any of it).
   * Hyprland accepts a connection, then polls it for at most 5 s: a client
   * whose first write comes later (a stalled event loop on a loaded machine)
   * is dropped unread. A state-changing request that may have been read
   * (the connection ended without a reply) is never repeated.
   */
  async request(command: string, opts: RequestOptions = {}): Promise<string> {
    try {
      return await this.requestOnce(command, opts);
    } catch (err) {
      if (!(err instanceof HypruseError) || err.code !== 'error.ipc_closed' || err.data?.replied || opts.signal?.aborted) throw err;
      const readOnly = /^(\[\[BATCH\]\])?j\/[a-z]+$/.test(command) || /^\[\[BATCH\]\](j\/[a-z]+;)*j\/[a-z]+$/.test(command);
      const unread = err.data?.unread === true && Buffer.byteLength(avoidBlockingLength(command), 'utf8') < HYPRLAND_READ_BYTES;
      if (!readOnly && !unread) throw err;
      return this.requestOnce(command, opts);
    }
  }

  private async requestOnce(command: string, opts: RequestOptions = {}): Promise<string> {
    const reply = await unixRequest(this.socketPath, avoidBlockingLength(command), PEER, { what: command, timeoutMs: opts.timeoutMs ?? (this.baseTimeoutMs ? scaledMs(this.baseTimeoutMs) : undefined), signal: opts.signal });
    return reply.toString('utf8');
  }

  /** A JSON query (`j/` flag added). */
  async json<T = unknown>(command: string, opts?: RequestOptions): Promise<T> {
    const text = await this.request(`j/${command}`, opts);
    const values = decodeJsonValues(text, `j/${command}`);
    if (values.length !== 1) {
      throw new HypruseError('error.compositor', `Hyprland returned ${values.length} JSON values for j/${command}, expected one`, { data: { reply: text.slice(0, 2000) } });
    }
    return values[0] as T;
  }

  /** Several JSON queries in one round trip (each gets the `j/` flag). */
  async batch(commands: readonly string[], opts?: RequestOptions): Promise<unknown[]> {
    const full = commands.map((c) => `j/${c}`);
    const text = await this.request(buildBatch(full), opts);
    return decodeBatch(text, full);
  }

  /** A command whose success reply is the literal `ok` (dispatch, keyword, notify, eval). Returns the reply text. */
  async command(command: string, opts?: RequestOptions): Promise<string> {
    const reply = (await this.request(command, opts)).trim();
    if (reply !== 'ok') {
      throw new HyprlandReplyError(command, reply);
    }
    return reply;
  }
}

/** A dispatch/keyword that Hyprland answered with something other than `ok`. */
export class HyprlandReplyError extends HypruseError {
  constructor(
    readonly command: string,
    readonly reply: string,
  ) {
    super('error.compositor', `Hyprland refused "${short(command)}": ${reply || '(empty reply)'}`, {
      hint: 'The text after the colon is Hyprland\'s own answer.',
      data: { command, reply },
    });
    this.name = 'HyprlandReplyError';
  }
}

function short(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 160 ? `${one.slice(0, 157)}...` : one;
}
