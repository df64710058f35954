/** Server instructions sent to agents (MCP `instructions`); the read-only text never mentions acting tools. */
export function serverInstructions(opts: { readonly: boolean; dryRun: boolean; background?: boolean; wmName: string | null; compositor: string | null }): string {
  const where = opts.compositor ? `This desktop runs ${opts.compositor}. ` : '';
  if (opts.readonly) {
    return [
      `hypruse lets you observe a Wayland desktop. ${where}This session is read-only: you can look, not act.`,
      '1. Call `desktop` first: monitors, workspaces, windows (with their `address`), the active window, layer surfaces.',
      '2. Read applications through `ui` (controls, names, values, click points) before any screenshot; `marks` draws numbered marks on a window capture.',
      '3. Use `screenshot` and `zoom` when an app exposes no accessibility tree. Coordinates: global = geometry[:2] + image_pixel / scale.',
      '4. `binds` lists the key bindings; `wait_for` waits for a compositor event instead of sleeping.',
    ].join('\n');
  }
  return [
    `hypruse gives you native control of a Wayland desktop. ${where}`,
    '1. Call `desktop` first: monitors, workspaces, windows (with their `address`), the active window, layer surfaces (layers are not windows).',
    `2. Manage windows and workspaces through ${opts.wmName ? `\`${opts.wmName}\`` : 'the window-manager tool (`wm`, or the name the compositor lists it under)'} and \`launch\` (it returns the new window's address), not through keys.`,
    '3. Semantic first: `ui` lists a window\'s controls with names, values and click points; `click_ui` clicks by name (or by the number from `marks`). Try it before estimating pixels.',
    '4. Vision last: `screenshot` and `zoom` when an app exposes no tree. Coordinates: global = geometry[:2] + image_pixel / scale. Estimate, zoom, re-estimate, then click.',
    '5. `keyboard` types text or presses combos; always pass `window` on a shared seat. Compositor bindings cannot be triggered by keys: use `binds` and `use_bind`.',
    '6. Pass `then` (`desktop`, `screenshot`, `ui`) on acting tools to see the result in the same call; `wait_for` waits on real compositor events; `sequence` runs a short plan and stops when the desktop changes unexpectedly.',
    '7. Some actions are refused by trust layers (read-only, confinement, auth dialogs, locked session, dangerous controls): the refusal names the layer and what would lift it. Ask the person; never work around a refusal. Two come from the person: `paused: the person is using the seat` (wait retry_after_ms, observe again, retry) and `stopped by the person` (ask them; call `resume` only when they agree).',
    opts.dryRun ? '8. DRY RUN: nothing you do is delivered; results say what would have happened.' : '',
    opts.background
      ? '9. BACKGROUND MODE: the person works at this seat beside you. Nothing you do may move their pointer, send keys to their seat or change their focus, active window or visible workspace. Work on elements: `ui`, `get_text`, `wait_for`, `desktop`, `screenshot`, `zoom`, `marks` observe as usual; `click_ui` (left single clicks, through the control\'s AT-SPI action), `act` (set_text, check, toggle, expand, select, scroll_to), `keyboard type` with `window` and `name` (inserted at the field\'s caret, or `replace`, through EditableText), `menu` with `window` (the item\'s AT-SPI action, no menu opened; items ending in an ellipsis open a dialog and are refused) and `file_dialog` work through accessibility alone; `launch` opens the window on your own workspace out of the person\'s sight (where the compositor can; else it is refused), and `ui`/`act` reach it there; `pointer`, key combinations, `use_bind` and the window-manager tool are refused with refused.background, which names the element-level way when there is one.'
      : '',
  ]
    .filter(Boolean)
    .join('\n');
}
