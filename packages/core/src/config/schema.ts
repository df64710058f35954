import { z } from 'zod';
import { DEFAULT_ALWAYS_LOAD } from './env.js';

export { DEFAULT_ALWAYS_LOAD };

export const DEFAULT_DANGEROUS = [
  'Delete', 'Send', 'Pay', 'Buy', 'Submit', 'Confirm', 'Publish', 'Merge', 'Uninstall',
  'Format', 'Allow', 'Approve', 'Accept', 'Remove', 'Purchase',
] as const;

export const PolicyTier = z.enum(['view', 'click', 'full']);

/** The one configuration schema. Every field has a default, so no file is needed. */
export const ConfigSchema = z
  .object({
    compositor: z
      .string()
      .default('auto')
      .describe('Compositor plugin to use: auto (detect) or the id of an installed compositor plugin (`hypruse doctor` lists them). Env: HYPRUSE_COMPOSITOR.'),
    desk: z
      .string()
      .regex(/^(off|private|[a-z0-9][a-z0-9_-]{0,31})$/, 'off, private, or a desk name (a-z, 0-9, _ and -, at most 32 characters)')
      .default('off')
      .describe('Where hypruse works: off = the person\'s session; private = the MCP server starts a headless desk of its own (its own compositor, Wayland socket, session and AT-SPI buses) and stops it, with every app in it, when it exits; a name = the running desk started with `hypruse desk start NAME`. Env: HYPRUSE_DESK.'),
    background: z
      .boolean()
      .default(false)
      .describe('Background mode: work beside the person. No tool moves the seat\'s pointer, sends key events to the seat, or changes the keyboard focus, the active window or the visible workspace; element tools work through accessibility alone (AT-SPI actions, editable text, selection) and anything that needs the seat is refused with refused.background before anything is sent. The takeover pause does not stop background work; the stop chord and hypruse stop do. Env: HYPRUSE_BACKGROUND.'),
    backgroundLivePages: z
      .boolean()
      .default(false)
      .describe('Background mode, Chromium and the browsers built on it when hypruse launches them: start their page renderers through a command prefix that keeps each page\'s accessibility tree current where no output draws the window (an agent workspace no monitor shows), so actions there are verified instead of refused. Cost: those renderers keep Chromium\'s seccomp-bpf sandbox but not its namespace sandbox (they share the person\'s user, pid and network namespaces). Only the person sets it. Env: HYPRUSE_BACKGROUND_LIVE_PAGES.'),
    readonly: z.boolean().default(false).describe('Only observation tools are available. Env: HYPRUSE_READONLY.'),
    clipboard: z.boolean().default(false).describe('Enable the clipboard tool (never in read-only mode). Env: HYPRUSE_CLIPBOARD.'),
    screenshot: z
      .object({
        mode: z.enum(['file', 'image']).default('file').describe('file: save under $XDG_RUNTIME_DIR/hypruse and return the path; image: return the image inline. Env: HYPRUSE_SCREENSHOT_MODE.'),
        maxImageBytes: z.number().int().min(10000).default(700000).describe('Byte budget of an inline image (image mode). Env: HYPRUSE_MAX_IMAGE_BYTES.'),
        maxImageEdge: z.number().int().min(64).default(1568).describe('Longest edge of an inline image in pixels (image mode). Env: HYPRUSE_MAX_IMAGE_EDGE.'),
        keep: z.number().int().min(1).max(1000).default(20).describe('Screenshot files kept in file mode.'),
        quality: z.number().int().min(1).max(100).default(90).describe('JPEG quality of the first rung.'),
      })
      .prefault({})
      .describe('Screenshots and the image pipeline.'),
    confine: z
      .array(z.string())
      .default([])
      .describe('Confinement scopes: "launched", "class:NAME", "workspace:NAME". Empty = off. Env: HYPRUSE_CONFINE (comma list, e.g. "class:firefox,foot").'),
    allowModifierKeys: z
      .boolean()
      .default(false)
      .describe("Under confinement, let key combinations and modifier clicks hold the compositor's own modifier (super, and the one most of the person's bindings use). Off: such input is refused (`refused.modifier`), since it is how the person's bindings run. Without confinement it changes nothing (bindings are refused by `refused.bind` either way). Env: HYPRUSE_ALLOW_MODIFIER_KEYS."),
    launch: z
      .object({
        allow: z
          .array(z.string())
          .default([])
          .describe('Programs `launch` may start while confinement is on: bare names (matched as the command\'s program, found on PATH) or absolute paths (matched exactly). Under confinement a command must be one allowed program with plain arguments; anything else is refused. Without confinement every command is allowed. Env: HYPRUSE_LAUNCH_ALLOW (comma list).'),
      })
      .prefault({})
      .describe('Launching applications.'),
    authGuard: z.enum(['off', 'on', 'strict']).default('on').describe('Refuse input into authentication dialogs; strict adds password fields. Env: HYPRUSE_AUTH_GUARD.'),
    strict: z.boolean().default(false).describe('Refuse to act when the person moved the cursor or focus since hypruse last looked, or the observed window moved. Env: HYPRUSE_STRICT.'),
    mark: z.boolean().default(false).describe('Tag windows hypruse launched (border rule) and show on-screen notices where supported. Env: HYPRUSE_MARK.'),
    journal: z
      .object({
        path: z.string().nullable().default(null).describe('NDJSON journal path; null = off, "default" = $XDG_STATE_HOME/hypruse/journal.ndjson. Env: HYPRUSE_JOURNAL (1/true = default path, or a path).'),
        text: z.boolean().default(false).describe('Record typed text verbatim (otherwise length + digest). Env: HYPRUSE_JOURNAL_TEXT.'),
        maxBytes: z.number().int().min(0).default(8 * 1024 * 1024).describe('Rotate at this size, keeping one .1 generation; 0 = never. Env: HYPRUSE_JOURNAL_MAX_BYTES.'),
      })
      .prefault({})
      .describe('The action journal.'),
    takeoverMs: z
      .number()
      .int()
      .min(0)
      .max(60000)
      .default(1500)
      .describe('Takeover pause: acting tools refuse while the person typed or moved the pointer within this many ms; 0 = off. Env: HYPRUSE_TAKEOVER_MS.'),
    stopChord: z
      .string()
      .default('super+alt+Escape')
      .describe('Key combination bound in the compositor that stops hypruse until the person resumes (the monitor page, `hypruse resume` at their terminal, or confirming the agent\'s resume); "off" = none. Env: HYPRUSE_STOP_CHORD.'),
    indicator: z
      .boolean()
      .default(true)
      .describe('On-screen indicator while the MCP server acts: an edge glow, a label saying what the agent does and a ring at each pointer target, on click-through layer-shell surfaces that are hidden before every capture; false = never shown. Env: HYPRUSE_INDICATOR.'),
    indicatorHoldMs: z
      .number()
      .int()
      .min(0)
      .max(60000)
      .default(2500)
      .describe('How long the on-screen indicator stays after the last action before it fades (ms). Env: HYPRUSE_INDICATOR_HOLD_MS.'),
    monitor: z
      .object({
        serve: z.boolean().default(false).describe('The MCP server also serves the monitor page (127.0.0.1, a random port, behind a random token printed once on stderr): the live desktop, the journal feed, the stop/pause state with Pause, Resume and Stop. `hypruse monitor` serves it on its own. Env: HYPRUSE_MONITOR.'),
        fps: z.number().min(0.2).max(10).default(3).describe('Most desktop frames per second the monitor page captures; only changed frames are sent.'),
      })
      .prefault({})
      .describe('The monitor page.'),
    dryRun: z.boolean().default(false).describe('Run every validation and guard, deliver nothing. Env: HYPRUSE_DRYRUN.'),
    dangerous: z
      .object({
        extra: z.array(z.string()).default([]).describe('More control names that need the human to confirm (added to the built-in list, which cannot be emptied).'),
      })
      .prefault({})
      .describe('Dangerous-action confirmation.'),
    policy: z
      .record(z.string(), PolicyTier)
      .default({})
      .describe('Per-app policy tier by window class: view < click < full. Classes not listed get `full`.'),
    timeScale: z
      .number()
      .min(0.1)
      .max(100)
      .default(1)
      .describe('Multiply every timeout hypruse waits on (compositor IPC, Wayland round trips, capture, AT-SPI, doctor checks); set above 1 on a slow or emulated machine. Env: HYPRUSE_TIME_SCALE.'),
    plugins: z.array(z.string()).default([]).describe('Third-party plugins: npm package names or paths relative to the config file.'),
    trustedProjectDirs: z
      .array(z.string())
      .default([])
      .describe('Folders whose executable project config (hypruse.config.ts/.mjs/.js, .hypruserc.js...) may run, and whose plugins may load. Read only from the person\'s own config (~/.config/hypruse/ or HYPRUSE_CONFIG); a project config never adds to it.'),
    a11y: z
      .object({
        timeoutMs: z.number().int().min(100).max(30000).default(2000).describe('Ceiling for one application call over AT-SPI (multiplied by timeScale).'),
        maxNodes: z.number().int().min(10).max(100000).default(4000).describe('Stop walking a tree after this many nodes.'),
        setPasswords: z.boolean().default(false).describe('Let act set_text fill password fields (they are never read back, and their text is not journaled).'),
        switches: z
          .boolean()
          .default(true)
          .describe(
            "Switch accessibility on where apps need it: the session's org.a11y.Status IsEnabled (apps started afterwards load their AT-SPI bridge), and Chromium's web tree, built on first read as for a screen reader. Costs the browser memory and CPU for its accessibility tree; false leaves both off.",
          ),
      })
      .prefault({})
      .describe('Accessibility.'),
    input: z
      .object({
        keyboard: z.enum(['auto', 'wire', 'wtype']).default('auto').describe('Keyboard path: in-process virtual keyboard (wire, needs fd passing), wtype, or auto. Env: HYPRUSE_KEYBOARD.'),
      })
      .prefault({})
      .describe('Input delivery.'),
    mcp: z
      .object({
        alwaysLoad: z
          .array(z.string())
          .default([...DEFAULT_ALWAYS_LOAD])
          .describe(
            'Tools listed with `_meta: {"anthropic/alwaysLoad": true}`, so hosts that hide MCP tools behind a tool search (Claude Code) load them up front; "*" = every tool, [] = none. Names of tools not listed in this session are ignored. Env: HYPRUSE_ALWAYS_LOAD (comma list, `all`, `none` or `core`).',
          ),
        maxResultTokens: z
          .number()
          .int()
          .min(1000)
          .max(10_000_000)
          .default(25_000)
          .describe('Most tokens (counted as characters / 3.5) of one tool result, its text and its structured JSON each: ui and get_text page within it, anything longer is cut with a note naming a private file with the whole text. 25,000 is Claude Code\'s default limit.'),
        maxResultBytes: z
          .number()
          .int()
          .min(100_000)
          .max(100_000_000)
          .default(1_000_000)
          .describe('Most bytes of one serialized tool result; an inline image that would exceed it is saved as a file instead. 1 MB is Claude Desktop\'s limit.'),
        confirmTimeoutS: z
          .number()
          .int()
          .min(1)
          .max(3600)
          .default(600)
          .describe('How long a confirmation asked of the person through a 2026-07-28 input_required stays open: the call waits that long for the answer, and the sealed requestState expires with it. Env: HYPRUSE_CONFIRM_TIMEOUT_S.'),
        http: z
          .object({
            host: z.string().default('127.0.0.1').describe('Address `hypruse serve --http` listens on. Anything but a loopback address exposes the seat to the network: prefer an SSH tunnel.'),
            port: z.number().int().min(0).max(65535).default(8765).describe('Port of `hypruse serve --http` (0 = any free port; the address is printed).'),
            allowedHosts: z.array(z.string()).default([]).describe('More `host:port` values the Host header may name (a tunnel\'s local name and port when it differs); anything else is refused (DNS rebinding).'),
            maxBodyBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1_000_000).describe('Largest request body the seat reads.'),
            requestsPerMinute: z.number().int().min(1).max(100_000).default(600).describe('Requests the seat takes in a minute, refused ones included; more are answered 429.'),
          })
          .prefault({})
          .describe('Serving MCP over Streamable HTTP (`hypruse serve --http`): a bearer token generated at each start, printed once and kept 0600 in the runtime directory.'),
      })
      .prefault({})
      .describe('The MCP server.'),
    sequence: z
      .object({
        maxSteps: z.number().int().min(1).max(200).default(30),
        maxSeconds: z.number().min(1).max(1800).default(60).describe('Time budget of one sequence, checked before each step (a wait_for step may itself wait up to 30 minutes).'),
        quietMs: z
          .number()
          .int()
          .min(0)
          .max(1000)
          .default(40)
          .describe('Settle after each step: one compositor round trip, then wait until no desktop event arrived for this long (ms; at most 200 ms in all) before checking for unexpected changes.'),
      })
      .prefault({})
      .describe('Limits of the sequence tool.'),
  })
  .strict();

export type HypruseConfig = z.output<typeof ConfigSchema>;
export type HypruseConfigInput = z.input<typeof ConfigSchema>;

/** Types for hypruse.config.ts. */
export function defineConfig(config: HypruseConfigInput): HypruseConfigInput {
  return config;
}

export function defaultConfig(): HypruseConfig {
  return ConfigSchema.parse({});
}
