"""Errors, classified by SQLSTATE as docs/protocol.md's table says."""

from __future__ import annotations

from typing import Dict, Optional, Type


class SeqdError(Exception):
    """A failure of a seqd call. ``sqlstate`` is the server's code when
    there is one; ``retryable`` says whether sending the request again is
    safe and may succeed (a reservation whose outcome was unknown is
    burned, never handed out twice)."""

    kind = "other"
    retryable = False

    def __init__(self, message: str, sqlstate: Optional[str] = None):
        super().__init__(message)
        self.sqlstate = sqlstate


class NotFound(SeqdError):
    kind = "not_found"


class LimitReached(SeqdError):
    kind = "limit_reached"


class Invalid(SeqdError, ValueError):
    kind = "invalid"


class AuthError(SeqdError):
    kind = "auth"


class Conflict(SeqdError):
    kind = "conflict"
    retryable = True


class Unavailable(SeqdError):
    kind = "unavailable"
    retryable = True


class Closed(SeqdError):
    """The generator was closed."""

    kind = "closed"


_BY_STATE: Dict[str, Type[SeqdError]] = {
    "42P01": NotFound,
    "2200H": LimitReached,
    "22003": LimitReached,
    "22023": Invalid,
    "42601": Invalid,
    "28P01": AuthError,
    "42501": AuthError,
    "40001": Conflict,
    "40P01": Conflict,
    "25006": Unavailable,
    "58030": Unavailable,
    "57P01": Unavailable,
    "57P02": Unavailable,
    "57P03": Unavailable,
    "53300": Unavailable,
    "53100": Unavailable,
    "57014": Unavailable,
}


def error_class(sqlstate: Optional[str]) -> Type[SeqdError]:
    """The SeqdError subclass for an SQLSTATE."""
    if sqlstate is None:
        return SeqdError
    if sqlstate.startswith("08"):
        return Unavailable
    return _BY_STATE.get(sqlstate, SeqdError)


def retry_of(sqlstate: str) -> str:
    """docs/protocol.md's retry column: "no", "yes" or "another_host"."""
    if sqlstate in ("25006", "58030"):
        return "another_host"
    return "yes" if error_class(sqlstate).retryable else "no"


def wrap(op: str, name: str, exc: BaseException) -> SeqdError:
    """A SeqdError for a driver exception, keeping its SQLSTATE and cause."""
    import psycopg

    state = getattr(exc, "sqlstate", None)
    cls = error_class(state)
    if state is None and isinstance(exc, psycopg.OperationalError):
        cls = Unavailable  # the connection was lost or could not be made
    err = cls(f"seqd: {op} {name!r}: {exc}", state)
    err.__cause__ = exc
    return err
