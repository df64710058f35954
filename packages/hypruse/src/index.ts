export { main } from './cli.js';
export { createSession, releaseInput } from './session.js';
export type { Session, SessionOptions } from './session.js';
export { BUILTIN_PLUGINS } from './builtin.js';
export { loadPlugin, orderPlugins } from './plugins.js';
export { VERSION } from './version.js';
export { COMMANDS } from './commands/index.js';
export type { Command } from './commands/types.js';
