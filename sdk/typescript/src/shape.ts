/** Shapes: how a shaped sequence's counter becomes its value (docs/protocol.md). */

function reverse(x: bigint, width: number): bigint {
  if (width === 0) return 0n;
  const bits = (x & ((1n << BigInt(width)) - 1n)).toString(2).padStart(width, "0");
  return BigInt("0b" + bits.split("").reverse().join(""));
}

/** A sequence's shape: ordered, bit_reversed_positive or sharded S R, with an optional skip range. */
export class Shape {
  constructor(
    readonly kind: "ordered" | "bit_reversed_positive" | "sharded" = "ordered",
    readonly shardBits = 0,
    readonly rangeBits = 0,
    readonly skip: readonly [bigint, bigint] | null = null,
  ) {}

  get shaped(): boolean {
    return this.kind !== "ordered";
  }

  /** The value counter stands for. */
  value(counter: bigint): bigint {
    switch (this.kind) {
      case "bit_reversed_positive":
        return reverse(counter, 64) >> 1n;
      case "sharded": {
        const s = this.shardBits;
        const k = BigInt(this.rangeBits - 1 - s);
        return (reverse(counter, s) << k) | (counter >> BigInt(s));
      }
    }
    return counter;
  }

  /** Whether the skip range holds value. */
  skipped(value: bigint): boolean {
    return this.skip !== null && this.skip[0] <= value && value <= this.skip[1];
  }

  toString(): string {
    let s: string = this.kind;
    if (this.kind === "sharded") s = `sharded ${this.shardBits} ${this.rangeBits}`;
    if (this.skip !== null) s += ` skip ${this.skip[0]} ${this.skip[1]}`;
    return s;
  }
}

export const ORDERED = new Shape();

/** Reads seqd_reserve's shape column (null: an ordered sequence). */
export function parseShape(text: string | null): Shape {
  if (text === null) return ORDERED;
  const f = text.split(/\s+/).filter((w) => w !== "");
  const bad = new RangeError(`seqd: invalid shape ${JSON.stringify(text)}`);
  const int = (w: string | undefined): bigint => {
    if (w === undefined || !/^-?\d+$/.test(w)) throw bad;
    return BigInt(w);
  };
  if (f.length === 0) throw bad;
  const kind = f[0];
  let rest = f.slice(1);
  let shard = 0;
  let range = 0;
  if (kind === "sharded") {
    shard = Number(int(rest[0]));
    range = Number(int(rest[1]));
    if (shard < 1 || shard > 15 || range < 32 || range > 64) throw bad;
    rest = rest.slice(2);
  } else if (kind !== "ordered" && kind !== "bit_reversed_positive") {
    throw bad;
  }
  let skip: [bigint, bigint] | null = null;
  if (rest.length > 0) {
    if (rest.length !== 3 || rest[0] !== "skip") throw bad;
    skip = [int(rest[1]), int(rest[2])];
    if (skip[0] > skip[1]) throw bad;
  }
  return new Shape(kind, shard, range, skip);
}
