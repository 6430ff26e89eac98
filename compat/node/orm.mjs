// Sequelize, an ORM that loads its type map from the catalog at connect
// (pg_type joined with pg_range under WITH), against seqd with its
// defaults. Usage: node orm.mjs HOST PORT. It connects (the type map
// loaded and holding int8), creates a sequence, takes 200 values
// concurrently through its pool (all distinct), uses currval and setval
// with a bound parameter, meets an unknown sequence's error by its
// SQLSTATE, and takes a value in a managed transaction. Exits non-zero at
// the first failure.
import assert from 'node:assert/strict';
import sequelize from 'sequelize';

const { Sequelize, QueryTypes } = sequelize;
const [host, port] = process.argv.slice(2);
const db = new Sequelize('seqd', 'seqd', null, { host, port: Number(port), dialect: 'postgres', logging: false, pool: { max: 4 } });
const one = async (sql, options = {}) => (await db.query(sql, { type: QueryTypes.SELECT, ...options }))[0];

await db.authenticate();
const oids = db.connectionManager.nameOidMap;
assert.ok(oids.int8 && oids.int8.oid === 20 && oids.int8.arrayOid === 1016, `type map from pg_type: ${JSON.stringify(oids.int8)}`);
await db.query('CREATE SEQUENCE orm_s');
const values = await Promise.all(Array.from({ length: 200 }, () => one("SELECT nextval('orm_s') AS v")));
assert.equal(new Set(values.map((r) => String(r.v))).size, 200, 'repeated values');
await db.transaction(async (transaction) => {
  const r = await one("SELECT nextval('orm_s') AS v, currval('orm_s') AS c", { transaction });
  assert.equal(String(r.v), '201', 'nextval in a transaction');
  assert.equal(String(r.c), '201', 'currval');
  const s = await one('SELECT setval($1, $2) AS s', { bind: ['orm_s', 1000], transaction });
  assert.equal(String(s.s), '1000', 'setval with bound parameters');
});
assert.equal(String((await one("SELECT nextval('orm_s') AS v")).v), '1001', 'after setval');
await assert.rejects(one("SELECT nextval('orm_missing')"), (e) => e.original && e.original.code === '42P01', 'unknown sequence');
await db.query('DROP SEQUENCE orm_s');
await db.close();
console.log('sequelize: ok');
