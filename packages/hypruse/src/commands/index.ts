import type { Command } from './types.js';
import { serveCommand } from './serve.js';
import { configCommand } from './config.js';

/** Non-tool commands. Each is also listed in `hypruse --help` and the docs. */
export const COMMANDS: Command[] = [serveCommand, configCommand];
export type { Command };
