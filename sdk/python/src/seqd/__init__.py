"""seqd: ids from seqd, the sequence-number service.

Generators over a psycopg 3 connection pool, the same in every seqd
client (docs/protocol.md):

- ``Async``: one ``nextval`` per value (ordered);
- ``Batch``: a range of ``size`` values at a time, handed out from memory;
- ``AsyncBatch``: Batch that reserves the next range in the background
  below a low watermark.

All are thread-safe and context managers: leaving the block gives the
unused values back. ``seqd.aio`` has the asyncio flavour and
``seqd.sqlalchemy`` the SQLAlchemy 2 column default."""

from ._errors import (
    AuthError,
    Closed,
    Conflict,
    Invalid,
    LimitReached,
    NotFound,
    SeqdError,
    Unavailable,
    error_class,
    retry_of,
)
from ._gen import Async, AsyncBatch, Batch, Stats
from ._range import Range
from ._shape import Shape, parse_shape
from ._source import Seqd

__version__ = "0.1.0"

__all__ = [
    "Async",
    "AsyncBatch",
    "AuthError",
    "Batch",
    "Closed",
    "Conflict",
    "Invalid",
    "LimitReached",
    "NotFound",
    "Range",
    "Seqd",
    "SeqdError",
    "Shape",
    "Stats",
    "Unavailable",
    "error_class",
    "parse_shape",
    "retry_of",
]
