import type { AnyTool, ToolListing } from '../contracts/tool.js';
import type { HypruseConfig } from '../config/schema.js';
import { HypruseError, UsageError } from '../errors.js';

/** The tools of a session, with the names they are listed under on this compositor. */
export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();

  constructor(
    private readonly tools: AnyTool[],
    private readonly compositor: ToolListing | null,
  ) {
    for (const t of tools) {
      for (const n of new Set([t.name, this.nameOf(t)])) {
        if (this.byName.has(n) && this.byName.get(n) !== t) throw new HypruseError('error.plugin', `two tools are named "${n}"`);
        this.byName.set(n, t);
      }
    }
  }

  nameOf(tool: AnyTool): string {
    return tool.nameFor ? tool.nameFor(this.compositor) : tool.name;
  }

  /** Every tool, listed or not. */
  all(): AnyTool[] {
    return [...this.tools];
  }

  /** Tools listed to the agent under this config (read-only hides acting tools; opt-in tools need their switch). */
  listed(config: HypruseConfig): AnyTool[] {
    return this.tools.filter((t) => {
      if (config.readonly && t.kind === 'act') return false;
      if (t.optIn === 'clipboard' && (!config.clipboard || config.readonly)) return false;
      return true;
    });
  }

  get(name: string): AnyTool {
    const t = this.byName.get(name);
    if (!t) {
      const names = this.tools.map((x) => this.nameOf(x)).sort();
      throw new UsageError(`unknown tool "${name}"; tools: ${names.join(', ')}`, { code: 'usage.verb' });
    }
    return t;
  }

  find(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }
}
