import type { Rect } from './geometry.js';

export interface A11yValue {
  text?: string;
  current?: number;
  min?: number;
  max?: number;
  percent?: number;
}

export interface A11yElement {
  /** Opaque handle for actions (bus name + object path). */
  ref: { bus: string; path: string };
  role: string;
  /** AT-SPI role number */
  roleId: number;
  name: string;
  states: string[];
  /** Window-relative extents (coord type WINDOW). */
  extents: Rect;
  actions: string[];
  clickable: boolean;
  /** A control an agent acts on (a control role, an editable text, or a non-container with a click-like action), sensitive or not. */
  actionable?: boolean;
  value?: A11yValue;
  checked?: boolean;
  password?: boolean;
  focused?: boolean;
  depth: number;
}

export interface A11yWindowQuery {
  pid: number | null;
  title: string;
  /** logical size of the compositor window, to pick among several windows of one app */
  width: number;
  height: number;
  class?: string;
}

export interface A11yReadOptions {
  actionableOnly: boolean;
  name?: string;
  maxNodes?: number;
  signal?: AbortSignal;
}

export type A11yReadResult =
  | { status: 'ok'; app: string; windowName: string; elements: A11yElement[]; truncated: boolean; nodes: number }
  | { status: 'no_app'; reason: string }
  | { status: 'no_tree'; reason: string; skeleton?: boolean };

export interface Accessibility {
  describe(): Promise<string>;
  /** Which apps publish a tree (name, pid). */
  apps(signal?: AbortSignal): Promise<Array<{ name: string; pid: number | null; bus: string }>>;
  read(window: A11yWindowQuery, opts: A11yReadOptions): Promise<A11yReadResult>;
  /** Current state of one element (after an action), or null if it is gone. */
  refresh(ref: A11yElement['ref'], signal?: AbortSignal): Promise<A11yElement | null>;
  doAction(ref: A11yElement['ref'], index: number, signal?: AbortSignal): Promise<boolean>;
  /** The focused text element of an app (for typing verification), or null. */
  focusedText(pid: number, signal?: AbortSignal): Promise<{ element: A11yElement; text: string | null } | null>;
  dispose(): Promise<void>;
}
