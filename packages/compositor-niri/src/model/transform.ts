/** niri `Transform` names → wl_output transform numbers (0..7). Unknown names map to 0. */
const TRANSFORMS: Record<string, number> = {
  Normal: 0,
  '90': 1,
  '180': 2,
  '270': 3,
  Flipped: 4,
  Flipped90: 5,
  Flipped180: 6,
  Flipped270: 7,
};

export function transformNumber(name: string | undefined | null): number {
  return (name && TRANSFORMS[name]) || 0;
}
