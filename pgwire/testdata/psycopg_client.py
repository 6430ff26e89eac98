"""A psycopg 3 client of seqd: run by TestPsycopg with seqd's DSN.

Each check raises on a difference; the last line printed tells the test
that every check ran.
"""
import sys

import psycopg
from psycopg import errors

dsn = sys.argv[1]

with psycopg.connect(dsn, autocommit=True) as conn:
    conn.execute("create sequence py_orders start 100 increment 5 cache 50")
    # Server-side binding (extended protocol), then a named prepared statement.
    vals = [conn.execute("select nextval(%s)", ("py_orders",)).fetchone()[0] for _ in range(3)]
    assert vals == [100, 105, 110], vals
    vals = [conn.execute("select nextval('py_orders')", prepare=True).fetchone()[0] for _ in range(3)]
    assert vals == [115, 120, 125], vals
    assert conn.execute("select setval('py_orders', 1000)").fetchone()[0] == 1000
    assert conn.execute("select nextval('py_orders')").fetchone()[0] == 1005
    assert conn.execute("select currval('py_orders')").fetchone()[0] == 1005
    cur = conn.execute("select nextval('py_orders') from generate_series(1, 1000)")
    got = [r[0] for r in cur]
    assert got == list(range(1010, 6010, 5)), got[:3]
    first, last, inc, shape = conn.execute("select * from seqd_reserve('py_orders', 10)").fetchone()
    assert (first, last, inc, shape) == (6010, 6055, 5, None), (first, last, inc, shape)

    # Errors carry PostgreSQL's SQLSTATEs and leave the connection usable.
    try:
        conn.execute("select nextval('py_missing')")
        raise AssertionError("no error for an unknown sequence")
    except errors.UndefinedTable as e:
        assert e.sqlstate == "42P01", e.sqlstate
    try:
        conn.execute("create sequence py_orders")
        raise AssertionError("no error for a duplicate")
    except errors.DuplicateTable as e:
        assert e.sqlstate == "42P07"
    try:
        conn.execute("create sequence py_bad minvalue 10 maxvalue 1")
        raise AssertionError("no error for impossible options")
    except errors.InvalidParameterValue as e:
        assert "MINVALUE (10) must be less than MAXVALUE (1)" in str(e), str(e)
    try:
        conn.execute("selec 1")
        raise AssertionError("no error for bad SQL")
    except errors.SyntaxError as e:
        assert e.sqlstate == "42601"
    assert conn.execute("select 1").fetchone()[0] == 1

# Not in autocommit: psycopg wraps statements in a transaction, and after
# an error the block must be rolled back before the next statement.
with psycopg.connect(dsn) as conn:
    assert conn.execute("select nextval('py_orders')").fetchone()[0] == 6060
    conn.commit()
    try:
        conn.execute("select currval('py_never')")
    except errors.UndefinedTable:
        pass
    try:
        conn.execute("select 1")
        raise AssertionError("a failed transaction accepted a command")
    except errors.InFailedSqlTransaction:
        pass
    conn.rollback()
    assert conn.execute("select nextval('py_orders')").fetchone()[0] == 6065
    conn.execute("drop sequence py_orders")
    conn.commit()

print("psycopg client: ok")
