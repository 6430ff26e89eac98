"""The asyncio flavour against a real seqd."""

import asyncio

from psycopg_pool import AsyncConnectionPool

import seqd.aio
from conftest import dsn


def test_aio(name):
    async def run():
        async with AsyncConnectionPool(dsn(), min_size=1, max_size=4, open=False) as pool:
            src = seqd.aio.Seqd(pool)
            await src.create(name)
            async with seqd.aio.Async(src, name) as a:
                assert [await a.next() for _ in range(2)] == [1, 2]
            async with seqd.aio.AsyncBatch(src, name, size=50, low_watermark=10) as g:
                got = await asyncio.gather(*[g.next() for _ in range(120)])
            assert len(set(got)) == 120 and min(got) == 3
            st = g.stats()
            assert st.issued == 120 and st.issued + st.released + st.burned == st.reserved
            assert st.released > 0
            assert await src.nextval(name) == max(got) + 1  # the tail came back

    asyncio.run(run())
