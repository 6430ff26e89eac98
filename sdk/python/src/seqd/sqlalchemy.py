"""SQLAlchemy 2 integration: a mapped class's primary key from a seqd
generator, as a column default::

    ids = seqd.AsyncBatch(seqd.Seqd(pool), "order_ids", size=1000)

    class Order(Base):
        __tablename__ = "orders"
        id: Mapped[int] = seqd.sqlalchemy.id_column(ids)

SQLAlchemy calls the generator once per row it inserts (also for
executemany), so each row's id is drawn from seqd, in blocks, without a
database sequence or a round trip per row."""

from __future__ import annotations

from typing import Any, Protocol

from sqlalchemy import BigInteger
from sqlalchemy.orm import MappedColumn, mapped_column


class Generator(Protocol):
    def next(self) -> int: ...


def default(generator: Generator) -> Any:
    """A column default that takes the next value of generator."""

    def next_id() -> int:
        return generator.next()

    return next_id


def id_column(generator: Generator, **kw: Any) -> MappedColumn[Any]:
    """A BIGINT primary key whose value comes from generator on insert."""
    kw.setdefault("primary_key", True)
    kw.setdefault("autoincrement", False)
    return mapped_column(BigInteger, default=default(generator), **kw)
