package dev.seqd.hibernate;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * The entity's id comes from seqd, in blocks: {@code @Id @SeqdId(sequence = "order_ids") Long id;}.
 * The block size is the generator's, not the sequence's INCREMENT, so unlike Hibernate's pooled
 * optimizer a mismatch between them cannot give gaps or duplicates. The seqd DataSource is the
 * setting {@link SeqdIdGenerator#DATASOURCE}.
 */
@IdGeneratorType(SeqdIdGenerator.class)
@Retention(RUNTIME)
@Target({FIELD, METHOD})
public @interface SeqdId {
  /** The seqd sequence (created if it does not exist). */
  String sequence();

  /** Values reserved at a time. */
  long size() default 1000;

  /** Reserve the next block in the background once fewer than this remain; 0 means size/4. */
  long lowWatermark() default 0;

  /**
   * The CACHE the sequence is created with, when it does not exist: how far ahead seqd may reserve
   * durably, so that reservations are served from memory (a crash skips fewer than this many, never
   * repeats one).
   */
  long cache() default 10000;
}
