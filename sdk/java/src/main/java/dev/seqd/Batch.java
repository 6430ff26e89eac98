package dev.seqd;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Reserves {@code size} values at a time and hands them out from memory; as an AsyncBatch ({@link
 * #async}) it reserves the next range in the background once fewer than {@code lowWatermark} values
 * remain. Safe for concurrent use; {@link #close()} gives the unused values back (docs/protocol.md).
 */
public final class Batch implements IdGenerator {
  private static final ExecutorService FETCHERS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "seqd-prefetch");
            t.setDaemon(true);
            return t;
          });

  private final Source source;
  private final String name;
  private final long size;
  private final boolean async;
  private final long low;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private Range cur;
  private long curN;
  private long used;
  private boolean shaped;
  private Range next;
  private boolean fetching;
  private RuntimeException fetchErr;
  private boolean closed;
  private long reserved, issued, released, burned, fetches, waits;

  private Batch(Source source, String name, long size, boolean async, long lowWatermark) {
    if (size < 1) {
      throw new SeqdException("seqd: batch size " + size, SeqdException.Kind.INVALID, null, null);
    }
    this.source = source;
    this.name = name;
    this.size = size;
    this.async = async;
    this.low = lowWatermark > 0 ? lowWatermark : size / 4;
  }

  /** A Batch: the next range is reserved by the next() call that finds the current one used up. */
  public static Batch of(Source source, String name, long size) {
    return new Batch(source, name, size, false, 0);
  }

  /** An AsyncBatch: the next range is reserved in the background below lowWatermark (0: size/4). */
  public static Batch async(Source source, String name, long size, long lowWatermark) {
    return new Batch(source, name, size, true, lowWatermark);
  }

  @Override
  public long next() {
    lock.lock();
    try {
      for (; ; ) {
        if (closed) {
          throw new SeqdException("seqd: generator \"" + name + "\" closed", SeqdException.Kind.CLOSED, null, null);
        }
        if (cur != null && used < curN) {
          long v = cur.at(used++);
          if (shaped) {
            if (!cur.gives(v)) {
              continue; // a shaped sequence's skip range holds it
            }
            v = cur.value(v);
          }
          issued++;
          if (async && curN - used < low && !fetching && next == null) {
            startFetch();
          }
          return v;
        }
        if (next != null) {
          setCur(next);
          next = null;
          continue;
        }
        if (fetchErr != null) {
          RuntimeException e = fetchErr;
          fetchErr = null;
          throw e;
        }
        waits++;
        if (fetching) {
          changed.awaitUninterruptibly();
          continue;
        }
        if (async) {
          startFetch();
          continue;
        }
        // Batch: reserve in the caller's thread; others wait for it.
        fetching = true;
        Range r;
        lock.unlock();
        try {
          r = source.reserve(name, size);
        } catch (RuntimeException e) {
          lock.lock();
          fetching = false;
          changed.signalAll();
          throw e;
        }
        lock.lock();
        fetching = false;
        got(r);
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  private void setCur(Range r) {
    cur = r;
    curN = r.count();
    used = 0;
    shaped = r.shape().shaped();
  }

  private void got(Range r) {
    fetches++;
    reserved += r.count();
    if (cur == null || used >= curN) {
      setCur(r);
    } else {
      next = r;
    }
  }

  private void startFetch() {
    fetching = true;
    FETCHERS.execute(
        () -> {
          Range r = null;
          RuntimeException err = null;
          try {
            r = source.reserve(name, size);
          } catch (RuntimeException e) {
            err = e;
          }
          lock.lock();
          try {
            fetching = false;
            if (r != null) {
              got(r); // after close began: it lands in next, which close gives back
            } else {
              fetchErr = err;
            }
            changed.signalAll();
          } finally {
            lock.unlock();
          }
        });
  }

  /** Waits for a reservation in flight, then gives back the range reserved ahead and the rest of the current one, latest first. */
  @Override
  public void close() {
    List<Range> unused = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      while (fetching) {
        changed.awaitUninterruptibly();
      }
      if (cur != null) {
        Range t = cur.tail(used);
        if (t != null) {
          unused.add(t);
        }
      }
      if (next != null) {
        unused.add(next);
      }
      cur = next = null;
      curN = used = 0;
    } finally {
      lock.unlock();
    }
    RuntimeException first = null;
    for (int i = unused.size() - 1; i >= 0; i--) {
      Range r = unused.get(i);
      boolean ok = false;
      try {
        ok = source.release(name, r);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
      lock.lock();
      try {
        if (ok) {
          released += r.count();
        } else {
          burned += r.count();
        }
      } finally {
        lock.unlock();
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public Stats stats() {
    lock.lock();
    try {
      return new Stats(reserved, issued, released, burned, fetches, waits, size);
    } finally {
      lock.unlock();
    }
  }

  // For the conformance tests (the release vectors).
  void state(Range current, long usedCounters, Range prefetched) {
    lock.lock();
    try {
      setCur(current);
      used = usedCounters;
      next = prefetched;
    } finally {
      lock.unlock();
    }
  }
}
