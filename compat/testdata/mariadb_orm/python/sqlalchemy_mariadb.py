"""SQLAlchemy 2 on its MariaDB dialect (mariadb+pymysql), with its
defaults, against one server: seqd's MySQL protocol or MariaDB 10.11.

Usage: sqlalchemy_mariadb.py HOST PORT USER PASSWORD DATABASE. The dialect
must find sequences supported (it reads VERSION()); Sequence.create makes
the sequence (checking first that it is absent), four threads with a
connection each take 50 values each, half with conn.scalar(seq) and half
with select(seq.next_value()), all 200 distinct; an unknown sequence
raises SQLAlchemy's own exception, printed as "unknown: CLASS NUMBER" for
the caller to compare between servers. Exits non-zero at the first failure.
"""

import sys
import threading

from sqlalchemy import Sequence, create_engine, exc, select

host, port, user, password, db = sys.argv[1:6]
engine = create_engine(f"mariadb+pymysql://{user}:{password}@{host}:{port}/{db}")
seq = Sequence("sqla_s")

with engine.connect() as conn:
    assert engine.dialect.is_mariadb, "not taken for MariaDB"
    assert engine.dialect.supports_sequences, f"no sequences at {engine.dialect.server_version_info}"
seq.create(engine)
with engine.connect() as conn:
    assert engine.dialect.has_sequence(conn, "sqla_s"), "has_sequence: not found"

out, errs = [], []


def work():
    try:
        with engine.connect() as conn:
            for i in range(50):
                v = conn.scalar(seq) if i % 2 else conn.execute(select(seq.next_value())).scalar_one()
                out.append(v)
    except Exception as e:  # noqa: BLE001 - reported below
        errs.append(e)


ts = [threading.Thread(target=work) for _ in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
assert not errs, repr(errs[0])
assert len(out) == 200 and len(set(out)) == 200, f"{len(set(out))} distinct of {len(out)}"
print(f"values: 200 distinct, {min(out)}..{max(out)}")

with engine.connect() as conn:
    try:
        conn.execute(select(Sequence("sqla_missing").next_value()))
        raise AssertionError("an unknown sequence gave no error")
    except exc.DBAPIError as e:
        print(f"unknown: {type(e).__module__}.{type(e).__name__} {e.orig.args[0]}")
seq.drop(engine)
engine.dispose()
