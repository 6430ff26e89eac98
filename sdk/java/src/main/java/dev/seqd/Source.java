package dev.seqd;

/** Hands out ranges of named sequences: {@link Seqd} over a DataSource. */
public interface Source {
  /** The next n values of name (counters, for a shaped sequence). */
  Range reserve(String name, long n);

  /** Gives r back; true when it was still the sequence's unused tail. */
  boolean release(String name, Range r);
}
