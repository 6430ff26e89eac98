package dev.seqd;

import java.util.Objects;

/**
 * How a shaped sequence's counter becomes its value (docs/protocol.md): {@code ordered}, {@code
 * bit_reversed_positive} or {@code sharded S R}, with an optional skip range of values.
 */
public final class Shape {
  /** The kinds of shape. */
  public enum Kind {
    ORDERED,
    BIT_REVERSED_POSITIVE,
    SHARDED
  }

  /** An ordered sequence: values are counters. */
  public static final Shape ORDERED = new Shape(Kind.ORDERED, 0, 0, false, 0, 0);

  private final Kind kind;
  private final int shardBits;
  private final int rangeBits;
  private final boolean skip;
  private final long skipMin;
  private final long skipMax;

  private Shape(Kind kind, int shardBits, int rangeBits, boolean skip, long skipMin, long skipMax) {
    this.kind = kind;
    this.shardBits = shardBits;
    this.rangeBits = rangeBits;
    this.skip = skip;
    this.skipMin = skipMin;
    this.skipMax = skipMax;
  }

  public Kind kind() {
    return kind;
  }

  /** Whether values differ from counters. */
  public boolean shaped() {
    return kind != Kind.ORDERED;
  }

  /** The value counter stands for. */
  public long value(long counter) {
    switch (kind) {
      case BIT_REVERSED_POSITIVE:
        return Long.reverse(counter) >>> 1;
      case SHARDED:
        int k = rangeBits - 1 - shardBits;
        long shard = Long.reverse(counter) >>> (64 - shardBits);
        return shard << k | counter >>> shardBits;
      default:
        return counter;
    }
  }

  /** Whether the skip range holds value. */
  public boolean skipped(long value) {
    return skip && value >= skipMin && value <= skipMax;
  }

  /** Reads seqd_reserve's shape column; null is an ordered sequence. */
  public static Shape parse(String text) {
    if (text == null) {
      return ORDERED;
    }
    String[] f = text.trim().split("\\s+");
    IllegalArgumentException bad = new IllegalArgumentException("seqd: invalid shape \"" + text + "\"");
    int i = 1;
    Kind kind;
    int s = 0;
    int r = 0;
    try {
      switch (f[0]) {
        case "ordered":
          kind = Kind.ORDERED;
          break;
        case "bit_reversed_positive":
          kind = Kind.BIT_REVERSED_POSITIVE;
          break;
        case "sharded":
          kind = Kind.SHARDED;
          s = Integer.parseInt(f[1]);
          r = Integer.parseInt(f[2]);
          i = 3;
          if (s < 1 || s > 15 || r < 32 || r > 64) {
            throw bad;
          }
          break;
        default:
          throw bad;
      }
      if (i == f.length) {
        return new Shape(kind, s, r, false, 0, 0);
      }
      if (f.length != i + 3 || !f[i].equals("skip")) {
        throw bad;
      }
      long lo = Long.parseLong(f[i + 1]);
      long hi = Long.parseLong(f[i + 2]);
      if (lo > hi) {
        throw bad;
      }
      return new Shape(kind, s, r, true, lo, hi);
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      throw bad;
    }
  }

  @Override
  public String toString() {
    String s =
        switch (kind) {
          case ORDERED -> "ordered";
          case BIT_REVERSED_POSITIVE -> "bit_reversed_positive";
          case SHARDED -> "sharded " + shardBits + " " + rangeBits;
        };
    return skip ? s + " skip " + skipMin + " " + skipMax : s;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Shape x
        && kind == x.kind
        && shardBits == x.shardBits
        && rangeBits == x.rangeBits
        && skip == x.skip
        && skipMin == x.skipMin
        && skipMax == x.skipMax;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, shardBits, rangeBits, skip, skipMin, skipMax);
  }
}
