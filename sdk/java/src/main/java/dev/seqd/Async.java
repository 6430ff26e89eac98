package dev.seqd;

import java.util.concurrent.atomic.AtomicLong;

/** One nextval per value: ordered, a round trip each. */
public final class Async implements IdGenerator {
  private final Seqd source;
  private final String name;
  private final AtomicLong issued = new AtomicLong();
  private volatile boolean closed;

  public Async(Seqd source, String name) {
    this.source = source;
    this.name = name;
  }

  @Override
  public long next() {
    if (closed) {
      throw new SeqdException("seqd: generator \"" + name + "\" closed", SeqdException.Kind.CLOSED, null, null);
    }
    long v = source.nextval(name);
    issued.incrementAndGet();
    return v;
  }

  @Override
  public Stats stats() {
    long n = issued.get();
    return new Stats(n, n, 0, 0, n, n, 1);
  }

  @Override
  public void close() {
    closed = true;
  }
}
