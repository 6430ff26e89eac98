package dev.seqd;

/**
 * What a generator did: values reserved, handed out, given back on close and burned; reservations
 * made; next() calls that waited for one; the reservation size.
 */
public record Stats(long reserved, long issued, long released, long burned, long fetches, long waits, long size) {}
