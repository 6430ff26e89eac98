"""The generators against a real seqd."""

import threading
import time

import pytest

import seqd


def test_async_is_nextval(source, name):
    source.create(name)
    with seqd.Async(source, name) as g:
        assert [g.next() for _ in range(3)] == [1, 2, 3]
    with pytest.raises(seqd.Closed):
        g.next()


def test_batch_gives_the_tail_back(source, name):
    source.create(name)
    with seqd.Batch(source, name, size=100) as g:
        assert [g.next() for _ in range(10)] == list(range(1, 11))
    st = g.stats()
    assert (st.issued, st.released, st.burned, st.fetches) == (10, 90, 0, 1)
    assert source.nextval(name) == 11


def test_tail_not_given_back_after_another_reserved(source, name):
    source.create(name)
    a = seqd.Batch(source, name, size=100)
    b = seqd.Batch(source, name, size=100)
    assert (a.next(), b.next()) == (1, 101)
    a.close()
    assert (a.stats().released, a.stats().burned) == (0, 99)
    b.close()
    assert b.stats().released == 99
    assert source.nextval(name) == 102


@pytest.mark.parametrize(
    "make",
    [
        lambda s, n: seqd.Batch(s, n, size=50),
        lambda s, n: seqd.AsyncBatch(s, n, size=50, low_watermark=20),
        lambda s, n: seqd.Async(s, n),
    ],
    ids=["batch", "async-batch", "async"],
)
def test_threads_unique(source, name, make):
    source.create(name)
    g = make(source, name)
    got = [[] for _ in range(8)]

    def work(i):
        for _ in range(300):
            got[i].append(g.next())

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    g.close()
    everything = [v for vs in got for v in vs]
    assert len(everything) == 2400 == len(set(everything))
    for vs in got:
        assert vs == sorted(vs)  # one generator's values increase
    st = g.stats()
    assert st.issued == 2400
    assert st.issued + st.released + st.burned == st.reserved


def test_dynamic_step(source, name):
    source.create(name)
    now = [0.0]
    g = seqd.Batch(source, name, size=10, target=1.0, max_size=40, clock=lambda: now[0])
    sizes = []
    for _ in range(4):
        for _ in range(g.stats().size):
            g.next()
        sizes.append(g.stats().size)
        now[0] += 0.1  # used up fast: the next range doubles
    g.close()
    assert sizes == [10, 20, 40, 40]


def test_shaped_sequences(source, name, pool):
    with pool.connection() as c:
        c.execute(f'create sequence "{name}" bit_reversed_positive skip range 2305843009213693952 6917529027641081856')
    sh = seqd.parse_shape("bit_reversed_positive skip 2305843009213693952 6917529027641081856")
    want = list(seqd.Range(1, 400, 1, sh).values())[:150]
    with seqd.Batch(source, name, size=32) as g:
        got = [g.next() for _ in range(100)]
    assert got == want[:100]
    assert source.nextval(name) == want[100]  # the tail came back


def test_snowflake_sequences(source, name, pool):
    with pool.connection() as c:
        c.execute(f'create sequence "{name}" snowflake')
    sh = source.reserve(name, 10).shape
    assert (sh.kind, sh.epoch_micros, sh.unit_micros, sh.node_bits, sh.counter_bits) == (
        "snowflake",
        1288834974657000,
        1000,
        10,
        12,
    )
    with seqd.Batch(source, name, size=32) as g:
        got = [g.next() for _ in range(100)]
    with seqd.AsyncBatch(source, name, size=32, low_watermark=8) as g:
        got += [g.next() for _ in range(100)]
    assert got == sorted(set(got))  # every value new, in order
    now = time.time() * 1e6
    for v in got:
        assert v >> 12 & 1023 == sh.node
        # The time part is the clock's, or up to 10 s ahead of it.
        assert abs(sh.epoch_micros + (v >> 22) * sh.unit_micros - now) < 600e6


def test_errors_keep_sqlstate(source):
    with pytest.raises(seqd.NotFound) as e:
        seqd.Batch(source, "no_such_sequence", size=10).next()
    assert e.value.sqlstate == "42P01"
    with pytest.raises(seqd.Invalid):
        source.reserve("x", 0)


def test_limit(source, name):
    source.create(name, options="maxvalue 5")
    g = seqd.Batch(source, name, size=4)
    assert [g.next() for _ in range(5)] == [1, 2, 3, 4, 5]
    with pytest.raises(seqd.LimitReached) as e:
        g.next()
    assert e.value.sqlstate == "2200H"
