// Node's own fetch against seqd's HTTP API, as an edge worker or a
// serverless function would call it: values taken concurrently are all
// distinct and increase per caller, a range is reserved and its tail
// released, and 404, 403 and 409 come with their SQLSTATEs.
// Usage: node http_api.mjs HOST PORT (the superuser seqd's password is
// "pw"; the role app's "app pw", without privileges on the sequence).
const [host, port] = process.argv.slice(2);
const base = `http://${host}:${port}/v1/sequences/public`;
const basic = (user, pw) =>
  "Basic " + Buffer.from(`${user}:${pw}`).toString("base64");
const su = basic("seqd", "pw");

async function call(method, path, body, auth = su) {
  const res = await fetch(base + path, {
    method,
    headers: {
      Authorization: auth,
      ...(body ? { "Content-Type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: text ? JSON.parse(text) : null,
  };
}

function check(cond, what) {
  if (!cond) throw new Error(what);
}

let r = await call("PUT", "/node_ids", { cache: "50" });
check(r.status === 201, `create: ${JSON.stringify(r)}`);

const seen = new Set();
await Promise.all(
  Array.from({ length: 8 }, async () => {
    let last = 0n;
    for (let i = 0; i < 40; i++) {
      const a = await call(
        "POST",
        "/node_ids/nextval",
        i % 2 ? { count: "2" } : null,
      );
      check(
        a.status === 200 && a.body.values.length === 1 + (i % 2),
        `nextval: ${JSON.stringify(a)}`,
      );
      for (const v of a.body.values) {
        const n = BigInt(v); // decimal strings: exact past 2^53
        check(
          !seen.has(v) && n > last,
          `value ${v} repeated or out of order (last ${last})`,
        );
        seen.add(v);
        last = n;
      }
    }
  }),
);
check(seen.size === 8 * 60, `${seen.size} distinct values`);

r = await call("POST", "/node_ids/reserve", { count: "10" });
check(
  r.status === 200 && BigInt(r.body.last) - BigInt(r.body.first) === 9n,
  `reserve: ${JSON.stringify(r)}`,
);
const rel = await call("POST", "/node_ids/release", {
  first: (BigInt(r.body.first) + 5n).toString(),
  last: r.body.last,
});
check(
  rel.status === 200 && rel.body.released === true,
  `release: ${JSON.stringify(rel)}`,
);

for (const [what, res, status, code] of [
  ["missing", await call("POST", "/nosuch/nextval"), 404, "42P01"],
  [
    "denied",
    await call("POST", "/node_ids/nextval", null, basic("app", "app pw")),
    403,
    "42501",
  ],
  ["taken", await call("PUT", "/node_ids"), 409, "42P07"],
  [
    "unauthenticated",
    await call("POST", "/node_ids/nextval", null, basic("app", "wrong")),
    401,
    "28P01",
  ],
]) {
  check(
    res.status === status &&
      res.body.sqlstate === code &&
      res.type === "application/problem+json",
    `${what}: ${JSON.stringify(res)}, want ${status} ${code}`,
  );
}
console.log(
  `node fetch: ${seen.size} values, range and problems as documented`,
);
