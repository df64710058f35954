import { StringDecoder } from 'node:string_decoder';

/** Splits a byte stream into `\n`-terminated lines (UTF-8 safe across chunk boundaries). */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  /** Feed a chunk; returns the complete lines it finished (without the newline). */
  push(chunk: Buffer | string): string[] {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: string[] = [];
    let nl = this.pending.indexOf('\n');
    while (nl !== -1) {
      lines.push(this.pending.slice(0, nl));
      this.pending = this.pending.slice(nl + 1);
      nl = this.pending.indexOf('\n');
    }
    return lines;
  }

  /** Bytes received after the last newline. */
  get rest(): string {
    return this.pending;
  }
}
