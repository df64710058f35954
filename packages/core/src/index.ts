export type { Rect, Point } from './contracts/geometry.js';
export type {
  Monitor, Workspace, Window, LayerSurface, LayerKind, LayerLevel, Cursor, Desktop, DesktopEvent, DesktopEventType,
} from './contracts/desktop.js';
export type {
  Compositor, CompositorCapability, CompositorEnv, CompositorFactory, CompositorManifest, DetectResult, HeadlessSpec, EventSubscription, CloseOutcome,
  LaunchOptions, LaunchResult, UnseenPlace, Bind, BindKeys, ChordRegistration,
} from './contracts/compositor.js';
export { launchWaitExtras } from './contracts/compositor.js';
export type { Input, PointerButton, KeyCombo } from './contracts/input.js';
export type { Capture, CaptureTarget, Frame, Imaging, EncodeOptions, EncodedImage, MarkSpec } from './contracts/capture.js';
export type {
  Accessibility, A11yElement, A11yOption, A11yValue, A11yWindowQuery, A11yReadOptions, A11yReadResult,
} from './contracts/accessibility.js';
export type { Clipboard, ClipboardContent } from './contracts/clipboard.js';
export type { AppFamilies, LaunchPlan } from './contracts/app-families.js';
export type { ToolKind, ToolEffect, ToolSpec, Intent, BackgroundSupport, ToolContext, ToolServices, ToolDefinition, AnyTool, ToolListing } from './contracts/tool.js';
export { defineTool, kindOf } from './contracts/tool.js';
export { fact, isFact, factRegistry } from './contracts/facts.js';
export type { TrustCall, TrustLayer, Next } from './contracts/trust.js';
export { TRUST_ORDER } from './contracts/trust.js';
export type { Presence, PresenceState, PresenceVerdict, TakeoverReport, ChordReport } from './contracts/presence.js';
export { presenceError } from './contracts/presence.js';
export type { Indicator, IndicatorAct, IndicatorReport } from './contracts/indicator.js';
export { withIndicatorHidden } from './capture/indicator-hidden.js';
export type { HyprusePlugin, PluginContext } from './contracts/plugin.js';
export { PLUGIN_API_VERSION, definePlugin } from './contracts/plugin.js';
export { Tokens } from './tokens.js';
export { ROLE_SHORT, collapseRepeatedName, normalizeName, normalizeRole, nameContains, matchNames, matchByName, nameSimilarity, closestNames } from './names.js';
export type { NameMatchKind } from './names.js';
export type { Token } from './tokens.js';
export type { Logger } from './logger.js';
export { stderrLogger } from './logger.js';
export {
  HypruseError, UsageError, TrustError, NotFoundError, UnsupportedError, DryRunError, CancelledError,
  ERROR_CODES, toHypruseError, exitCodeFor, throwIfAborted, backgroundRefusal,
} from './errors.js';
export type { ErrorCategory, ErrorCode, HypruseErrorOptions } from './errors.js';
export { ResultBuilder, result, COORDS_HINT, rectTuple } from './result.js';
export type { ToolResult, ImageBlock, ImageMeta } from './result.js';
export type { SessionState } from './session.js';
export { newSession } from './session.js';
export {
  logicalSize, exactScale, contains, intersects, intersection, center, layoutBounds, monitorAt, regionScale, pixelToGlobal,
  globalToPixel, round6,
} from './geometry.js';
export { readingOrder, readingSequence } from './reading-order.js';
export { ConfigSchema, defineConfig, defaultConfig, DEFAULT_DANGEROUS, PolicyTier } from './config/schema.js';
export type { HypruseConfig, HypruseConfigInput } from './config/schema.js';
export { runtimeDir, sessionEnvironment, launchEnvironment } from './runtime.js';
export { hypruseRuntimeDir, privateRuntimeDir, ensurePrivateDir, assertPrivateDir, writeFileExclusive, writeFileExclusiveSync, createExclusive, APPEND_NOFOLLOW } from './private-files.js';
export { loadConfig } from './config/load.js';
export type { LoadedConfig, ConfigSource, LoadOptions } from './config/load.js';
export { ENV_VARS, envOverrides, parseConfine, parseAuthGuard, parseAlwaysLoad, DEFAULT_ALWAYS_LOAD } from './config/env.js';
export type { EnvVarSpec } from './config/env.js';
export { parseCombo, parseModifiers, formatCombo } from './keys.js';
export { escapeControlChars } from './text.js';
export { canonicalKey, lookupKeysym, isControlChar, closestKeyNames, type Keysym } from './keysyms.js';
export { bindKeysOf, bindReach, bindReachedBy, comboModifiers, compositorModifiers, bindTableOf, keysOf, STANDARD_KEYCODES, type BindSyntax } from './bind-keys.js';
export { Pipeline, THEN_VALUES } from './pipeline/pipeline.js';
export type { PipelineOptions, CallOptions, CallSource, ThenValue } from './pipeline/pipeline.js';
export { ToolRegistry } from './pipeline/registry.js';
export { composeLayers } from './pipeline/compose.js';
export { DRY_RUN_ALLOWED, dryRunServices, type ContractMethods } from './pipeline/dry-gate.js';
export { validateArgs } from './pipeline/validate.js';
export { Mutex } from './pipeline/mutex.js';
export { serverInstructions } from './adapters/instructions.js';
export { resultText, resultJson, errorText } from './adapters/render.js';
export { parseVerbSpec, coerce } from './adapters/cli/args.js';
export type { ParsedVerb, VerbFlags, VerbSpec } from './adapters/cli/args.js';
export { verbHelp, inputSchemaOf, parseVerbArgs, verbSpecOf } from './adapters/cli/schema.js';
export type { JsonSchema } from './adapters/cli/schema.js';
export { runVerb, checkVerbArgs, defaultIO } from './adapters/cli/run-verb.js';
export type { VerbIO } from './adapters/cli/run-verb.js';
export { selectCompositor, noCompositorError, UnavailableCompositor } from './compositor-select.js';
export type { Selection } from './compositor-select.js';
export { saveShot, pruneShots, shotName } from './capture/save-shot.js';
export { stableCapture } from './capture/stable-capture.js';
export type { StableCaptureOptions } from './capture/stable-capture.js';
export { parseProcStat, readProcStat, environValue, procfsTable, procfsTableAt, pidAlive } from './process/proc.js';
export type { ProcStat, ProcessTable } from './process/proc.js';
export { LaunchMatcher, LAUNCH_TOKEN_VAR, newLaunchToken } from './process/launch-match.js';
export type { LaunchMatchOptions } from './process/launch-match.js';
export { spawnDetached, startLaunch } from './process/spawn.js';
export { awaitLaunchedWindow, describeExit, isSplash } from './process/await-launch.js';
export type { LaunchSteps, LaunchWait, LaunchWindowRef, LaunchExit, LaunchWaitOptions, SplashSpec } from './process/await-launch.js';
export type { Spawner, SpawnedProcess, StartedLaunch } from './process/spawn.js';
export { shQuote, wrapLaunchCommand } from './process/launch-command.js';
export { EventQueue, MAX_BUFFERED_EVENTS } from './events/event-queue.js';
export { closeAndConfirm } from './events/close-window.js';
export { DesktopModel } from './events/desktop-model.js';
export { WAIT_EVENTS, alreadyHolds, awaitDesktopEvent, eventMatches, waitHit } from './events/desktop-wait.js';
export type { DesktopWaitOptions, WaitEvent } from './events/desktop-wait.js';
export type { CloseSteps } from './events/close-window.js';
export { TIME_SCALE_VAR, MIN_TIME_SCALE, MAX_TIME_SCALE, parseTimeScale, setTimeScale, resetTimeScale, timeScale, scaledMs, slowMachineHint } from './time.js';
export { listenForChord } from './events/chord-listener.js';
export * from './kit/index.js';
