import { TRUST_ORDER, backgroundRefusal, type TrustLayer } from '@hypruse/core';

/**
 * Background mode (config `background`): an acting call goes through only
 * when its intent says its delivery needs nothing of the seat (`seatless`:
 * AT-SPI actions, editable text, selection; no pointer, no key events, no
 * focus, active window or workspace change). Everything else is refused here,
 * before anything is sent, with the tool's own element-level alternative.
 */
export const backgroundLayer: TrustLayer = {
  name: 'background',
  order: TRUST_ORDER.background,
  appliesTo: (call) => call.kind === 'act' && call.config.background,
  async handle(call, next) {
    const intent = await call.intent();
    if (intent?.seatless) return next();
    const note = call.definition?.background;
    const what = intent?.summary ? `${call.tool} would ${intent.summary}` : `${call.tool} needs the seat`;
    const how = intent?.input === 'pointer' ? ' (through the pointer)' : intent?.input === 'keyboard' ? ' (through the keyboard, focusing the window)' : '';
    throw backgroundRefusal(`${what}${how}`, note && note.mode !== 'yes' ? note.note : undefined);
  },
};
