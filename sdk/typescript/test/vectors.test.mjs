// The shared conformance vectors (testdata/protocol.json).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { Batch, Range, SeqdError, kindOf, parseShape, retryOf } from "../dist/esm/index.js";

const path = process.env.SEQD_PROTOCOL_VECTORS ?? new URL("../../../testdata/protocol.json", import.meta.url);
const V = JSON.parse(readFileSync(path, "utf8"));
const big = (s) => BigInt(s);

test("ranges", () => {
  for (const c of V.ranges) {
    const r = new Range(big(c.first), big(c.last), big(c.increment));
    assert.equal(r.count, big(c.count));
    c.values.forEach((v, i) => assert.equal(r.at(BigInt(i)), big(v)));
    for (const t of c.tail_after) {
      const tail = r.tail(big(t.used));
      assert.ok(tail);
      assert.equal(tail.first, big(t.first));
      assert.equal(tail.last, r.last);
    }
  }
});

test("shapes", () => {
  assert.ok(V.shapes.length > 50);
  for (const c of V.shapes) {
    const sh = parseShape(c.shape);
    const [v, ok] = new Range(1n, 1n, 1n, sh).value(big(c.counter));
    assert.equal(v, sh.shaped ? big(c.value) : big(c.counter), c.shape + " " + c.counter);
    assert.equal(ok, !c.skipped);
    if (sh.shaped) assert.equal(sh.toString(), c.shape);
  }
});

test("shape ranges", () => {
  for (const c of V.shape_ranges) {
    const r = new Range(big(c.first), big(c.last), 1n, parseShape(c.shape));
    assert.deepEqual([...r.values()], c.values.map(big));
  }
});

test("release", async () => {
  for (const c of V.release) {
    const released = [];
    const src = { release: async (_name, r) => (released.push(r), true) };
    const b = new Batch(src, "s", { size: 10 });
    const cur = c.current;
    b.setCur(new Range(big(cur.first), big(cur.last), big(cur.increment)));
    b.used = big(c.used_counters);
    if (c.prefetched) {
      const p = c.prefetched;
      b.nextRange = new Range(big(p.first), big(p.last), big(p.increment));
    }
    await b.close();
    assert.deepEqual(
      released.map((r) => [r.first, r.last]),
      c.release.map((w) => [big(w.first), big(w.last)]),
    );
  }
});

test("errors", () => {
  for (const c of V.errors) {
    assert.equal(kindOf(c.sqlstate), c.kind, c.sqlstate);
    assert.equal(retryOf(c.sqlstate), c.retry, c.sqlstate);
    assert.equal(new SeqdError("x", kindOf(c.sqlstate), c.sqlstate).retryable, c.retry !== "no");
  }
});

test("invalid shapes", () => {
  assert.ok(V.invalid_shapes.length > 30);
  for (const bad of V.invalid_shapes) {
    assert.throws(() => parseShape(bad), RangeError, JSON.stringify(bad));
  }
});

test("shape texts", () => {
  for (const c of V.shape_texts) {
    assert.equal(parseShape(c.text).toString(), c.shape, JSON.stringify(c.text));
  }
});

test("snowflake", () => {
  const sh = parseShape("snowflake 1288834974657000 1000 10 12 node 1023");
  assert.equal(sh.kind, "snowflake");
  assert.deepEqual(sh.snowflake, {
    epochMicros: 1288834974657000n,
    unitMicros: 1000n,
    nodeBits: 10,
    counterBits: 12,
    node: 1023n,
  });
  assert.equal(sh.value((1n << 53n) - 1n), (1n << 63n) - 1n);
  const layouts = new Set(V.shapes.map((c) => c.shape));
  for (const want of [
    "snowflake 1288834974657000 1000 10 12 node 0",
    "snowflake 1288834974657000 1000 10 12 node 1023",
    "snowflake 1409529600000000 10000 16 8 node 7",
    "snowflake 0 1000 0 18 node 0",
  ]) {
    assert.ok(layouts.has(want), want);
  }
});
