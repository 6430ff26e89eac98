// The CommonJS build: require() gives the same API.
const assert = require("node:assert/strict");
const { test } = require("node:test");

const seqd = require("../dist/cjs/index.js");

test("require('seqd') works", () => {
  assert.equal(typeof seqd.Batch, "function");
  assert.equal(typeof seqd.AsyncBatch, "function");
  assert.equal(seqd.parseShape("bit_reversed_positive").value(1n), 4611686018427387904n);
});
