import { ORDERED, Shape } from "./shape.js";

/**
 * count values first, first+step, ..., last. For a shaped sequence these are counters (step 1)
 * and shape maps each to its value; value() says which counters give values.
 */
export class Range {
  constructor(
    readonly first: bigint,
    readonly last: bigint,
    readonly step: bigint = 1n,
    readonly shape: Shape = ORDERED,
  ) {}

  get count(): bigint {
    if (this.step === 0n) return 0n;
    return (this.last - this.first) / this.step + 1n;
  }

  /** The i-th value (or counter), 0 <= i < count. */
  at(i: bigint): bigint {
    return this.first + i * this.step;
  }

  /** The value of counter (or value) c, and whether it is handed out (false: the skip range passes over it). */
  value(c: bigint): [bigint, boolean] {
    if (!this.shape.shaped) return [c, true];
    const v = this.shape.value(c);
    return [v, !this.shape.skipped(v)];
  }

  /** The part from the used-th value on; null when nothing is left. */
  tail(used: bigint): Range | null {
    if (used >= this.count) return null;
    return new Range(this.at(used), this.last, this.step, this.shape);
  }

  /** Every value the range gives, in order. */
  *values(): IterableIterator<bigint> {
    for (let i = 0n; i < this.count; i++) {
      const [v, ok] = this.value(this.at(i));
      if (ok) yield v;
    }
  }
}
