// Package client hands out sequence values in Go the four ways the
// Spanner article describes, from seqd or from the databases an
// application already runs.
//
// Two ideas compose. A Source reserves ranges of a named sequence: Seqd
// (a seqd server, over pgx), SeqdHTTP (a seqd server over its HTTP API,
// for processes that hold no database connection), Table (a sequences(name, next_value) table in
// PostgreSQL, MySQL, MariaDB or TiDB), and Native (PostgreSQL's or
// MariaDB's own sequences, for comparison). A generator hands the values
// out:
//
//	mode        unique  ordered            gapless  latency it adds to a value      choose it when
//	Sync        yes     yes (commit order) yes      a row update inside your        invoice numbers and other
//	                                                transaction, which holds the    series that must not skip;
//	                                                row until commit: one           the rate is at most one
//	                                                transaction at a time           transaction per its latency
//	Async       yes     yes (real time)    no       one short transaction (a        values must follow the
//	                                                round trip) per value           order of requests; gaps are
//	                                                                                fine (PostgreSQL's nextval)
//	Batch       yes     no, across         no       a round trip once per Size      row keys at high rate;
//	                    generators                  values                          order across instances
//	                                                                                does not matter
//	AsyncBatch  yes     no, across         no       none when LowWatermark exceeds  the same, where even one
//	                    generators                  the values taken during one     wait per batch is too much
//	                                                round trip                      (Leaf's double buffer)
//
// Sync needs a table source (TxSource): the value is read and incremented
// in the caller's *sql.Tx, so a rolled-back transaction consumes nothing.
// The other modes work over every source. Batch and AsyncBatch take a
// dynamic size (BatchOptions.Target, Meituan Leaf's step): ranges that
// run out sooner than the target double the next size, ranges that last
// more than twice as long halve it.
//
// Shaped sequences (seqd's BIT_REVERSED_POSITIVE and SHARD_BITS, see
// docs/shapes.md) work in every mode: seqd reserves a range of counters
// and names the shape, and a Range maps each counter to its value with
// the server's own function (seqmath.Shape), passing over a skip range, so
// a Batch hands out exactly the values nextval would, in the same order.
//
// Within one Batch or AsyncBatch, values increase (counters do, for a
// shaped sequence). Values a generator
// holds when its process dies are never handed out (a gap, never a
// repeat); Close gives them back instead when they are still the
// sequence's tail (seqd, table sources) and counts the rest in
// Stats().Burned.
//
// The seqd source sends a request again while it fails with
// ErrUnavailable (the server restarting or failing over, a standby's
// 25006, a lost connection; SeqdOptions.Retry bounds it): safe for every
// request, since a reservation whose first attempt did happen is burned,
// never handed out twice. Give it a pool made from a multi-host
// connection string with target_session_attrs=read-write and a failover
// is a reconnect (docs/protocol.md).
//
// Every Source and generator is safe for concurrent use. Errors are
// classified with errors.Is against ErrNotFound, ErrLimitReached,
// ErrConflict, ErrUnsupported, ErrClosed and ErrInvalid; the driver's own
// error stays reachable with errors.As. Table sources retry a reservation
// that conflicts with concurrent transactions (serialization failure,
// deadlock, lock wait timeout) within Retry's bounds, with exponential
// backoff; RunTx does the same for a whole transaction using Sync.
package client
