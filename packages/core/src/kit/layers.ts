import type { LayerKind, LayerLevel } from '../contracts/desktop.js';

/**
 * The one layer-surface classification, by namespace, first match wins. The
 * layer guard refuses acts by this kind, so a locker or launcher is the same
 * kind on every compositor. `lock` does not match `clock`.
 */
export const LAYER_KINDS: ReadonlyArray<readonly [LayerKind, RegExp]> = [
  ['lock', /(^|[^c])lock|greet/i],
  ['launcher', /launcher|rofi|wofi|fuzzel|anyrun|walker|tofi|bemenu|wmenu|kickoff|vicinae|onagre|sirula|nwg-drawer|menu/i],
  ['osk', /^osk|[-_]osk|wvkbd|squeekboard|virtual-?keyboard|onscreen/i],
  ['notification', /notif|mako|dunst|swaync|fnott|swayosd|avizo|wob/i],
  ['bar', /bar|panel|dock|eww|yambar|ironbar|quickshell|^ags-/i],
  ['background', /wallpaper|background|swaybg|hyprpaper|swww|mpvpaper|wpaper/i],
];

/** Kind of a layer surface; an unknown namespace on the background level is a background, elsewhere `other`. */
export function classifyLayer(namespace: string, level: LayerLevel | null = null): LayerKind {
  for (const [kind, re] of LAYER_KINDS) if (re.test(namespace)) return kind;
  return level === 'background' ? 'background' : 'other';
}
