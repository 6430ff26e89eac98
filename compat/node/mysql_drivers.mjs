// The Node.js MySQL stacks against seqd's MySQL protocol, each with its
// default settings: mysql2 (query, and execute: every statement
// a server-side prepared one, DDL too) and mariadb (MariaDB's connector). Usage: node
// mysql_drivers.mjs HOST PORT. Every stack logs in with the superuser's
// password (a wrong one gets 1045), creates a sequence, takes 200 values
// with NEXT VALUE FOR concurrently (all distinct), reads PREVIOUS VALUE
// FOR and LASTVAL, sets a value with a parameter, meets an unknown
// sequence's error by its number (4091) and runs a transaction. Exits
// non-zero at the first failure.
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import mariadb from 'mariadb';

const [host, port] = process.argv.slice(2);
const conf = { host, port: Number(port), user: 'seqd', password: 'pw', database: 'public' };

async function stack(name, pool, fresh, run) {
  const seq = `node_${name}`;
  await run(pool, `CREATE SEQUENCE ${seq} START WITH 1 INCREMENT BY 1 NOCACHE`);
  const calls = [];
  for (let i = 0; i < 200; i++) calls.push(run(pool, `SELECT NEXT VALUE FOR ${seq} AS v`));
  const values = (await Promise.all(calls)).map((rows) => String(rows[0].v));
  assert.equal(new Set(values).size, 200, `${name}: ${new Set(values).size} distinct of 200`);
  const c = await fresh(); // a session of its own
  try {
    let rows = await run(c, `SELECT PREVIOUS VALUE FOR ${seq} AS p`);
    assert.equal(rows[0].p, null, `${name}: PREVIOUS VALUE FOR before NEXTVAL in this session`);
    rows = await run(c, `SELECT NEXTVAL(${seq}) AS n, 0 AS z`);
    assert.equal(String(rows[0].n), '201', `${name}: NEXTVAL`);
    rows = await run(c, `SELECT LASTVAL(${seq}) AS l`);
    assert.equal(String(rows[0].l), '201', `${name}: LASTVAL`);
    rows = await run(c, `SELECT SETVAL(${seq}, ?) AS s`, [1000]);
    assert.equal(String(rows[0].s), '1000', `${name}: SETVAL`);
    rows = await run(c, `SELECT NEXTVAL(${seq}) AS n`);
    assert.equal(String(rows[0].n), '1001', `${name}: NEXTVAL after SETVAL`);
    await assert.rejects(run(c, 'SELECT NEXTVAL(node_missing)'), (e) => e.errno === 4091, `${name}: unknown sequence`);
    await c.beginTransaction();
    rows = await run(c, `SELECT NEXTVAL(${seq}) AS n`);
    assert.equal(String(rows[0].n), '1002', `${name}: in a transaction`);
    await c.commit();
    await run(c, `DROP SEQUENCE ${seq}`);
  } finally {
    await c.end();
  }
  console.log(`${name}: ok`);
}

// mysql2: the same statements through query() and through execute().
const query = async (c, sql, args) => (await c.query(sql, args))[0];
const execute = async (c, sql, args) => (await c.execute(sql, args))[0];
const my = mysql.createPool({ ...conf, connectionLimit: 4 });
await stack('mysql2_query', my, () => mysql.createConnection(conf), query);
await stack('mysql2_execute', my, () => mysql.createConnection(conf), execute);
await my.end();
await assert.rejects(mysql.createConnection({ ...conf, password: 'wrong' }), (e) => e.errno === 1045, 'mysql2: a wrong password');

const maria = mariadb.createPool({ ...conf, connectionLimit: 4 });
await stack('mariadb', maria, () => mariadb.createConnection(conf), async (c, sql, args) => c.query(sql, args));
await maria.end();
await assert.rejects(mariadb.createConnection({ ...conf, password: 'wrong' }), (e) => e.errno === 1045, 'mariadb: a wrong password');
console.log('wrong passwords refused');
