export { HyprlandSimulator, FAKE_APP, splitBatch, shellWords } from './hyprland-simulator.js';
export type { SimulatorOptions, DispatchRecord, FailureMode } from './hyprland-simulator.js';
export { PROFILES } from './fixtures.js';
export type { HyprVersion, ConfigProvider, VersionProfile, SimWindow, SimMonitor, SimLayer } from './fixtures.js';
export { parseLuaExpression, parseLuaStatement, LuaSyntaxError } from './lua-parser.js';
