import type { Rect } from './contracts/geometry.js';

export interface ImageBlock {
  data: Buffer;
  mime: 'image/jpeg' | 'image/png';
}

/** What every tool returns; each adapter renders it (MCP content blocks, CLI text or --json). */
export interface ToolResult {
  /** Text blocks, the first being the headline. */
  text: string[];
  image?: ImageBlock;
  /** Structured result (MCP structuredContent, CLI --json). */
  data?: Record<string, unknown>;
  /** Window the follow-up `then='ui'` observation should read. */
  observeWindow?: string | null;
  /** Attached follow-up observation (then=). */
  observation?: ToolResult;
  /** The CLI's exit code for a result that is not an error but did not find what it waited for (4); 0 when absent. */
  exit?: number;
}

/** Builder for tool results. */
export class ResultBuilder {
  private readonly r: ToolResult = { text: [] };

  text(line: string): this {
    this.r.text.push(line);
    return this;
  }

  image(data: Buffer, mime: ImageBlock['mime']): this {
    this.r.image = { data, mime };
    return this;
  }

  data(d: Record<string, unknown>): this {
    this.r.data = { ...(this.r.data ?? {}), ...d };
    return this;
  }

  observe(window: string | null): this {
    this.r.observeWindow = window;
    return this;
  }

  build(): ToolResult {
    return this.r;
  }
}

export function result(headline?: string): ResultBuilder {
  const b = new ResultBuilder();
  if (headline !== undefined) b.text(headline);
  return b;
}

/** Metadata every image-bearing result carries (the coordinate contract). */
export interface ImageMeta {
  target: 'monitor' | 'window' | 'region' | 'zoom' | 'marks';
  geometry: [number, number, number, number];
  image: [number, number];
  format: 'jpeg' | 'png';
  scale: number;
  coords: string;
  source: 'output' | 'region' | 'window' | 'crop';
  visible?: boolean;
  path?: string;
  [k: string]: unknown;
}

export const COORDS_HINT = 'global = geometry[:2] + image_pixel / scale (compositor global logical coordinates)';

export function rectTuple(r: Rect): [number, number, number, number] {
  return [r.x, r.y, r.width, r.height];
}
