// Package storage defines where seqd keeps its durable state: a small
// key-value contract with compare-and-set writes fenced by an ownership
// token, so that an embedded store and an etcd cluster can both serve it.
package storage

import (
	"context"
	"errors"
)

var (
	// ErrConflict: a write's expected revision did not match the stored one.
	ErrConflict = errors.New("seqd: storage conflict")
	// ErrFenced: the writer's token is no longer the owner's.
	ErrFenced = errors.New("seqd: storage ownership lost")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("seqd: storage closed")
	// ErrDiskFull: a write refused before it was made because the
	// store's file system has less room left than the store keeps in
	// reserve. Nothing was written, and the same write succeeds once
	// space is freed: unlike a write that failed on the disk, whose
	// outcome is unknown, it needs no restart.
	ErrDiskFull = errors.New("seqd: storage full")
	// ErrTooLarge: a commit refused before it was made because it holds
	// more records than the store takes in one (etcd's transaction
	// limit). Nothing was written; the request is the client's to
	// change, and the store is sound.
	ErrTooLarge = errors.New("seqd: commit too large for the store")
)

// Refused reports whether err is a store's refusal before anything was
// written (ErrDiskFull, ErrTooLarge): unlike a write that failed on the
// way, whose outcome is unknown, it leaves everything as it was and the
// store sound.
func Refused(err error) bool {
	return errors.Is(err, ErrDiskFull) || errors.Is(err, ErrTooLarge)
}

// Rev is the revision at which a record was last written. Revisions only
// grow; 0 means "absent".
type Rev uint64

// Token is an ownership (fencing) token. Every Acquire returns a token
// larger than all before it.
type Token uint64

// Op is one conditional write in a Commit.
type Op struct {
	Key    string
	Value  []byte // nil deletes the record
	Expect Rev    // the record's current revision; 0: the record must not exist
	// Shared marks a record that writers other than the owner change
	// (a Swapper's): a store that makes a large commit in steps compares
	// and writes it in the step that decides the commit, since its
	// revision may move while the others are checked.
	Shared bool
}

// KV is a stored record.
type KV struct {
	Key   string
	Value []byte
	Rev   Rev
}

// Swapper is a store that any writer may compare-and-swap one record of,
// without the owner's token: how cluster mode's nodes reserve blocks of
// a NOORDER sequence for themselves.
type Swapper interface {
	// Swap reads the records at guard and key as of one revision (Rev
	// 0: absent) and passes them to fn; if fn returns a value, it is
	// written at key provided that neither record changed since, and
	// Swap reads and calls fn again while they change, until ctx ends.
	// An error of fn's ends Swap with nothing written; any other error
	// leaves the outcome unknown.
	Swap(ctx context.Context, guard, key string, fn func(guard, cur KV) ([]byte, error)) error
}

// Store is durable storage for seqd's records. Implementations are safe for
// concurrent use.
type Store interface {
	// Acquire makes the caller the owner and returns its token. Commits
	// that carry an older token fail with ErrFenced from then on.
	Acquire(ctx context.Context) (Token, error)
	// Load calls fn for every record, in key order.
	Load(ctx context.Context, fn func(KV) error) error
	// Commit applies ops atomically and durably and returns the revision
	// they are at: a later Commit expecting that revision of any of them
	// expects what this one wrote. (A store may write a commit too large
	// for one of its transactions over several revisions, made visible
	// all at once; it then answers for them all under the last.) It fails
	// with ErrFenced when token is not the owner's, with ErrConflict when
	// an op's Expect does not match; then nothing was applied. Any other
	// error leaves the outcome unknown: the writes may or may not be
	// durable.
	Commit(ctx context.Context, token Token, ops []Op) (Rev, error)
	// Close releases the store. Commits after Close fail with ErrClosed.
	Close() error
}
