// sway's own event stream, as the desktop tests' independent judge of focus and
// window changes: `swaymsg -m -t subscribe` prints one JSON object a line, one an
// event. One watcher for the background-mode files (background-mode,
// background-tasks and the kit they share).
import { spawn, type ChildProcess } from 'node:child_process';

export interface SwayEvent {
  change: string;
  container?: { id: number; pid?: number; name?: string };
}

export interface SwayWatcher {
  /** Every event since the watcher started (or since `clear`), in order. */
  readonly events: SwayEvent[];
  /** The focus events so far, each as "NAME (pid PID)". */
  focus(): string[];
  /** Forget the events seen so far. */
  clear(): void;
  stop(): void;
}

/**
 * Subscribe to sway's events of the given types (e.g. ["window"], ["window","workspace"]) on
 * the socket given; resolves once the subscription is in place.
 */
export async function watchSway(swaysock: string, types: string[]): Promise<SwayWatcher> {
  const events: SwayEvent[] = [];
  const child: ChildProcess = spawn('swaymsg', ['-s', swaysock, '-r', '-m', '-t', 'subscribe', JSON.stringify(types)], { stdio: ['ignore', 'pipe', 'ignore'] });
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) events.push(JSON.parse(line) as SwayEvent);
    }
  });
  await new Promise((r) => setTimeout(r, 300)); // the subscription is in place
  return {
    events,
    focus: () => events.filter((e) => e.change === 'focus').map((e) => `${e.container?.name} (pid ${e.container?.pid})`),
    clear: () => {
      events.length = 0;
    },
    stop: () => {
      child.kill('SIGTERM');
    },
  };
}
