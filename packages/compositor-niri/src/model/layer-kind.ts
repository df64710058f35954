import type { LayerKind, LayerLevel } from '@hypruse/core';

/** Namespace fragments → kind, checked in order (first match wins). */
const KIND_PATTERNS: Array<[LayerKind, RegExp]> = [
  ['lock', /lock|greet/i],
  ['launcher', /launcher|rofi|wofi|fuzzel|anyrun|walker|tofi|bemenu|wmenu|kickoff|ulauncher|vicinae|onagre|sirula|nwg-drawer|dmenu|menu/i],
  ['osk', /osk|wvkbd|squeekboard|virtual-?keyboard|onscreen/i],
  ['notification', /notif|mako|dunst|swaync|fnott|swayosd|avizo|wob/i],
  ['bar', /bar|panel|dock|eww|yambar|ironbar|nwg-panel|quickshell/i],
  ['background', /wallpaper|background|swaybg|hyprpaper|swww|mpvpaper|wpaper/i],
];

/** Classify a layer surface by its namespace; the background level is a background whatever its name. */
export function layerKind(namespace: string, level: LayerLevel): LayerKind {
  for (const [kind, re] of KIND_PATTERNS) if (re.test(namespace)) return kind;
  return level === 'background' ? 'background' : 'other';
}

/** niri `Layer` → normalized level. */
export function layerLevel(layer: string): LayerLevel {
  switch (layer) {
    case 'Background':
      return 'background';
    case 'Bottom':
      return 'bottom';
    case 'Overlay':
      return 'overlay';
    default:
      return 'top';
  }
}
