package client

import (
	"context"
	"database/sql"
	"sync/atomic"
)

// TxSource is a source that can take a value inside the caller's own
// transaction: the table sources.
type TxSource interface {
	NextInTx(ctx context.Context, tx *sql.Tx, name string) (int64, error)
}

// Sync is the Spanner article's synchronous generator: each value is read
// and incremented inside the caller's transaction, so values are ordered
// (in commit order) and gapless, and a rolled-back transaction consumes
// nothing. The row stays locked until the transaction ends, so the rate
// is at most one transaction per its latency; concurrent transactions
// queue (or fail with ErrConflict under serializable isolation: run them
// with RunTx). Next may be called many times in one transaction. Safe
// for concurrent use.
type Sync struct {
	src    TxSource
	name   string
	issued atomic.Int64
}

// NewSync is a synchronous generator of the sequence name in src.
func NewSync(src TxSource, name string) *Sync { return &Sync{src: src, name: name} }

// Next takes the next value inside tx.
func (g *Sync) Next(ctx context.Context, tx *sql.Tx) (int64, error) {
	v, err := g.src.NextInTx(ctx, tx, g.name)
	if err == nil {
		g.issued.Add(1)
	}
	return v, err
}

// Stats reports how many values Next returned (some of them may have
// been rolled back with their transactions, and so issued again).
func (g *Sync) Stats() Stats { return Stats{Issued: g.issued.Load()} }
