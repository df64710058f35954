import type { CompositorCapability } from '../contracts/compositor.js';
import { UnsupportedError } from '../errors.js';

/**
 * A compositor's capabilities in one style: what it supports, and for each
 * thing it lacks one honest reason. Capabilities found at run time (a newer
 * version) are added with `grant`.
 */
export class CapabilityTable {
  private readonly caps: Set<CompositorCapability>;
  private readonly reasons: Map<CompositorCapability, string>;

  constructor(
    readonly compositor: string,
    supported: readonly CompositorCapability[],
    unsupported: Partial<Record<CompositorCapability, string>> = {},
  ) {
    this.caps = new Set(supported);
    this.reasons = new Map(Object.entries(unsupported) as Array<[CompositorCapability, string]>);
  }

  get set(): ReadonlySet<CompositorCapability> {
    return this.caps;
  }

  has(cap: CompositorCapability): boolean {
    return this.caps.has(cap);
  }

  grant(cap: CompositorCapability): void {
    this.caps.add(cap);
  }

  reason(cap: CompositorCapability): string {
    if (this.caps.has(cap)) return `${cap} is supported on ${this.compositor}`;
    return this.reasons.get(cap) ?? `${this.compositor} does not provide ${cap}`;
  }

  /** The typed refusal for a capability this compositor lacks. */
  refuse(cap: CompositorCapability, hint?: string): UnsupportedError {
    return new UnsupportedError(this.compositor, cap, this.reason(cap), hint);
  }
}
