/**
 * The MCP annotation table every tool must list, derived from its effect:
 * [readOnlyHint, destructiveHint, idempotentHint, openWorldHint]. Acting
 * tools are destructive (their most dangerous action: keys and clicks land
 * wherever the app takes them, a window closes, the clipboard is
 * overwritten); launch also reaches the open world (it starts programs).
 */
export const ANNOTATIONS: Record<string, [boolean, boolean, boolean, boolean]> = {
  desktop: [true, false, true, false], screenshot: [true, false, true, false], zoom: [true, false, true, false], ui: [true, false, true, false],
  marks: [true, false, true, false], get_text: [true, false, true, false], binds: [true, false, true, false], wait_for: [true, false, true, false],
  click_ui: [false, true, false, false], act: [false, true, false, false], menu: [false, true, false, false], file_dialog: [false, true, false, false], pointer: [false, true, false, false], keyboard: [false, true, false, false],
  wm: [false, true, false, false], hypr: [false, true, false, false],
  launch: [false, true, false, true], use_bind: [false, true, false, false], sequence: [false, true, false, false], clipboard: [false, true, false, false],
  resume: [false, false, false, false],
};

export const hints = (a: Record<string, unknown> | undefined) => [a?.readOnlyHint, a?.destructiveHint, a?.idempotentHint, a?.openWorldHint];
