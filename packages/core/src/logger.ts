import { escapeControlChars } from './text.js';

/** Logs go to stderr only: stdout belongs to JSON-RPC on the MCP path. */
export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export function stderrLogger(level: 'debug' | 'info' | 'warn' | 'error' = (process.env.HYPRUSE_LOG as 'debug') ?? 'warn'): Logger {
  const order = { debug: 0, info: 1, warn: 2, error: 3 };
  const min = order[level] ?? 2;
  const out = (lvl: keyof typeof order) => (msg: string) => {
    if (order[lvl] >= min) process.stderr.write(`hypruse ${lvl}: ${escapeControlChars(msg, '\n\t')}\n`);
  };
  return { debug: out('debug'), info: out('info'), warn: out('warn'), error: out('error') };
}
