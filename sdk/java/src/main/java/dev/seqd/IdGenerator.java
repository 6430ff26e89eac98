package dev.seqd;

/** A generator of a sequence's values. Safe for concurrent use; close() gives unused values back. */
public interface IdGenerator extends AutoCloseable {
  /** The next value. */
  long next();

  Stats stats();

  /** Gives back what the generator holds; next() then throws. */
  @Override
  void close();
}
