// The Node.js stacks against seqd, each with its default settings: pg
// (node-postgres) Pool and postgres.js. Usage: node drivers.mjs HOST PORT.
// Every stack creates a sequence, calls nextval concurrently (all values
// distinct), uses currval and setval, meets one error by its SQLSTATE, and
// runs a transaction block with a savepoint. Exits non-zero at the first
// failure.
import assert from 'node:assert/strict';
import pg from 'pg';
import postgres from 'postgres';

const [host, port] = process.argv.slice(2);

function distinct(name, values, want) {
  assert.equal(values.length, want, `${name}: ${values.length} values`);
  assert.equal(new Set(values.map(String)).size, want, `${name}: repeated values`);
}

async function nodePostgres() {
  const pool = new pg.Pool({ host, port: Number(port), user: 'seqd', database: 'seqd', max: 4 });
  const name = 'node_pg_s';
  await pool.query(`create sequence ${name}`);
  const calls = [];
  for (let i = 0; i < 200; i++) calls.push(pool.query('select nextval($1) as v', [name]));
  distinct(name, (await Promise.all(calls)).map((r) => r.rows[0].v), 200);
  await pool.query('select setval($1, $2)', [name, 1000]);
  const c = await pool.connect();
  try {
    const r = await c.query('select nextval($1) as n, currval($1) as c', [name]);
    assert.deepEqual([r.rows[0].n, r.rows[0].c], ['1001', '1001']);
    await assert.rejects(c.query("select nextval('node_missing')"), (e) => e.code === '42P01');
    await c.query('begin');
    await c.query(`select nextval('${name}')`);
    await c.query('savepoint a');
    await assert.rejects(c.query('select 1/0'), (e) => e.code === '22012');
    await c.query('rollback to savepoint a');
    const r2 = await c.query(`select nextval('${name}') as v`);
    assert.equal(r2.rows[0].v, '1003');
    await c.query('commit');
  } finally {
    c.release();
  }
  await pool.end();
}

async function postgresJs() {
  const sql = postgres({ host, port: Number(port), user: 'seqd', database: 'seqd', max: 4 });
  const name = 'node_pjs_s';
  await sql.unsafe(`create sequence ${name}`);
  const calls = [];
  for (let i = 0; i < 200; i++) calls.push(sql`select nextval(${name}) as v`);
  distinct(name, (await Promise.all(calls)).map((r) => r[0].v), 200);
  await sql`select setval(${name}, 1000)`;
  await sql.begin(async (tx) => {
    const [r] = await tx`select nextval(${name}) as n, currval(${name}) as c`;
    assert.deepEqual([String(r.n), String(r.c)], ['1001', '1001']);
    await tx.savepoint(async (sp) => {
      await sp`select nextval(${name})`;
    });
    await assert.rejects(tx.savepoint((sp) => sp`select 1/0`), (e) => e.code === '22012');
    const [r2] = await tx`select nextval(${name}) as v`;
    assert.equal(String(r2.v), '1003');
  });
  await assert.rejects(sql`select nextval('node_missing')`, (e) => e.code === '42P01');
  await sql.end();
}

const stacks = { pg: nodePostgres, 'postgres.js': postgresJs };
for (const [name, run] of Object.entries(stacks)) {
  await run();
  console.log(`${name}: ok`);
}
