import type { Command } from './types.js';
import { serveCommand } from './serve.js';
import { configCommand } from './config.js';
import { journalCommand } from './journal.js';
import { replayCommand } from './replay.js';
import { stopCommand } from './stop.js';
import { doctorCommand } from './doctor.js';
import { initCommand } from './init.js';
import { skillCommand } from './skill.js';
import { monitorCommand } from './monitor.js';
import { deskCommand } from './desk.js';

/** Non-tool commands. Each is also listed in `hypruse --help` and the docs. */
export const COMMANDS: Command[] = [serveCommand, configCommand, journalCommand, replayCommand, stopCommand, deskCommand, monitorCommand, doctorCommand, initCommand, skillCommand];
export type { Command };
