import { UnsupportedError } from '@hypruse/core';
import { HyprlandReplyError, type HyprlandRequestClient } from '../ipc/request-client.js';
import { decodeJsonValues } from '../ipc/batch.js';
import { legacyDispatch, legacyMarkRules, luaDispatch, luaMarkRule, looksLikeWrongDialect, translateLegacyBind, type Dialect, type DispatchOp } from './dialect.js';

/**
 * Sends dispatches in the dialect of the running config: read from `j/status`
 * (`configProvider`, 0.55+; absent on ≤0.54 means legacy), re-probed once when
 * a reply says the syntax belongs to the other dialect (a `reload full-reset`
 * can switch configs under us).
 */
export class HyprlandDispatcher {
  private dialect: Dialect | null = null;
  /** Number of probes sent (tests read it). */
  probes = 0;

  constructor(private readonly client: HyprlandRequestClient) {}

  /** The dialect currently assumed (probing if unknown). */
  async currentDialect(): Promise<Dialect> {
    return this.dialect ?? (await this.probe());
  }

  async probe(): Promise<Dialect> {
    this.probes++;
    const reply = (await this.client.request('j/status')).trim();
    let dialect: Dialect = 'legacy';
    if (reply.startsWith('{')) {
      try {
        const [status] = decodeJsonValues(reply, 'j/status') as [{ configProvider?: string }];
        if (status && typeof status.configProvider === 'string' && status.configProvider.toLowerCase() === 'lua') dialect = 'lua';
      } catch {
        dialect = 'legacy';
      }
    }
    this.dialect = dialect;
    return dialect;
  }

  private render(dialect: Dialect, op: DispatchOp): string[] {
    if (dialect === 'lua' && op.op === 'raw') {
      const translated = translateLegacyBind(op.dispatcher, op.arg);
      if (!translated) {
        throw new UnsupportedError(
          'hyprland',
          'bind.run',
          `the dispatcher "${op.dispatcher}${op.arg ? ` ${op.arg}` : ''}" is legacy syntax with no Lua translation known to hypruse, and this Hyprland runs a Lua config`,
        );
      }
      return luaDispatch(translated);
    }
    return dialect === 'lua' ? luaDispatch(op) : legacyDispatch(op);
  }

  /** Run one operation; throws HyprlandReplyError with Hyprland's text when it is refused. */
  async dispatch(op: DispatchOp): Promise<void> {
    let dialect = await this.currentDialect();
    let reprobed = false;
    let steps = this.render(dialect, op);
    for (let i = 0; i < steps.length; i++) {
      const command = `dispatch ${steps[i]}`;
      const reply = (await this.client.request(command)).trim();
      if (reply === 'ok') continue;
      if (!reprobed && looksLikeWrongDialect(dialect, reply)) {
        reprobed = true;
        const next = await this.probe();
        if (next !== dialect) {
          dialect = next;
          steps = this.render(dialect, op);
          i = -1;
          continue;
        }
      }
      throw new HyprlandReplyError(command, reply);
    }
  }

  /** Install the MARK border rule: `keyword` in the grammar of this version (see legacyMarkRules) or Lua `hl.window_rule` via eval. */
  async installMarkRule(tag: string, color: string, version: [number, number, number] | null = null): Promise<boolean> {
    let dialect = await this.currentDialect();
    for (let attempt = 0; attempt < 2; attempt++) {
      if (dialect === 'lua') {
        const reply = (await this.client.request(`eval ${luaMarkRule(tag, color)}`)).trim();
        if (reply === 'ok') return true;
        if (attempt === 0 && looksLikeWrongDialect('lua', reply) && (await this.probe()) !== 'lua') {
          dialect = 'legacy';
          continue;
        }
        return false;
      }
      let wrong = false;
      for (const rule of legacyMarkRules(tag, color, version)) {
        const reply = (await this.client.request(`keyword ${rule}`)).trim();
        if (reply === 'ok') return true;
        if (looksLikeWrongDialect('legacy', reply)) {
          wrong = true;
          break;
        }
      }
      if (attempt === 0 && wrong && (await this.probe()) === 'lua') {
        dialect = 'lua';
        continue;
      }
      return false;
    }
    return false;
  }
}

export function isReplyError(err: unknown): err is HyprlandReplyError {
  return err instanceof HyprlandReplyError;
}

