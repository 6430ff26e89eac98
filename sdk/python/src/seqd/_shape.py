"""Shapes: how a shaped sequence's counter becomes its value (docs/protocol.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

_MIN64, _MAX64 = -(1 << 63), (1 << 63) - 1

# Snowflake's limits (seqd's): the time unit is 1 µs to a day, the node
# and counter parts leave the time part at least 20 of the 63 bits.
_MAX_UNIT_MICROS = 86_400_000_000
_MAX_NODE_COUNTER_BITS = 43

# What separates a shape's fields, as seqd reads them (Go's
# unicode.IsSpace): str.split() also splits on \x1c-\x1f, seqd does not.
_SPACES = frozenset(
    "\t\n\v\f\r \u0085\u00a0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(chr(c) for c in range(0x2000, 0x200B))
)


def _reverse(x: int, width: int) -> int:
    """The low `width` bits of x, reversed."""
    return int(format(x & ((1 << width) - 1), f"0{width}b")[::-1], 2) if width else 0


def _fields(text: str) -> List[str]:
    f: List[str] = []
    w: List[str] = []
    for ch in text:
        if ch in _SPACES:
            if w:
                f.append("".join(w))
            w = []
        else:
            w.append(ch)
    if w:
        f.append("".join(w))
    return f


def _int64(s: str) -> Optional[int]:
    """s as seqd reads a number: an optional sign and ASCII digits, a
    64-bit signed integer; None otherwise (int() also takes underscores
    and other scripts' digits)."""
    digits = s[1:] if s[:1] in ("+", "-") else s
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    v = int(s)
    return v if _MIN64 <= v <= _MAX64 else None


@dataclass(frozen=True)
class Shape:
    """A sequence's shape: ``ordered``, ``bit_reversed_positive``,
    ``sharded S R`` or ``snowflake EPOCH_MICROS UNIT_MICROS NODE_BITS
    COUNTER_BITS node NODE``, with an optional skip range of values."""

    kind: str = "ordered"
    shard_bits: int = 0
    range_bits: int = 0
    skip: Optional[Tuple[int, int]] = None
    # Snowflake's layout: the epoch and time unit in microseconds, the
    # node and counter parts' widths, and this range's node part.
    epoch_micros: int = 0
    unit_micros: int = 0
    node_bits: int = 0
    counter_bits: int = 0
    node: int = 0

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
        if self.kind == "snowflake":
            cb = self.counter_bits
            return (counter >> cb) << (cb + self.node_bits) | self.node << cb | counter & ((1 << cb) - 1)
        return counter

    def skipped(self, value: int) -> bool:
        """Whether the skip range holds value."""
        return self.skip is not None and self.skip[0] <= value <= self.skip[1]

    def __str__(self) -> str:
        s = self.kind
        if self.kind == "sharded":
            s = f"sharded {self.shard_bits} {self.range_bits}"
        elif self.kind == "snowflake":
            s = (
                f"snowflake {self.epoch_micros} {self.unit_micros} {self.node_bits} {self.counter_bits}"
                f" node {self.node}"
            )
        if self.skip is not None:
            s += f" skip {self.skip[0]} {self.skip[1]}"
        return s


ORDERED = Shape()


def parse_shape(text: Optional[str]) -> Shape:
    """Reads seqd_reserve's shape column (None: an ordered sequence);
    ValueError for a text seqd would not read as a shape."""
    if text is None:
        return ORDERED
    f = _fields(text)
    bad = ValueError(f"seqd: invalid shape {text!r}")
    if not f:
        raise bad
    kind, rest = f[0], f[1:]
    shard = rng = 0
    epoch = unit = nb = cb = node = 0
    if kind == "sharded":
        if len(rest) < 2:
            raise bad
        s, r = _int64(rest[0]), _int64(rest[1])
        if s is None or r is None or not (1 <= s <= 15 and 32 <= r <= 64):
            raise bad
        shard, rng, rest = s, r, rest[2:]
    elif kind == "snowflake":
        if len(rest) < 6 or rest[4] != "node":
            raise bad
        n: List[int] = []
        for w in rest[:4] + rest[5:6]:
            x = _int64(w)
            if x is None:
                raise bad
            n.append(x)
        epoch, unit, nb, cb, node = n
        if not (
            1 <= unit <= _MAX_UNIT_MICROS
            and 1 <= cb <= _MAX_NODE_COUNTER_BITS
            and 0 <= nb <= _MAX_NODE_COUNTER_BITS - cb
            and 0 <= node < 1 << nb
        ):
            raise bad
        rest = rest[6:]
    elif kind not in ("ordered", "bit_reversed_positive"):
        raise bad
    skip = None
    if rest:
        if len(rest) != 3 or rest[0] != "skip" or kind == "snowflake":
            raise bad
        lo, hi = _int64(rest[1]), _int64(rest[2])
        if lo is None or hi is None or lo > hi:
            raise bad
        skip = (lo, hi)
    return Shape(kind, shard, rng, skip, epoch, unit, nb, cb, node)
