// Values per second on one event loop: each generator against calling
// nextval through the same driver, in one run. Usage: node bench.mjs DSN
import pg from "pg";

import { Async, AsyncBatch, Batch, Seqd } from "./dist/esm/index.js";

async function rate(f, seconds = 2) {
  let n = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  for (;;) {
    for (let i = 0; i < 1000; i++) {
      const r = f();
      if (r instanceof Promise) await r; // tryNext() gives a bigint: no promise to wait for
    }
    n += 1000;
    const now = performance.now();
    if (now >= deadline) return (n * 1000) / (now - start);
  }
}

const pool = new pg.Pool({ connectionString: process.argv[2], max: 4 });
const source = new Seqd(pool);
const name = `tsbench_${Date.now()}`;
await source.create(name, 1n, "cache 100000");
const client = await pool.connect();
const base = await rate(() => client.query({ name: "nv", text: "select nextval($1)", values: [name] }));
client.release();
const row = (label, r) =>
  console.log(
    label.padEnd(28) + Math.round(r).toLocaleString("en").padStart(14) + (r / base).toFixed(2).padStart(12),
  );
console.log("mode".padEnd(28) + "values/s".padStart(14) + "x nextval".padStart(12));
row("nextval (pg, prepared)", base);
for (const [label, g] of [
  ["Async", new Async(source, name)],
  ["Batch 1000", new Batch(source, name, { size: 1000 })],
  ["AsyncBatch 1M", AsyncBatch(source, name, { size: 1 << 20, lowWatermark: 1 << 18 })],
]) {
  row(label, await rate(() => g.next()));
  if (g instanceof Batch) row(label + ", tryNext()", await rate(() => g.tryNext() ?? g.next()));
  await g.close();
}
await pool.end();
