package engine

import (
	"context"

	"github.com/seqd/seqd/storage/memstore"
)

// OpenMemory opens an engine over a store in memory, for what lives and
// dies with the process: a transaction's copies of the sequences it
// creates or rewrites, a session's temporary sequences.
func OpenMemory(ctx context.Context) (*Engine, error) {
	return Open(ctx, Config{Store: memstore.New()})
}

// OpenTemporary is OpenMemory for a session's temporary sequences
// (Config.Temporary).
func OpenTemporary(ctx context.Context) (*Engine, error) {
	return Open(ctx, Config{Store: memstore.New(), Temporary: true})
}
