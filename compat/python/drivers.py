"""The Python stacks against seqd, each with its default settings.

Usage: drivers.py HOST PORT. Every stack creates a sequence, calls nextval
from several threads or tasks (all values distinct), uses currval and
setval, meets one error by its SQLSTATE, and runs a transaction block with
a savepoint; then what is particular to it (psycopg2's named cursors,
asyncpg's Pool reset, SQLAlchemy's checkfirst and inspector). Exits
non-zero, with a traceback, at the first failure.
"""

import asyncio
import sys
import threading

HOST, PORT = sys.argv[1], int(sys.argv[2])
DSN = f"postgresql://seqd@{HOST}:{PORT}/seqd"


def check_distinct(name, values, want):
    assert len(values) == want, f"{name}: {len(values)} values, want {want}"
    assert len(set(values)) == want, f"{name}: repeated values"


def threaded(name, connect, per=50, threads=4):
    """nextval from several threads, a connection each."""
    out, errs = [], []

    def work():
        try:
            conn = connect()
            cur = conn.cursor()
            for _ in range(per):
                cur.execute(f"select nextval('{name}')")
                out.append(cur.fetchone()[0])
            conn.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errs.append(e)

    ts = [threading.Thread(target=work) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs, errs
    check_distinct(name, out, per * threads)


def psycopg2_stack():
    import psycopg2
    import psycopg2.errors

    name = "py2_s"
    conn = psycopg2.connect(DSN)
    cur = conn.cursor()
    cur.execute(f"create sequence {name}")
    conn.commit()
    threaded(name, lambda: psycopg2.connect(DSN))
    cur.execute("select setval(%s, %s)", (name, 1000))
    cur.execute("select nextval(%s), currval(%s)", (name, name))
    assert cur.fetchone() == (1001, 1001)
    try:
        cur.execute("select nextval('py2_missing')")
        raise AssertionError("no error")
    except psycopg2.errors.UndefinedTable as e:
        assert e.pgcode == "42P01"
    conn.rollback()
    # A transaction block with a savepoint (psycopg2 opens the block).
    cur.execute(f"select nextval('{name}')")
    cur.execute("savepoint a")
    try:
        cur.execute("select 1/0")
        raise AssertionError("no error")
    except psycopg2.errors.DivisionByZero:
        pass
    cur.execute("rollback to savepoint a")
    cur.execute(f"select nextval('{name}')")
    assert cur.fetchone()[0] == 1003
    conn.commit()
    # A named (server-side) cursor: DECLARE, FETCH in batches, CLOSE.
    named = conn.cursor("ids")
    named.itersize = 7
    named.execute(f"select nextval('{name}') from generate_series(1, 20)")
    got = [r[0] for r in named]
    assert got == list(range(1004, 1024)), got
    named.close()
    conn.commit()
    conn.close()


def psycopg3_stack():
    import psycopg
    from psycopg import errors

    name = "py3_s"
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(f"create sequence {name}")
        threaded(name, lambda: psycopg.connect(DSN, autocommit=True))
        conn.execute("select setval(%s, %s)", (name, 1000))
        assert conn.execute("select nextval(%s), currval(%s)", (name, name)).fetchone() == (1001, 1001)
        try:
            conn.execute("select nextval('py3_missing')")
            raise AssertionError("no error")
        except errors.UndefinedTable as e:
            assert e.sqlstate == "42P01"
        with conn.transaction():
            conn.execute(f"select nextval('{name}')")
            try:
                with conn.transaction():  # a savepoint
                    conn.execute("select nextval('py3_missing')")
            except errors.UndefinedTable:
                pass
            assert conn.execute(f"select nextval('{name}')").fetchone()[0] == 1003
    with psycopg.connect(DSN) as conn:  # a server-side cursor, in a block
        with conn.cursor(name="c3") as cur:
            cur.itersize = 3
            cur.execute(f"select nextval('{name}') from generate_series(1, 10)")
            assert [r[0] for r in cur] == list(range(1004, 1014))


async def asyncpg_stack():
    import asyncpg

    name = "apg_s"
    conn = await asyncpg.connect(DSN)
    await conn.execute(f"create sequence {name}")
    assert await conn.fetchval("select setval($1, $2)", name, 1000) == 1000
    row = await conn.fetchrow("select nextval($1), currval($1)", name)
    assert tuple(row) == (1001, 1001), row
    try:
        await conn.fetchval("select nextval('apg_missing')")
        raise AssertionError("no error")
    except asyncpg.exceptions.UndefinedTableError as e:
        assert e.sqlstate == "42P01"
    async with conn.transaction():
        await conn.fetchval(f"select nextval('{name}')")
        try:
            async with conn.transaction():  # a savepoint
                await conn.fetchval("select 1/0")
        except asyncpg.exceptions.DivisionByZeroError:
            pass
        assert await conn.fetchval(f"select nextval('{name}')") == 1003
    await conn.close()
    # The Pool resets a connection on release (pg_advisory_unlock_all,
    # CLOSE ALL, UNLISTEN *, RESET ALL): a call after it must work.
    pool = await asyncpg.create_pool(DSN, min_size=2, max_size=4)

    async def take(n):
        out = []
        for _ in range(n):
            async with pool.acquire() as c:
                out.append(await c.fetchval("select nextval($1)", name))
        return out

    values = sum(await asyncio.gather(*(take(25) for _ in range(8))), [])
    check_distinct(name, values, 200)
    await pool.close()


def sqlalchemy_stack(url, name):
    from sqlalchemy import Sequence, create_engine, inspect, select, text

    eng = create_engine(url)
    seq = Sequence(name, start=10)
    with eng.begin() as conn:
        seq.create(conn, checkfirst=True)
        seq.create(conn, checkfirst=True)  # exists: skipped
        assert conn.execute(select(seq.next_value())).scalar() == 10
        assert name in inspect(conn).get_sequence_names()
        assert inspect(conn).has_sequence(name)
        assert conn.execute(text("select currval(:s)"), {"s": name}).scalar() == 10
    eng.dispose()


async def sqlalchemy_async_stack(url, name):
    from sqlalchemy import Sequence, select
    from sqlalchemy.ext.asyncio import create_async_engine

    eng = create_async_engine(url)
    seq = Sequence(name, start=10)
    async with eng.begin() as conn:
        await conn.run_sync(lambda c: seq.create(c, checkfirst=True))
        assert (await conn.execute(select(seq.next_value()))).scalar() == 10
        names = await conn.run_sync(lambda c: __import__("sqlalchemy").inspect(c).get_sequence_names())
        assert name in names, names
    await eng.dispose()


def main():
    stacks = sys.argv[3:] or ["psycopg2", "psycopg", "asyncpg", "sqlalchemy"]
    for s in stacks:
        if s == "psycopg2":
            psycopg2_stack()
        elif s == "psycopg":
            psycopg3_stack()
        elif s == "asyncpg":
            asyncio.run(asyncpg_stack())
        elif s == "sqlalchemy":
            sqlalchemy_stack(f"postgresql+psycopg2://seqd@{HOST}:{PORT}/seqd", "sa2_s")
            sqlalchemy_stack(f"postgresql+psycopg://seqd@{HOST}:{PORT}/seqd", "sa3_s")
            asyncio.run(sqlalchemy_async_stack(f"postgresql+asyncpg://seqd@{HOST}:{PORT}/seqd", "saa_s"))
        print(f"{s}: ok")


main()
