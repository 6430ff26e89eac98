import { SeqdError } from "./errors.js";
import { Range } from "./range.js";
import { Seqd } from "./source.js";

/** What a generator did: values reserved, handed out, given back on close, burned; reservations; waits; size. */
export interface Stats {
  reserved: bigint;
  issued: bigint;
  released: bigint;
  burned: bigint;
  fetches: number;
  waits: number;
  size: bigint;
}

function closed(name: string): SeqdError {
  return new SeqdError(`seqd: generator ${JSON.stringify(name)} closed`, "closed");
}

/** One nextval per value: ordered, a round trip each. */
export class Async {
  private isClosed = false;
  private issued = 0n;

  constructor(
    readonly source: Seqd,
    readonly name: string,
  ) {}

  async next(): Promise<bigint> {
    if (this.isClosed) throw closed(this.name);
    const v = await this.source.nextval(this.name);
    this.issued++;
    return v;
  }

  async close(): Promise<void> {
    this.isClosed = true;
  }

  stats(): Stats {
    const n = this.issued;
    return {
      reserved: n,
      issued: n,
      released: 0n,
      burned: 0n,
      fetches: Number(n),
      waits: Number(n),
      size: 1n,
    };
  }
}

export interface BatchOptions {
  /** Values per reservation; default 1000. */
  size?: bigint | number;
  /** AsyncBatch: reserve the next range once fewer values than this remain; default size/4. */
  lowWatermark?: bigint | number;
}

/**
 * Reserves size values at a time and hands them out from memory; with a low watermark (AsyncBatch) the
 * next range is reserved in the background. Concurrent next() calls are safe. close() gives the unused
 * values back.
 */
export class Batch {
  private readonly size: bigint;
  private readonly low: bigint;
  private cur: Range | null = null;
  private curN = 0n;
  private used = 0n;
  private shaped = false;
  private nextRange: Range | null = null;
  private fetching: Promise<void> | null = null;
  private fetchErr: unknown = null;
  private isClosed = false;
  private readonly st: Stats;

  constructor(
    readonly source: Seqd,
    readonly name: string,
    opts: BatchOptions = {},
    private readonly async = false,
  ) {
    this.size = BigInt(opts.size ?? 1000);
    if (this.size < 1n) throw new SeqdError(`seqd: batch size ${this.size}`, "invalid");
    this.low =
      opts.lowWatermark !== undefined && BigInt(opts.lowWatermark) > 0n
        ? BigInt(opts.lowWatermark)
        : this.size / 4n;
    this.st = { reserved: 0n, issued: 0n, released: 0n, burned: 0n, fetches: 0, waits: 0, size: this.size };
  }

  /**
   * The next value if the current range has one, without a promise; undefined when a reservation
   * is needed (then call next()). For hot loops: `ids.tryNext() ?? (await ids.next())`.
   */
  tryNext(): bigint | undefined {
    const cur = this.cur;
    if (this.isClosed || cur === null || this.shaped || this.used >= this.curN) return undefined;
    const v = cur.first + this.used * cur.step;
    this.used++;
    this.st.issued++;
    if (this.async && this.curN - this.used < this.low && this.fetching === null && this.nextRange === null) {
      void this.fetch();
    }
    return v;
  }

  /** The next value. */
  async next(): Promise<bigint> {
    for (;;) {
      if (this.isClosed) throw closed(this.name);
      const cur = this.cur;
      if (cur !== null && this.used < this.curN) {
        let v = cur.first + this.used * cur.step;
        this.used++;
        if (this.shaped) {
          const [mapped, ok] = cur.value(v);
          if (!ok) continue; // a shaped sequence's skip range holds it
          v = mapped;
        }
        this.st.issued++;
        if (
          this.async &&
          this.curN - this.used < this.low &&
          this.fetching === null &&
          this.nextRange === null
        ) {
          this.fetch();
        }
        return v;
      }
      if (this.nextRange !== null) {
        this.setCur(this.nextRange);
        this.nextRange = null;
        continue;
      }
      if (this.fetchErr !== null) {
        const err = this.fetchErr;
        this.fetchErr = null;
        throw err;
      }
      this.st.waits++;
      await (this.fetching ?? this.fetch());
    }
  }

  private setCur(r: Range): void {
    this.cur = r;
    this.curN = r.count;
    this.used = 0n;
    this.shaped = r.shape.shaped;
  }

  /** Starts the one reservation in flight. */
  private fetch(): Promise<void> {
    const p = this.source.reserve(this.name, this.size).then(
      (r) => {
        this.fetching = null;
        this.st.fetches++;
        this.st.reserved += r.count;
        if (this.cur === null || this.used >= this.curN) this.setCur(r);
        else this.nextRange = r;
      },
      (e: unknown) => {
        this.fetching = null;
        this.fetchErr = e;
      },
    );
    this.fetching = p;
    return p;
  }

  /** Waits for a reservation in flight, then gives back the range reserved ahead and the rest of the current one, latest first. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.fetching !== null) await this.fetching;
    this.fetchErr = null;
    const unused: Range[] = [];
    const t = this.cur?.tail(this.used) ?? null;
    if (t !== null) unused.push(t);
    if (this.nextRange !== null) unused.push(this.nextRange);
    this.cur = this.nextRange = null;
    this.curN = this.used = 0n;
    for (const r of unused.reverse()) {
      if (await this.source.release(this.name, r)) this.st.released += r.count;
      else this.st.burned += r.count;
    }
  }

  stats(): Stats {
    return { ...this.st };
  }
}

/** A Batch that reserves the next range in the background when fewer than lowWatermark values remain. */
export function AsyncBatch(source: Seqd, name: string, opts: BatchOptions = {}): Batch {
  return new Batch(source, name, opts, true);
}
