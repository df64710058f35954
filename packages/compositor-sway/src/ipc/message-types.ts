/** i3-ipc message types used by sway (sway-ipc(7)). Replies reuse the request type. */
export const SwayMessage = {
  RUN_COMMAND: 0,
  GET_WORKSPACES: 1,
  SUBSCRIBE: 2,
  GET_OUTPUTS: 3,
  GET_TREE: 4,
  GET_MARKS: 5,
  GET_BAR_CONFIG: 6,
  GET_VERSION: 7,
  GET_BINDING_MODES: 8,
  GET_CONFIG: 9,
  SEND_TICK: 10,
  SYNC: 11,
  GET_BINDING_STATE: 12,
  GET_INPUTS: 100,
  GET_SEATS: 101,
} as const;

export type SwayMessageType = (typeof SwayMessage)[keyof typeof SwayMessage];

/** Events carry the request-type space with bit 31 set. */
export const EVENT_BIT = 0x80000000;

export const SwayEvent = {
  workspace: 0x80000000,
  output: 0x80000001,
  mode: 0x80000002,
  window: 0x80000003,
  barconfig_update: 0x80000004,
  binding: 0x80000005,
  shutdown: 0x80000006,
  tick: 0x80000007,
  bar_state_update: 0x80000014,
  input: 0x80000015,
} as const;

export type SwayEventName = keyof typeof SwayEvent;

const EVENT_NAMES = new Map<number, SwayEventName>(Object.entries(SwayEvent).map(([k, v]) => [v, k as SwayEventName]));

/** The event name for a wire type, or null when `type` is not an event (or an unknown one). */
export function eventName(type: number): SwayEventName | null {
  return EVENT_NAMES.get(type >>> 0) ?? null;
}

export function isEvent(type: number): boolean {
  return ((type >>> 0) & EVENT_BIT) !== 0;
}
