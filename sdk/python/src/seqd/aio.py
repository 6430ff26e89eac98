"""The asyncio flavour: the same source and generators over a
``psycopg_pool.AsyncConnectionPool``, with ``await gen.next()`` and
``async with``. A generator belongs to one event loop."""

from __future__ import annotations

import asyncio
from typing import Any, List, Optional, Tuple

import psycopg

from ._errors import Closed, Invalid, SeqdError, wrap
from ._gen import Stats
from ._range import Range
from ._shape import parse_shape
from ._source import quote


class Seqd:
    """Reserves and gives back ranges of seqd sequences through an
    AsyncConnectionPool."""

    def __init__(self, pool: Any):
        self.pool = pool

    async def create(self, name: str, start: int = 1, options: str = "") -> None:
        try:
            async with self.pool.connection() as conn:
                await conn.execute(f"CREATE SEQUENCE IF NOT EXISTS {quote(name)} START WITH {int(start)} {options}")
        except psycopg.Error as e:
            raise wrap("create", name, e) from e

    async def nextval(self, name: str) -> int:
        return int((await self._one("nextval", name, "SELECT nextval(%s)", (quote(name),)))[0])

    async def reserve(self, name: str, n: int) -> Range:
        if n < 1:
            raise Invalid(f"seqd: reserve {n} values of {name!r}")
        if n == 1:
            v = await self.nextval(name)
            return Range(v, v, 1)
        first, last, step, shape = await self._one(
            "reserve", name, "SELECT first, last, increment, shape FROM seqd_reserve(%s, %s)", (quote(name), n)
        )
        return Range(first, last, step, parse_shape(shape))

    async def release(self, name: str, r: Range) -> bool:
        row = await self._one("release", name, "SELECT seqd_release(%s, %s, %s)", (quote(name), r.first, r.last))
        return bool(row[0])

    async def _one(self, op: str, name: str, q: str, args: Tuple[Any, ...]) -> Tuple[Any, ...]:
        try:
            async with self.pool.connection() as conn:
                cur = await conn.execute(q, args, prepare=True)
                row = await cur.fetchone()
        except psycopg.Error as e:
            raise wrap(op, name, e) from e
        assert row is not None
        return tuple(row)


class Async:
    """One nextval per value."""

    def __init__(self, source: Seqd, name: str):
        self.source, self.name = source, name
        self._closed = False
        self._issued = 0

    async def next(self) -> int:
        if self._closed:
            raise Closed(f"seqd: generator {self.name!r} closed")
        v = await self.source.nextval(self.name)
        self._issued += 1
        return v

    async def aclose(self) -> None:
        self._closed = True

    def stats(self) -> Stats:
        return Stats(reserved=self._issued, issued=self._issued, fetches=self._issued, waits=self._issued, size=1)

    async def __aenter__(self) -> "Async":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class Batch:
    """Batch, and with low_watermark AsyncBatch (a prefetch task), as in
    the threaded flavour."""

    def __init__(self, source: Seqd, name: str, size: int = 1000, low_watermark: Optional[int] = None):
        if size < 1:
            raise Invalid(f"seqd: batch size {size}")
        self.source, self.name, self._size = source, name, size
        self._async = low_watermark is not None
        self._low = low_watermark if low_watermark else size // 4
        self._cur: Optional[Range] = None
        self._cur_n = 0
        self._used = 0
        self._next: Optional[Range] = None
        self._task: Optional["asyncio.Task[Range]"] = None
        self._closed = False
        self._stats = Stats(size=size)

    async def next(self) -> int:
        while True:
            if self._closed:
                raise Closed(f"seqd: generator {self.name!r} closed")
            if self._cur is not None and self._used < self._cur_n:
                c = self._cur.first + self._used * self._cur.step
                self._used += 1
                v, ok = self._cur.value_of(c)
                if not ok:
                    continue
                self._stats.issued += 1
                if self._async and self._cur_n - self._used < self._low and self._task is None and self._next is None:
                    self._task = asyncio.ensure_future(self.source.reserve(self.name, self._size))
                return v
            if self._next is not None:
                self._set(self._next)
                self._next = None
                continue
            if self._task is None:
                self._task = asyncio.ensure_future(self.source.reserve(self.name, self._size))
            self._stats.waits += 1
            await self._collect()

    async def _collect(self) -> None:
        """Waits for the reservation in flight and takes its range; of
        several coroutines waiting for it, the first to resume takes it."""
        task = self._task
        assert task is not None
        try:
            r = await asyncio.shield(task)
        except BaseException:
            if self._task is task and task.done():
                self._task = None
            raise
        if self._task is not task:
            return  # another waiter took it
        self._task = None
        self._stats.fetches += 1
        self._stats.reserved += r.count
        if self._cur is None or self._used >= self._cur_n:
            self._set(r)
        else:
            self._next = r

    def _set(self, r: Range) -> None:
        self._cur, self._cur_n, self._used = r, r.count, 0

    async def aclose(self) -> None:
        """Gives back the range reserved ahead and the rest of the current
        one, latest first."""
        if self._closed:
            return
        if self._task is not None:
            try:
                await self._collect()
            except SeqdError:
                pass  # its outcome is unknown: burned, uncounted
        self._closed = True
        unused: List[Range] = []
        if self._cur is not None:
            t = self._cur.tail(self._used)
            if t is not None:
                unused.append(t)
        if self._next is not None:
            unused.append(self._next)
        self._cur = self._next = None
        for r in reversed(unused):
            if await self.source.release(self.name, r):
                self._stats.released += r.count
            else:
                self._stats.burned += r.count

    def stats(self) -> Stats:
        return Stats(**vars(self._stats))

    async def __aenter__(self) -> "Batch":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def AsyncBatch(source: Seqd, name: str, size: int = 1000, low_watermark: int = 0) -> Batch:
    """Batch with a background reservation below low_watermark (0: size // 4)."""
    return Batch(source, name, size, low_watermark=low_watermark)
