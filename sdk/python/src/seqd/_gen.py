"""Generators: Async, Batch and AsyncBatch (docs/protocol.md), thread-safe."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

from ._errors import Closed, Invalid, SeqdError
from ._range import Range
from ._source import Seqd


@dataclass
class Stats:
    """What a generator did: values reserved, handed out, given back on
    close and burned (reserved and never used), reservations made, Next
    calls that waited for one, and the current reservation size."""

    reserved: int = 0
    issued: int = 0
    released: int = 0
    burned: int = 0
    fetches: int = 0
    waits: int = 0
    size: int = 0


class Async:
    """One nextval per value: ordered, a round trip each."""

    def __init__(self, source: Seqd, name: str):
        self.source, self.name = source, name
        self._closed = False
        self._issued = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        if self._closed:
            raise Closed(f"seqd: generator {self.name!r} closed")
        v = self.source.nextval(self.name)
        with self._lock:
            self._issued += 1
        return v

    def close(self) -> None:
        self._closed = True

    def stats(self) -> Stats:
        with self._lock:
            n = self._issued
        return Stats(reserved=n, issued=n, fetches=n, waits=n, size=1)

    def __enter__(self) -> "Async":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Batch:
    """Reserves ``size`` values at a time and hands them out from memory.
    With ``low_watermark`` (AsyncBatch) the next range is reserved in a
    background thread once fewer values than that remain. With ``target``
    (seconds) the size follows Leaf's dynamic step: a range used up sooner
    doubles the next size (up to max_size), one lasting over twice as long
    halves it (down to min_size). ``close`` (or leaving a ``with`` block)
    gives the unused values back."""

    def __init__(
        self,
        source: Seqd,
        name: str,
        size: int = 1000,
        low_watermark: Optional[int] = None,
        target: Optional[float] = None,
        min_size: Optional[int] = None,
        max_size: Optional[int] = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        if size < 1:
            raise Invalid(f"seqd: batch size {size}")
        self.source, self.name = source, name
        self._async = low_watermark is not None
        self._low = low_watermark if low_watermark is not None and low_watermark > 0 else size // 4
        self._target = target
        self._min = min_size or size
        self._max = max_size or max(size, 1 << 20)
        self._clock = clock
        self._started: Optional[float] = None
        self._mutex = threading.Lock()
        self._cond = threading.Condition(self._mutex)
        self._cur: Optional[Range] = None
        self._shaped = False  # _cur's shape maps counters
        self._cur_n = 0
        self._used = 0
        self._next: Optional[Range] = None
        self._fetching = False
        self._fetch_err: Optional[SeqdError] = None
        self._closed = False
        self._stats = Stats(size=size)

    def next(self) -> int:
        """The next value."""
        # The fast path takes the lock itself (a C-level context manager);
        # the Condition built on it is for waiting.
        with self._mutex:
            cur = self._cur
            if cur is not None and not self._shaped and not self._closed and self._used < self._cur_n:
                v: int = cur.first + self._used * cur.step
                self._used += 1
                self._stats.issued += 1
                if self._async and self._cur_n - self._used < self._low and not self._fetching and self._next is None:
                    self._start_fetch()
                return v
        return self._next_slow()

    def _next_slow(self) -> int:
        with self._cond:
            while True:
                if self._closed:
                    raise Closed(f"seqd: generator {self.name!r} closed")
                cur = self._cur
                if cur is not None and self._used < self._cur_n:
                    v = cur.first + self._used * cur.step
                    self._used += 1
                    if self._shaped:
                        v, ok = cur.value_of(v)
                        if not ok:
                            continue  # a shaped sequence's skip range holds it
                    self._stats.issued += 1
                    if (
                        self._async
                        and self._cur_n - self._used < self._low
                        and not self._fetching
                        and self._next is None
                    ):
                        self._start_fetch()
                    return v
                if self._next is not None:
                    self._set_cur(self._next)
                    self._next = None
                    continue
                if self._fetch_err is not None:
                    err, self._fetch_err = self._fetch_err, None
                    raise err
                if self._fetching:
                    self._stats.waits += 1
                    self._cond.wait()
                    continue
                if self._async:
                    self._start_fetch()
                    continue
                # Batch: reserve in the caller's thread, others wait.
                self._fetching = True
                n = self._size()
                self._stats.waits += 1
                self._cond.release()
                try:
                    r = self.source.reserve(self.name, n)
                except SeqdError:
                    self._cond.acquire()
                    self._fetching = False
                    self._cond.notify_all()
                    raise
                self._cond.acquire()
                self._fetching = False
                self._got(r)
                self._cond.notify_all()

    def _size(self) -> int:
        if self._target is not None:
            now = self._clock()
            if self._started is not None:
                lasted = now - self._started
                if lasted < self._target:
                    self._stats.size = min(2 * self._stats.size, self._max)
                elif lasted > 2 * self._target:
                    self._stats.size = max(self._stats.size // 2, self._min)
            self._started = now
        return self._stats.size

    def _set_cur(self, r: Range) -> None:
        self._cur, self._cur_n, self._used, self._shaped = r, r.count, 0, r.shape.shaped

    def _got(self, r: Range) -> None:
        self._stats.fetches += 1
        self._stats.reserved += r.count
        if self._cur is None or self._used >= self._cur_n:
            self._set_cur(r)
        else:
            self._next = r

    def _start_fetch(self) -> None:
        self._fetching = True
        n = self._size()

        def run() -> None:
            try:
                r: Optional[Range] = self.source.reserve(self.name, n)
                err: Optional[SeqdError] = None
            except SeqdError as e:
                r, err = None, e
            with self._cond:
                self._fetching = False
                if r is not None:
                    self._got(r)  # after close began: it lands in _next, which close gives back
                else:
                    self._fetch_err = err
                self._cond.notify_all()

        threading.Thread(target=run, name=f"seqd-prefetch-{self.name}", daemon=True).start()

    def close(self) -> None:
        """Waits for a reservation in flight, then gives back the range
        reserved ahead and the rest of the current one, latest first;
        what the server refuses is counted as burned."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            while self._fetching:
                self._cond.wait()
            unused: List[Range] = []
            if self._cur is not None:
                t = self._cur.tail(self._used)
                if t is not None:
                    unused.append(t)
            if self._next is not None:
                unused.append(self._next)
            self._cur, self._next, self._cur_n, self._used = None, None, 0, 0
        errs = []
        for r in reversed(unused):
            try:
                ok = self.source.release(self.name, r)
            except SeqdError as e:
                errs.append(e)
                ok = False
            with self._cond:
                if ok:
                    self._stats.released += r.count
                else:
                    self._stats.burned += r.count
        if errs:
            raise errs[0]

    def stats(self) -> Stats:
        with self._cond:
            return Stats(**vars(self._stats))

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def AsyncBatch(source: Seqd, name: str, size: int = 1000, low_watermark: int = 0, **kw: object) -> Batch:
    """A Batch that reserves the next range in the background when fewer
    than low_watermark values remain (0: size // 4)."""
    return Batch(source, name, size, low_watermark=low_watermark, **kw)  # type: ignore[arg-type]
