import type { MarkSpec } from '@hypruse/core';

/** Fill of a mark badge (the red of hypruse's marks overlay). */
export const MARK_FILL = '#d92626';
export const MARK_RADIUS = 10;

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/**
 * One SVG the size of the frame with a badge per mark: a red circle (a rounded
 * box for labels longer than two characters) centred on the mark's pixel, with
 * a white ring and a dark outer ring so it reads on light and dark content,
 * and the label in bold white.
 */
export function marksSvg(width: number, height: number, marks: MarkSpec[]): string {
  const parts: string[] = [];
  for (const m of marks) {
    if (!Number.isFinite(m.x) || !Number.isFinite(m.y)) continue;
    const x = Math.round(m.x);
    const y = Math.round(m.y);
    const label = escapeXml(m.label);
    const chars = [...m.label].length;
    if (chars <= 2) {
      parts.push(
        `<circle cx="${x}" cy="${y}" r="${MARK_RADIUS + 1.5}" fill="#000000" fill-opacity="0.85"/>`,
        `<circle cx="${x}" cy="${y}" r="${MARK_RADIUS}" fill="${MARK_FILL}" stroke="#ffffff" stroke-width="1.5"/>`,
      );
    } else {
      const w = 8 * chars + 8;
      const h = MARK_RADIUS * 2;
      parts.push(
        `<rect x="${x - w / 2 - 1.5}" y="${y - h / 2 - 1.5}" width="${w + 3}" height="${h + 3}" rx="${h / 2 + 1.5}" fill="#000000" fill-opacity="0.85"/>`,
        `<rect x="${x - w / 2}" y="${y - h / 2}" width="${w}" height="${h}" rx="${h / 2}" fill="${MARK_FILL}" stroke="#ffffff" stroke-width="1.5"/>`,
      );
    }
    parts.push(
      `<text x="${x}" y="${y + 4.5}" font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="13" font-weight="bold" fill="#ffffff" text-anchor="middle">${label}</text>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}
