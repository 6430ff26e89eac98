"""SQLAlchemy 2: a mapped class's primary key from seqd, persisted into
PostgreSQL (the test database) from several threads."""

import os
import threading

import pytest
from sqlalchemy import String, create_engine, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

import seqd
import seqd.sqlalchemy


def test_entities_get_ids_from_seqd(source, name):
    pg = os.environ.get("SEQD_TEST_PG_DSN")
    if not pg:
        pytest.fail("SEQD_TEST_PG_DSN is not set")
    source.create(name)
    ids = seqd.AsyncBatch(source, name, size=100, low_watermark=30)

    class Base(DeclarativeBase):
        pass

    class Order(Base):
        __tablename__ = f"orders_{name}"
        id: Mapped[int] = seqd.sqlalchemy.id_column(ids)
        item: Mapped[str] = mapped_column(String(40))

    engine = create_engine(pg.replace("postgres://", "postgresql+psycopg://", 1))
    Base.metadata.create_all(engine)
    try:

        def work(t):
            for i in range(25):
                with Session(engine) as s, s.begin():
                    s.add_all([Order(item=f"t{t}-{i}-{j}") for j in range(4)])

        threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ids.close()
        with Session(engine) as s:
            n, distinct, top = s.execute(
                select(func.count(), func.count(Order.id.distinct()), func.max(Order.id))
            ).one()
        assert n == distinct == 600
        st = ids.stats()
        assert st.issued == 600 and top <= st.reserved
        assert source.nextval(name) > top  # drawn from seqd: the sequence is beyond every id
    finally:
        Base.metadata.drop_all(engine)
        engine.dispose()
