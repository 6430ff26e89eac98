"""Values per second on one thread: each generator against calling
nextval through the same driver, in one run. Usage: python bench.py DSN"""

import sys
import time

import psycopg
from psycopg_pool import ConnectionPool

import seqd


def rate(f, seconds=2.0):
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(1000):
            f()
        n += 1000
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start)


def main(dsn):
    with ConnectionPool(dsn, min_size=1, max_size=4, open=True) as pool:
        src = seqd.Seqd(pool)
        name = f"pybench_{time.time_ns()}"
        src.create(name, options="cache 100000")
        with psycopg.connect(dsn) as conn:
            cur = conn.cursor()

            def nextval():
                cur.execute("select nextval(%s)", (name,), prepare=True)
                cur.fetchone()

            base = rate(nextval)
        print(f"{'mode':<28}{'values/s':>14}{'x nextval':>12}")
        print(f"{'nextval (psycopg, prepared)':<28}{base:>14,.0f}{1:>12.2f}")
        for label, g in [
            ("Async", seqd.Async(src, name)),
            ("Batch 1000", seqd.Batch(src, name, size=1000)),
            ("AsyncBatch 1M", seqd.AsyncBatch(src, name, size=1 << 20, low_watermark=1 << 18)),
        ]:
            with g:
                r = rate(g.next)
            print(f"{label:<28}{r:>14,.0f}{r / base:>12.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
