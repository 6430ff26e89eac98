/** Shapes: how a shaped sequence's counter becomes its value (docs/protocol.md). */

const MIN64 = -(1n << 63n);
const MAX64 = (1n << 63n) - 1n;

// Snowflake's limits (seqd's): the time unit is 1 µs to a day; the node and counter parts leave
// the time part at least 20 of the 63 bits.
const MAX_UNIT_MICROS = 86_400_000_000n;
const MAX_NODE_COUNTER_BITS = 43n;

// What separates a shape's fields, as seqd reads them (Go's unicode.IsSpace): \s also matches
// U+FEFF and misses U+0085.
const SPACES = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

function reverse(x: bigint, width: number): bigint {
  if (width === 0) return 0n;
  const bits = (x & ((1n << BigInt(width)) - 1n)).toString(2).padStart(width, "0");
  return BigInt("0b" + bits.split("").reverse().join(""));
}

/** A snowflake shape's layout, and the node part of the range it came with. */
export interface Snowflake {
  /** The epoch, in microseconds after the Unix epoch. */
  readonly epochMicros: bigint;
  /** The time unit, in microseconds. */
  readonly unitMicros: bigint;
  readonly nodeBits: number;
  readonly counterBits: number;
  readonly node: bigint;
}

/**
 * A sequence's shape: ordered, bit_reversed_positive, sharded S R or snowflake EPOCH_MICROS
 * UNIT_MICROS NODE_BITS COUNTER_BITS node NODE, with an optional skip range.
 */
export class Shape {
  constructor(
    readonly kind: "ordered" | "bit_reversed_positive" | "sharded" | "snowflake" = "ordered",
    readonly shardBits = 0,
    readonly rangeBits = 0,
    readonly skip: readonly [bigint, bigint] | null = null,
    /** The layout of a snowflake shape, null for the others. */
    readonly snowflake: Snowflake | null = null,
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
      case "snowflake": {
        const sf = this.snowflake;
        if (sf === null) throw new RangeError("seqd: a snowflake shape without its layout");
        const cb = BigInt(sf.counterBits);
        return (
          ((counter >> cb) << (cb + BigInt(sf.nodeBits))) | (sf.node << cb) | (counter & ((1n << cb) - 1n))
        );
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
    const sf = this.snowflake;
    if (this.kind === "snowflake" && sf !== null) {
      s = `snowflake ${sf.epochMicros} ${sf.unitMicros} ${sf.nodeBits} ${sf.counterBits} node ${sf.node}`;
    }
    if (this.skip !== null) s += ` skip ${this.skip[0]} ${this.skip[1]}`;
    return s;
  }
}

export const ORDERED = new Shape();

/**
 * Reads seqd_reserve's shape column (null: an ordered sequence); a RangeError for a text seqd
 * would not read as a shape.
 */
export function parseShape(text: string | null): Shape {
  if (text === null) return ORDERED;
  const f = text.split(SPACES).filter((w) => w !== "");
  const bad = new RangeError(`seqd: invalid shape ${JSON.stringify(text)}`);
  // A number as seqd reads it: an optional sign and ASCII digits, a 64-bit signed integer.
  const int = (w: string | undefined): bigint => {
    if (w === undefined || !/^[+-]?[0-9]+$/.test(w)) throw bad;
    const v = BigInt(w);
    if (v < MIN64 || v > MAX64) throw bad;
    return v;
  };
  if (f.length === 0) throw bad;
  const kind = f[0];
  let rest = f.slice(1);
  let shard = 0;
  let range = 0;
  let snowflake: Snowflake | null = null;
  if (kind === "sharded") {
    const s = int(rest[0]);
    const r = int(rest[1]);
    if (s < 1n || s > 15n || r < 32n || r > 64n) throw bad;
    shard = Number(s);
    range = Number(r);
    rest = rest.slice(2);
  } else if (kind === "snowflake") {
    if (rest.length < 6 || rest[4] !== "node") throw bad;
    const [epoch, unit, nb, cb, node] = [rest[0], rest[1], rest[2], rest[3], rest[5]].map(int);
    if (unit < 1n || unit > MAX_UNIT_MICROS) throw bad;
    if (cb < 1n || cb > MAX_NODE_COUNTER_BITS || nb < 0n || nb > MAX_NODE_COUNTER_BITS - cb) throw bad;
    if (node < 0n || node >= 1n << nb) throw bad;
    snowflake = { epochMicros: epoch, unitMicros: unit, nodeBits: Number(nb), counterBits: Number(cb), node };
    rest = rest.slice(6);
  } else if (kind !== "ordered" && kind !== "bit_reversed_positive") {
    throw bad;
  }
  let skip: [bigint, bigint] | null = null;
  if (rest.length > 0) {
    if (rest.length !== 3 || rest[0] !== "skip" || kind === "snowflake") throw bad;
    skip = [int(rest[1]), int(rest[2])];
    if (skip[0] > skip[1]) throw bad;
  }
  return new Shape(kind, shard, range, skip, snowflake);
}
