"""The seqd source: ranges of named sequences over a psycopg 3 pool."""

from __future__ import annotations

from typing import Any, Tuple

import psycopg

from ._errors import Invalid, wrap
from ._range import Range
from ._shape import parse_shape


def quote(name: str) -> str:
    """name as seqd_reserve and nextval read it: a quoted identifier."""
    return '"' + name.replace('"', '""') + '"'


class Seqd:
    """Reserves and gives back ranges of seqd sequences through a
    ``psycopg_pool.ConnectionPool`` (safe for concurrent use, as the pool
    is)."""

    def __init__(self, pool: Any):
        self.pool = pool

    def create(self, name: str, start: int = 1, options: str = "") -> None:
        """CREATE SEQUENCE name START WITH start [options], unless it exists."""
        self._run("create", name, f"CREATE SEQUENCE IF NOT EXISTS {quote(name)} START WITH {int(start)} {options}")

    def nextval(self, name: str) -> int:
        """One value: nextval(name)."""
        return int(self._one("nextval", name, "SELECT nextval(%s)", (quote(name),))[0])

    def reserve(self, name: str, n: int) -> Range:
        """The next n values of name (counters, for a shaped sequence)."""
        if n < 1:
            raise Invalid(f"seqd: reserve {n} values of {name!r}")
        if n == 1:
            v = self.nextval(name)
            return Range(v, v, 1)
        first, last, step, shape = self._one(
            "reserve", name, "SELECT first, last, increment, shape FROM seqd_reserve(%s, %s)", (quote(name), n)
        )
        return Range(first, last, step, parse_shape(shape))

    def release(self, name: str, r: Range) -> bool:
        """Gives r back; True when it was still the sequence's unused tail."""
        return bool(self._one("release", name, "SELECT seqd_release(%s, %s, %s)", (quote(name), r.first, r.last))[0])

    def _one(self, op: str, name: str, q: str, args: Tuple[Any, ...]) -> Tuple[Any, ...]:
        try:
            with self.pool.connection() as conn:
                row = conn.execute(q, args, prepare=True).fetchone()
        except psycopg.Error as e:
            raise wrap(op, name, e) from e
        assert row is not None
        return tuple(row)

    def _run(self, op: str, name: str, q: str) -> None:
        try:
            with self.pool.connection() as conn:
                conn.execute(q)
        except psycopg.Error as e:
            raise wrap(op, name, e) from e
