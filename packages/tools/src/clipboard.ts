import { z } from 'zod';
import { NotFoundError, Tokens, UsageError, defineTool, fact, result } from '@hypruse/core';

export const clipboardTool = defineTool({
  name: 'clipboard',
  title: 'Clipboard',
  effect: 'destructive',
  background: { mode: 'yes', note: 'reads and writes the clipboard without the seat' },
  optIn: 'clipboard',
  description: 'Read or write the clipboard as text (opt-in). Non-text content is named, not returned; reads are capped at 100000 characters.',
  input: z
    .object({
      action: z.enum(['read', 'write']).describe('read | write'),
      text: z.string().max(1_000_000).refine((t) => !/\p{Cs}/u.test(t), 'text contains a lone surrogate (broken UTF-16)').default('').describe('Text to copy (write).'),
    })
    .strict(),
  output: z.union([
    z.strictObject({ action: z.literal('write'), chars: z.number() }),
    z.strictObject({ action: z.literal('read'), kind: z.literal('binary'), mime: z.array(fact(z.string())), bytes: z.number() }),
    z.strictObject({ action: z.literal('read'), kind: z.literal('text'), text: z.string(), truncated: z.boolean(), chars: z.number() }),
  ]),
  cli: { positional: ['action', 'text'], stdinField: 'text' },
  intent(args) {
    if (args.action === 'write' && !args.text) throw new UsageError('write needs text');
    if (args.action === 'read' && args.text) throw new UsageError('read takes no text');
    return args.action === 'write' ? { summary: `copy ${args.text.length} characters to the clipboard`, input: 'none', seatless: true, text: args.text } : { summary: 'read the clipboard', input: 'none', seatless: true };
  },
  async handle(args, ctx) {
    const cb = ctx.services.get(Tokens.Clipboard);
    if (args.action === 'write') {
      await cb.write(args.text, ctx.signal);
      return result(`copied ${[...args.text].length} characters to the clipboard`).data({ action: 'write', chars: [...args.text].length }).build();
    }
    const c = await cb.read(100_000, ctx.signal);
    if (c.kind === 'empty') throw new NotFoundError('not_found.clipboard', 'the clipboard is empty');
    if (c.kind === 'binary') return result(`the clipboard holds non-text content (${c.mime.join(', ') || 'unknown type'}, ${c.bytes} bytes)`).data({ action: 'read', kind: 'binary', mime: c.mime, bytes: c.bytes }).build();
    return result(c.truncated ? `${c.text}\n[truncated, ${c.totalChars} chars total]` : c.text).data({ action: 'read', kind: 'text', text: c.text, truncated: c.truncated, chars: c.totalChars }).build();
  },
});
