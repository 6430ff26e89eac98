// The generators against a real seqd (SEQD_TEST_DSN).
import assert from "node:assert/strict";
import { after, test } from "node:test";

import pg from "pg";

import { Async, AsyncBatch, Batch, Range, Seqd, SeqdError, parseShape } from "../dist/esm/index.js";

const dsn = process.env.SEQD_TEST_DSN;
assert.ok(dsn, "SEQD_TEST_DSN is not set: run through go test ./sdk (the README's test command)");
const pool = new pg.Pool({ connectionString: dsn, max: 8 });
after(() => pool.end());
const source = new Seqd(pool);
let seq = 0;
const fresh = () => `ts_${process.pid}_${Date.now()}_${seq++}`;

test("async is nextval", async () => {
  const name = fresh();
  await source.create(name);
  const g = new Async(source, name);
  assert.deepEqual([await g.next(), await g.next(), await g.next()], [1n, 2n, 3n]);
  await g.close();
  await assert.rejects(g.next(), (e) => e instanceof SeqdError && e.kind === "closed");
});

test("batch gives the tail back", async () => {
  const name = fresh();
  await source.create(name);
  const g = new Batch(source, name, { size: 100 });
  for (let want = 1n; want <= 10n; want++) assert.equal(await g.next(), want);
  await g.close();
  const st = g.stats();
  assert.deepEqual([st.issued, st.released, st.burned, st.fetches], [10n, 90n, 0n, 1]);
  assert.equal(await source.nextval(name), 11n);
});

for (const [label, make] of [
  ["batch", (n) => new Batch(source, n, { size: 50 })],
  ["async-batch", (n) => AsyncBatch(source, n, { size: 50, lowWatermark: 20 })],
  ["async", (n) => new Async(source, n)],
]) {
  test(`concurrent next() calls are unique (${label})`, async () => {
    const name = fresh();
    await source.create(name);
    const g = make(name);
    const workers = Array.from({ length: 8 }, async () => {
      const got = [];
      for (let i = 0; i < 200; i++) got.push(await g.next());
      return got;
    });
    const all = (await Promise.all(workers)).flat();
    await g.close();
    assert.equal(new Set(all).size, 1600);
    const st = g.stats();
    assert.equal(st.issued, 1600n);
    assert.equal(st.issued + st.released + st.burned, st.reserved);
  });
}

test("tryNext hands out from memory and leaves reservations to next()", async () => {
  const name = fresh();
  await source.create(name);
  const g = AsyncBatch(source, name, { size: 10, lowWatermark: 3 });
  assert.equal(g.tryNext(), undefined); // nothing reserved yet
  const got = [];
  for (let i = 0; i < 35; i++) got.push(g.tryNext() ?? (await g.next()));
  assert.deepEqual(
    got,
    Array.from({ length: 35 }, (_, i) => BigInt(i + 1)),
  );
  await g.close();
  assert.equal(g.tryNext(), undefined);
  const st = g.stats();
  assert.equal(st.issued, 35n);
  assert.equal(st.issued + st.released + st.burned, st.reserved);
});

test("values beyond 2^53 stay exact (bigint)", async () => {
  const name = fresh();
  await source.create(name, 9007199254740993n); // 2^53 + 1: not a double
  const g = new Batch(source, name, { size: 10 });
  assert.equal(await g.next(), 9007199254740993n);
  assert.equal(await g.next(), 9007199254740994n);
  await g.close();
});

test("shaped sequences", async () => {
  const name = fresh();
  await pool.query(
    `create sequence "${name}" bit_reversed_positive skip range 2305843009213693952 6917529027641081856`,
  );
  const sh = parseShape("bit_reversed_positive skip 2305843009213693952 6917529027641081856");
  const want = [...new Range(1n, 400n, 1n, sh).values()];
  const g = new Batch(source, name, { size: 32 });
  for (let i = 0; i < 100; i++) assert.equal(await g.next(), want[i]);
  await g.close();
  assert.equal(await source.nextval(name), want[100]); // the tail came back
});

test("snowflake sequences", async () => {
  const name = fresh();
  await pool.query(`create sequence "${name}" snowflake`);
  const sh = (await source.reserve(name, 10n)).shape;
  assert.equal(sh.kind, "snowflake");
  assert.equal(sh.toString(), `snowflake 1288834974657000 1000 10 12 node ${sh.snowflake.node}`);
  const got = [];
  for (const make of [
    () => new Batch(source, name, { size: 32 }),
    () => AsyncBatch(source, name, { size: 32, lowWatermark: 8 }),
  ]) {
    const g = make();
    for (let i = 0; i < 100; i++) got.push(await g.next());
    await g.close();
  }
  const now = BigInt(Date.now()) * 1000n;
  got.forEach((v, i) => {
    assert.ok(i === 0 || v > got[i - 1], "in order, every value new");
    assert.equal((v >> 12n) & 1023n, sh.snowflake.node);
    // The time part is the clock's, or up to 10 s ahead of it.
    const t = sh.snowflake.epochMicros + (v >> 22n) * sh.snowflake.unitMicros;
    assert.ok(t - now < 600_000_000n && now - t < 600_000_000n, `${v}: time ${t}, now ${now}`);
  });
});

test("errors keep the SQLSTATE", async () => {
  await assert.rejects(
    new Batch(source, "no_such_sequence", { size: 10 }).next(),
    (e) => e instanceof SeqdError && e.kind === "not_found" && e.sqlstate === "42P01" && !e.retryable,
  );
  const name = fresh();
  await source.create(name, 1n, "maxvalue 5");
  const g = new Batch(source, name, { size: 4 });
  for (let want = 1n; want <= 5n; want++) assert.equal(await g.next(), want);
  await assert.rejects(g.next(), (e) => e.kind === "limit_reached" && e.sqlstate === "2200H");
});
