import { DEFAULT_DANGEROUS, TRUST_ORDER, TrustError, type HypruseConfig, type TrustLayer } from '@hypruse/core';

/** The built-in list plus the configured extras (the built-in list cannot be emptied). */
export function dangerousWords(config: HypruseConfig): string[] {
  return [...new Set([...DEFAULT_DANGEROUS, ...config.dangerous.extra.map((w) => w.trim()).filter(Boolean)])];
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The first dangerous word found in a control name, as a whole word, case-insensitively ("Delete all" yes, "Undeleted" no). */
export function dangerousMatch(name: string, words: readonly string[]): string | null {
  for (const w of words) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}_])${escape(w)}(?![\\p{L}\\p{N}_])`, 'iu');
    if (re.test(name)) return w;
  }
  return null;
}

/**
 * Dangerous-action confirmation: clicking or pressing a control whose name
 * matches the list (Delete, Send, Pay, ...) needs the person. Asked through
 * MCP elicitation when the client can; otherwise refused with the
 * `confirm: true` path, which the agent may take only after asking the
 * person. A dry run asks nobody: it notes that the real call would need it.
 */
export const dangerousLayer: TrustLayer = {
  name: 'dangerous',
  order: TRUST_ORDER.dangerous,
  appliesTo: (call) => call.kind === 'act',
  async handle(call, next) {
    const intent = await call.intent();
    const control = intent?.control;
    if (!control || intent.nested || intent.input === 'none') return next();
    const word = dangerousMatch(control.name, dangerousWords(call.config));
    if (!word || call.confirmed) return next();
    const what = `${control.role ? `${control.role} ` : ''}'${control.name}'`;
    if (call.dryRun) {
      call.notes.push(`NOTE: ${what} looks dangerous ("${word}"), so the real call needs the person's confirmation`);
      return next();
    }
    if (call.confirm) {
      const answer = await call.confirm(`The agent wants to ${intent.summary || `activate ${what}`}. "${word}" actions can be hard to undo. Allow it?`);
      if (answer === true) return next();
      if (answer === false) {
        throw new TrustError({
          layer: 'dangerous',
          code: 'refused.dangerous',
          reason: `the person declined ${intent.summary || `activating ${what}`}`,
          hint: 'do not retry this action; ask the person what they want instead',
        });
      }
    }
    throw new TrustError({
      layer: 'dangerous',
      code: 'refused.dangerous',
      reason: `${what} looks dangerous ("${word}") and needs the person's confirmation`,
      hint: 'ask the person whether to do it; only after they say yes, call again with confirm: true',
    });
  },
};
