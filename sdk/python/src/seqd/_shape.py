"""Shapes: how a shaped sequence's counter becomes its value (docs/protocol.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


def _reverse(x: int, width: int) -> int:
    """The low `width` bits of x, reversed."""
    return int(format(x & ((1 << width) - 1), f"0{width}b")[::-1], 2) if width else 0


@dataclass(frozen=True)
class Shape:
    """A sequence's shape: ``ordered``, ``bit_reversed_positive`` or
    ``sharded S R``, with an optional skip range of values."""

    kind: str = "ordered"
    shard_bits: int = 0
    range_bits: int = 0
    skip: Optional[Tuple[int, int]] = None

    @property
    def shaped(self) -> bool:
        return self.kind != "ordered"

    def value(self, counter: int) -> int:
        """The value counter stands for."""
        if self.kind == "bit_reversed_positive":
            return _reverse(counter, 64) >> 1
        if self.kind == "sharded":
            s, k = self.shard_bits, self.range_bits - 1 - self.shard_bits
            return _reverse(counter, s) << k | counter >> s
        return counter

    def skipped(self, value: int) -> bool:
        """Whether the skip range holds value."""
        return self.skip is not None and self.skip[0] <= value <= self.skip[1]

    def __str__(self) -> str:
        s = self.kind
        if self.kind == "sharded":
            s = f"sharded {self.shard_bits} {self.range_bits}"
        if self.skip is not None:
            s += f" skip {self.skip[0]} {self.skip[1]}"
        return s


ORDERED = Shape()


def parse_shape(text: Optional[str]) -> Shape:
    """Reads seqd_reserve's shape column (None: an ordered sequence)."""
    if text is None:
        return ORDERED
    f = text.split()
    bad = ValueError(f"seqd: invalid shape {text!r}")
    if not f:
        raise bad
    kind, rest = f[0], f[1:]
    shard = rng = 0
    if kind == "sharded":
        if len(rest) < 2:
            raise bad
        shard, rng, rest = int(rest[0]), int(rest[1]), rest[2:]
        if not (1 <= shard <= 15 and 32 <= rng <= 64):
            raise bad
    elif kind not in ("ordered", "bit_reversed_positive"):
        raise bad
    skip = None
    if rest:
        if len(rest) != 3 or rest[0] != "skip" or int(rest[1]) > int(rest[2]):
            raise bad
        skip = (int(rest[1]), int(rest[2]))
    return Shape(kind, shard, rng, skip)
