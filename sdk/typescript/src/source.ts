import { SeqdError, wrap } from "./errors.js";
import { Range } from "./range.js";
import { parseShape } from "./shape.js";

/** What the source needs of a node-postgres Pool (or Client). */
export interface Queryable {
  query(q: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: Record<string, unknown>[] }>;
}

/** name as seqd_reserve and nextval read it: a quoted identifier. */
export function quote(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

/** Reserves and gives back ranges of seqd sequences through a node-postgres Pool. int8 columns are read as text and parsed as bigint. */
export class Seqd {
  constructor(readonly pool: Queryable) {}

  /** CREATE SEQUENCE name START WITH start [options], unless it exists. */
  async create(name: string, start: bigint = 1n, options = ""): Promise<void> {
    await this.run("create", name, {
      text: `CREATE SEQUENCE IF NOT EXISTS ${quote(name)} START WITH ${start} ${options}`,
    });
  }

  /** One value: nextval(name). */
  async nextval(name: string): Promise<bigint> {
    const row = await this.run("nextval", name, {
      name: "seqd_nextval",
      text: "SELECT nextval($1)::text AS v",
      values: [quote(name)],
    });
    return BigInt(row.v as string);
  }

  /** The next n values of name (counters, for a shaped sequence). */
  async reserve(name: string, n: bigint): Promise<Range> {
    if (n < 1n) throw new SeqdError(`seqd: reserve ${n} values of ${JSON.stringify(name)}`, "invalid");
    if (n === 1n) {
      const v = await this.nextval(name);
      return new Range(v, v, 1n);
    }
    const row = await this.run("reserve", name, {
      name: "seqd_reserve",
      text: "SELECT first::text, last::text, increment::text, shape FROM seqd_reserve($1, $2)",
      values: [quote(name), n.toString()],
    });
    return new Range(
      BigInt(row.first as string),
      BigInt(row.last as string),
      BigInt(row.increment as string),
      parseShape(row.shape as string | null),
    );
  }

  /** Gives r back; true when it was still the sequence's unused tail. */
  async release(name: string, r: Range): Promise<boolean> {
    const row = await this.run("release", name, {
      name: "seqd_release",
      text: "SELECT seqd_release($1, $2, $3) AS ok",
      values: [quote(name), r.first.toString(), r.last.toString()],
    });
    return row.ok === true;
  }

  private async run(
    op: string,
    name: string,
    q: { text: string; values?: unknown[]; name?: string },
  ): Promise<Record<string, unknown>> {
    try {
      const res = await this.pool.query(q);
      return res.rows[0] ?? {};
    } catch (e) {
      throw wrap(op, name, e);
    }
  }
}
