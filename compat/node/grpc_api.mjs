// Drives seqd's gRPC service with @grpc/grpc-js, the service loaded from
// the repository's .proto by @grpc/proto-loader (int64 as strings, read
// as BigInt): values taken concurrently are all distinct and in order
// per caller, a range is reserved and its tail released, ranges flow over
// one stream, and NOT_FOUND, PERMISSION_DENIED and FAILED_PRECONDITION
// come with their SQLSTATEs (the seqd-sqlstate trailer).
//
// Usage: node grpc_api.mjs ADDRESS PROTO_ROOT SUPERUSER PASSWORD ROLE ROLE_PASSWORD
// Prints a JSON summary; exits non-zero on the first failure.
import assert from "node:assert/strict";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const [address, protoRoot, su, suPw, role, rolePw] = process.argv.slice(2);
const def = protoLoader.loadSync("seqd/v1/sequences.proto", {
  includeDirs: [protoRoot],
  longs: String,
  defaults: true,
});
const { seqd } = grpc.loadPackageDefinition(def);
const client = new seqd.v1.Sequences(
  address,
  grpc.credentials.createInsecure(),
);

const creds = (user, password) => {
  const md = new grpc.Metadata();
  md.set(
    "authorization",
    "Basic " + Buffer.from(`${user}:${password}`).toString("base64"),
  );
  return md;
};
const SU = creds(su, suPw);
const seq = (name) => ({ schema: "public", name });
const call = (method, req, md = SU) =>
  new Promise((resolve, reject) =>
    client[method](req, md, (err, res) => (err ? reject(err) : resolve(res))),
  );

async function fails(what, promise, code, sqlstate) {
  try {
    await promise;
  } catch (e) {
    assert.equal(e.code, code, `${what}: ${e.code} ${e.details}`);
    assert.deepEqual(
      e.metadata.get("seqd-sqlstate"),
      [sqlstate],
      `${what}: trailer`,
    );
    return;
  }
  assert.fail(`${what}: succeeded`);
}

// Concurrent takers, all distinct, in order per taker.
const takers = await Promise.all(
  Array.from({ length: 8 }, async () => {
    const got = [];
    for (let i = 0; i < 25; i++) {
      const r = await call("Next", {
        sequence: seq("shared"),
        count: String(1 + (i % 3)),
      });
      assert.equal(r.values.length, 1 + (i % 3));
      got.push(...r.values.map(BigInt));
    }
    for (let i = 1; i < got.length; i++)
      assert.ok(got[i - 1] < got[i], `out of order: ${got}`);
    return got;
  }),
);
const values = takers.flat();
assert.equal(new Set(values).size, values.length);
assert.equal(values.length, 8 * 49);

const r = await call("Reserve", { sequence: seq("shared"), count: "100" });
assert.equal(BigInt(r.last) - BigInt(r.first), 99n);
const rel = await call("Release", {
  sequence: seq("shared"),
  first: String(BigInt(r.first) + 10n),
  last: r.last,
});
assert.equal(rel.released, true);
const n = await call("Next", { sequence: seq("shared") });
assert.deepEqual(n.values, [String(BigInt(r.first) + 10n)]);

// Ranges over one stream: three requests written before any answer.
const stream = client.Ranges(SU);
const ranges = [];
const ended = new Promise((resolve, reject) => {
  stream.on("data", (x) => ranges.push(x));
  stream.on("end", resolve);
  stream.on("error", reject);
});
for (const c of [10, 20, 30])
  stream.write({ sequence: seq("shared"), count: String(c) });
stream.end();
await ended;
assert.deepEqual(
  ranges.map((x) => BigInt(x.last) - BigInt(x.first) + 1n),
  [10n, 20n, 30n],
);
assert.ok(BigInt(ranges[0].last) < BigInt(ranges[1].first));

await fails(
  "no such sequence",
  call("Next", { sequence: seq("nosuch") }),
  grpc.status.NOT_FOUND,
  "42P01",
);
await fails(
  "a role without USAGE",
  call("Next", { sequence: seq("shared") }, creds(role, rolePw)),
  grpc.status.PERMISSION_DENIED,
  "42501",
);
await call("Next", { sequence: seq("small") });
await fails(
  "a sequence at its limit",
  call("Next", { sequence: seq("small") }),
  grpc.status.FAILED_PRECONDITION,
  "2200H",
);

client.close();
console.log(JSON.stringify({ values: values.length, ranges: ranges.length }));
