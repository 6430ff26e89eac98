"""The Python MySQL stacks against seqd's MySQL protocol, each with its
default settings.

Usage: mysql_drivers.py HOST PORT. Every stack connects (as seqd, password
"pw"; a wrong one gets 1045), creates a sequence,
takes 200 values with NEXT VALUE FOR from four threads (a connection each;
all distinct), reads PREVIOUS VALUE FOR and LASTVAL, sets a value with a
parameter, meets an unknown sequence's error by its number (4091), and runs
a transaction. Exits non-zero, with a traceback, at the first failure.
"""

import sys
import threading

import MySQLdb
import mysql.connector
import pymysql

HOST, PORT = sys.argv[1], int(sys.argv[2])


def stack(name, connect, errno_of):
    seq = f"py_{name}"
    conn = connect()
    cur = conn.cursor()
    cur.execute(f"CREATE SEQUENCE {seq} START WITH 1 INCREMENT BY 1 NOCACHE")
    conn.commit()

    out, errs = [], []

    def work():
        try:
            c = connect()
            k = c.cursor()
            for _ in range(50):
                k.execute(f"SELECT NEXT VALUE FOR {seq}")
                out.append(k.fetchone()[0])
            c.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errs.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs, f"{name}: {errs[0]!r}"
    assert len(out) == 200 and len(set(out)) == 200, f"{name}: {len(set(out))} distinct of {len(out)}"

    cur.execute(f"SELECT PREVIOUS VALUE FOR {seq}")
    assert cur.fetchone()[0] is None, f"{name}: PREVIOUS VALUE FOR before NEXTVAL in this session"
    cur.execute(f"SELECT NEXTVAL({seq})")
    (v,) = cur.fetchone()
    assert v == 201, f"{name}: NEXTVAL {v}"
    cur.execute(f"SELECT LASTVAL({seq}), PREVIOUS VALUE FOR {seq}")
    assert cur.fetchone() == (201, 201), f"{name}: LASTVAL"
    cur.execute(f"SELECT SETVAL({seq}, %s)", (1000,))
    assert cur.fetchone()[0] == 1000, f"{name}: SETVAL"
    cur.execute(f"SELECT NEXTVAL({seq})")
    assert cur.fetchone()[0] == 1001, f"{name}: NEXTVAL after SETVAL"
    try:
        cur.execute("SELECT NEXT VALUE FOR py_missing")
        cur.fetchall()
        raise AssertionError(f"{name}: an unknown sequence gave no error")
    except Exception as e:  # noqa: BLE001 - the driver's own error class
        assert errno_of(e) == 4091, f"{name}: {e!r}, want 4091"

    conn.begin() if hasattr(conn, "begin") else cur.execute("BEGIN")
    cur.execute(f"SELECT NEXTVAL({seq})")
    assert cur.fetchone()[0] == 1002, f"{name}: in a transaction"
    conn.commit()
    cur.execute(f"DROP SEQUENCE {seq}")
    conn.close()
    print(f"{name}: ok")


stack("pymysql", lambda: pymysql.connect(host=HOST, port=PORT, user="seqd", password="pw", database="public"),
      lambda e: e.args[0])
stack("mysqlclient", lambda: MySQLdb.connect(host=HOST, port=PORT, user="seqd", password="pw", database="public"),
      lambda e: e.args[0])
stack("mysql_connector", lambda: mysql.connector.connect(host=HOST, port=PORT, user="seqd", password="pw", database="public"),
      lambda e: e.errno)

# A wrong password is refused with 1045, by every one.
for name, connect, errno_of in [
    ("pymysql", lambda: pymysql.connect(host=HOST, port=PORT, user="seqd", password="wrong"), lambda e: e.args[0]),
    ("mysqlclient", lambda: MySQLdb.connect(host=HOST, port=PORT, user="seqd", password="wrong"), lambda e: e.args[0]),
    ("mysql_connector", lambda: mysql.connector.connect(host=HOST, port=PORT, user="seqd", password="wrong"), lambda e: e.errno),
]:
    try:
        connect()
        raise AssertionError(f"{name}: a wrong password was let in")
    except AssertionError:
        raise
    except Exception as e:  # noqa: BLE001 - the driver's own error class
        assert errno_of(e) == 1045, f"{name}: {e!r}, want 1045"
    print(f"{name}: wrong password refused")
