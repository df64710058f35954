/**
 * What a launch needs to know about the application it starts: its family
 * (toolkit or engine), the environment and switches that family needs to run
 * on this Wayland session and to expose its accessibility tree. The knowledge
 * itself is data in the accessibility package (`app-families.ts`); tools ask
 * through this contract.
 */
export interface LaunchPlan {
  /** The command line to run: the given one, with the family's switches added where they belong. */
  command: string;
  /** Environment for the launched process, on top of the session's launch environment. */
  env: Record<string, string>;
  /** Families recognised in the command (ids of the table), possibly empty. */
  families: string[];
  /** What was added and why, one short phrase each (for the result's note). */
  added: string[];
  /** The file the program resolves to (absolute), when found: hand-offs to a running instance of it are recognised. */
  program?: string;
  /** Splash windows of the recognised families (regular expression sources for class and title). */
  splash?: Array<{ class?: string; title?: string }>;
  /** How long the launch's windows must stay unchanged, when a family needs longer than the default (ms, before time scaling). */
  stayMs?: number;
}

export interface AppFamilies {
  /**
   * How to start `command` on this session: switches for the families the
   * program belongs to, and the environment every toolkit reads at start.
   * `env` is the session environment (PATH to find the program). `opts.unseen`: the launch opens
   * the window where no output may draw it (background mode's agent workspace), and the families'
   * switches for that are added too.
   */
  planLaunch(command: string, env: NodeJS.ProcessEnv, opts?: { unseen?: boolean; livePages?: boolean }): LaunchPlan;
  /**
   * The button that keeps the format the person chose, when a window (its class and title, and its
   * buttons) is an app's question after a Save in a format not its own ("Keep current format?");
   * null when it is not such a question.
   */
  keepFormatButton?(window: { class: string; title: string }, buttons: readonly string[]): string | null;
}
