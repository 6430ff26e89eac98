package dev.seqd;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a shaped sequence's counter becomes its value (docs/protocol.md): {@code ordered}, {@code
 * bit_reversed_positive}, {@code sharded S R} or {@code snowflake EPOCH_MICROS UNIT_MICROS
 * NODE_BITS COUNTER_BITS node NODE}, with an optional skip range of values. Immutable.
 */
public final class Shape {
  /** The kinds of shape. */
  public enum Kind {
    ORDERED,
    BIT_REVERSED_POSITIVE,
    SHARDED,
    SNOWFLAKE
  }

  /** An ordered sequence: values are counters. */
  public static final Shape ORDERED = new Shape(Kind.ORDERED, 0, 0, false, 0, 0, 0, 0, 0, 0, 0);

  // Snowflake's limits (seqd's): the time unit is 1 µs to a day; the node and counter parts leave
  // the time part at least 20 of the 63 bits.
  private static final long MAX_UNIT_MICROS = 86_400_000_000L;
  private static final long MAX_NODE_COUNTER_BITS = 43;

  private final Kind kind;
  private final int shardBits;
  private final int rangeBits;
  private final boolean skip;
  private final long skipMin;
  private final long skipMax;
  private final long epochMicros;
  private final long unitMicros;
  private final int nodeBits;
  private final int counterBits;
  private final long node;

  private Shape(
      Kind kind,
      int shardBits,
      int rangeBits,
      boolean skip,
      long skipMin,
      long skipMax,
      long epochMicros,
      long unitMicros,
      int nodeBits,
      int counterBits,
      long node) {
    this.kind = kind;
    this.shardBits = shardBits;
    this.rangeBits = rangeBits;
    this.skip = skip;
    this.skipMin = skipMin;
    this.skipMax = skipMax;
    this.epochMicros = epochMicros;
    this.unitMicros = unitMicros;
    this.nodeBits = nodeBits;
    this.counterBits = counterBits;
    this.node = node;
  }

  public Kind kind() {
    return kind;
  }

  /** A snowflake shape's epoch, in microseconds after the Unix epoch. */
  public long epochMicros() {
    return epochMicros;
  }

  /** A snowflake shape's time unit, in microseconds. */
  public long unitMicros() {
    return unitMicros;
  }

  /** The width of a snowflake shape's node part. */
  public int nodeBits() {
    return nodeBits;
  }

  /** The width of a snowflake shape's counter part. */
  public int counterBits() {
    return counterBits;
  }

  /** A snowflake range's node part. */
  public long node() {
    return node;
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
      case SNOWFLAKE:
        return (counter >>> counterBits) << (counterBits + nodeBits)
            | node << counterBits
            | counter & ((1L << counterBits) - 1);
      default:
        return counter;
    }
  }

  /** Whether the skip range holds value. */
  public boolean skipped(long value) {
    return skip && value >= skipMin && value <= skipMax;
  }

  /**
   * Reads seqd_reserve's shape column; null is an ordered sequence.
   *
   * @throws IllegalArgumentException for a text seqd would not read as a shape
   */
  public static Shape parse(String text) {
    if (text == null) {
      return ORDERED;
    }
    List<String> f = fields(text);
    IllegalArgumentException bad = new IllegalArgumentException("seqd: invalid shape \"" + text + "\"");
    if (f.isEmpty()) {
      throw bad;
    }
    int i = 1;
    Kind kind;
    long s = 0;
    long r = 0;
    long[] sf = new long[5]; // epoch, unit, node bits, counter bits, node
    switch (f.get(0)) {
      case "ordered":
        kind = Kind.ORDERED;
        break;
      case "bit_reversed_positive":
        kind = Kind.BIT_REVERSED_POSITIVE;
        break;
      case "sharded":
        kind = Kind.SHARDED;
        if (f.size() < 3) {
          throw bad;
        }
        s = int64(f.get(1), bad);
        r = int64(f.get(2), bad);
        i = 3;
        if (s < 1 || s > 15 || r < 32 || r > 64) {
          throw bad;
        }
        break;
      case "snowflake":
        kind = Kind.SNOWFLAKE;
        if (f.size() < 7 || !f.get(5).equals("node")) {
          throw bad;
        }
        for (int j = 0; j < 5; j++) {
          sf[j] = int64(f.get(j < 4 ? j + 1 : 6), bad);
        }
        i = 7;
        long nb = sf[2];
        long cb = sf[3];
        if (sf[1] < 1
            || sf[1] > MAX_UNIT_MICROS
            || cb < 1
            || cb > MAX_NODE_COUNTER_BITS
            || nb < 0
            || nb > MAX_NODE_COUNTER_BITS - cb
            || sf[4] < 0
            || sf[4] > (1L << nb) - 1) {
          throw bad;
        }
        break;
      default:
        throw bad;
    }
    boolean hasSkip = false;
    long lo = 0;
    long hi = 0;
    if (i != f.size()) {
      if (f.size() != i + 3 || !f.get(i).equals("skip") || kind == Kind.SNOWFLAKE) {
        throw bad;
      }
      lo = int64(f.get(i + 1), bad);
      hi = int64(f.get(i + 2), bad);
      if (lo > hi) {
        throw bad;
      }
      hasSkip = true;
    }
    return new Shape(kind, (int) s, (int) r, hasSkip, lo, hi, sf[0], sf[1], (int) sf[2], (int) sf[3], sf[4]);
  }

  /** Whether seqd separates fields at c (Go's unicode.IsSpace); {@link String#trim} goes further. */
  private static boolean isSpace(char c) {
    switch (c) {
      case '\t', '\n', 0x0B, '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
        return true;
      default:
        return c >= 0x2000 && c <= 0x200A;
    }
  }

  private static List<String> fields(String text) {
    List<String> f = new ArrayList<>();
    int start = -1;
    for (int j = 0; j <= text.length(); j++) {
      if (j == text.length() || isSpace(text.charAt(j))) {
        if (start >= 0) {
          f.add(text.substring(start, j));
        }
        start = -1;
      } else if (start < 0) {
        start = j;
      }
    }
    return f;
  }

  /**
   * A number as seqd reads it: an optional sign and ASCII digits, a 64-bit signed integer ({@link
   * Long#parseLong} also takes other scripts' digits).
   */
  private static long int64(String w, IllegalArgumentException bad) {
    int j = w.startsWith("+") || w.startsWith("-") ? 1 : 0;
    if (j == w.length()) {
      throw bad;
    }
    for (; j < w.length(); j++) {
      if (w.charAt(j) < '0' || w.charAt(j) > '9') {
        throw bad;
      }
    }
    try {
      return Long.parseLong(w);
    } catch (NumberFormatException e) {
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
          case SNOWFLAKE ->
              "snowflake " + epochMicros + " " + unitMicros + " " + nodeBits + " " + counterBits + " node " + node;
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
        && skipMax == x.skipMax
        && epochMicros == x.epochMicros
        && unitMicros == x.unitMicros
        && nodeBits == x.nodeBits
        && counterBits == x.counterBits
        && node == x.node;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        kind, shardBits, rangeBits, skip, skipMin, skipMax, epochMicros, unitMicros, nodeBits, counterBits, node);
  }
}
