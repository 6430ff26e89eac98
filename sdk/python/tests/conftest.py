import itertools
import os
import time

import pytest
from psycopg_pool import ConnectionPool

import seqd

_names = itertools.count()


def dsn() -> str:
    d = os.environ.get("SEQD_TEST_DSN")
    if not d:
        pytest.fail("SEQD_TEST_DSN is not set: run through go test ./sdk (the README's test command)")
    return d


@pytest.fixture(scope="session")
def pool():
    p = ConnectionPool(dsn(), min_size=1, max_size=8, open=True)
    yield p
    p.close()


@pytest.fixture
def source(pool):
    return seqd.Seqd(pool)


@pytest.fixture
def name():
    return f"py_{time.time_ns()}_{next(_names)}"
