"""Ranges of a sequence, as seqd_reserve hands them out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional, Tuple

from ._shape import ORDERED, Shape


@dataclass(frozen=True)
class Range:
    """``count`` values first, first+step, ..., last. For a shaped sequence
    these are counters (step 1) and ``shape`` maps each to its value;
    ``value_of`` says which counters give values."""

    first: int
    last: int
    step: int = 1
    shape: Shape = ORDERED

    @property
    def count(self) -> int:
        if self.step == 0:
            return 0
        return (self.last - self.first) // self.step + 1

    def at(self, i: int) -> int:
        """The i-th value (or counter), 0 <= i < count."""
        return self.first + i * self.step

    def value_of(self, c: int) -> Tuple[int, bool]:
        """The value of counter (or value) c, and whether it is handed out
        (False when the skip range passes over it)."""
        if not self.shape.shaped:
            return c, True
        v = self.shape.value(c)
        return v, not self.shape.skipped(v)

    def tail(self, used: int) -> Optional["Range"]:
        """The part from the used-th value on, None when nothing is left."""
        if used >= self.count:
            return None
        return Range(self.at(used), self.last, self.step, self.shape)

    def values(self) -> Iterator[int]:
        """Every value the range gives, in order."""
        for i in range(self.count):
            v, ok = self.value_of(self.at(i))
            if ok:
                yield v
