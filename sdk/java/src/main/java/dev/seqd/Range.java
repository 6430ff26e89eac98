package dev.seqd;

/**
 * {@link #count()} values first, first+step, ..., last, as seqd_reserve hands them out. For a shaped
 * sequence these are counters (step 1) and the shape maps each to its value.
 */
public record Range(long first, long last, long step, Shape shape) {
  public Range(long first, long last, long step) {
    this(first, last, step, Shape.ORDERED);
  }

  /** How many values (or counters) the range holds; exact for spans beyond 2^63. */
  public long count() {
    if (step > 0) {
      return Long.divideUnsigned(last - first, step) + 1;
    }
    if (step < 0) {
      return Long.divideUnsigned(first - last, -step) + 1;
    }
    return 0;
  }

  /** The i-th value (or counter), 0 &lt;= i &lt; count. */
  public long at(long i) {
    return first + i * step;
  }

  /** Whether counter c gives a value (false: the shape's skip range passes over it). */
  public boolean gives(long c) {
    return !shape.shaped() || !shape.skipped(shape.value(c));
  }

  /** The value of counter (or value) c. */
  public long value(long c) {
    return shape.value(c);
  }

  /** The part from the used-th value on, or null when nothing is left. */
  public Range tail(long used) {
    if (Long.compareUnsigned(used, count()) >= 0) {
      return null;
    }
    return new Range(at(used), last, step, shape);
  }
}
