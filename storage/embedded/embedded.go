// Package embedded is seqd's default store: a local Pebble database whose
// every commit is synced to disk before it returns.
package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/storage"
)

// Keys. Records live under recordPrefix; two meta keys hold the owner's
// token and the store's revision, each as an 8-byte big-endian integer.
//
// A record's stored value is part of the on-disk format:
//
//	+----------------------+------------------+
//	| revision (8 bytes BE)| payload (opaque) |
//	+----------------------+------------------+
const (
	ownerKey     = "m/owner"
	revKey       = "m/rev"
	recordPrefix = "r/"
	recordEnd    = "r0" // recordPrefix with its last byte incremented
)

// Options configure Open. The zero value opens dir on the operating
// system's file system and logs Pebble's errors with the standard logger.
type Options struct {
	// FS is the file system Pebble uses; nil means the real one. Tests pass
	// crashable and error-injecting file systems here.
	FS vfs.FS
	// Logger receives Pebble's informational messages; nil discards them.
	// Errors always go to the standard logger.
	Logger *log.Logger
}

// Store is a storage.Store on Pebble. It is safe for concurrent use; commits
// are serialized by one mutex, which is fine because seqd's engine has one
// writer that batches everything into few commits.
type Store struct {
	mu     sync.Mutex
	db     *pebble.DB
	closed bool
	failed error       // set when Pebble reported a fatal commit error
	rev    storage.Rev // last committed revision
}

var _ storage.Store = (*Store)(nil)

// Open opens (creating if needed) the store in dir.
func Open(dir string, o Options) (*Store, error) {
	opts := &pebble.Options{FS: o.FS, Logger: logger{o.Logger}}
	if opts.FS == nil {
		opts.FS = vfs.Default
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("seqd: open store %s: %w", dir, err)
	}
	s := &Store{db: db}
	rev, err := s.getUint(revKey)
	if err != nil {
		db.Close()
		return nil, err
	}
	s.rev = storage.Rev(rev)
	return s, nil
}

func (s *Store) getUint(key string) (uint64, error) {
	v, closer, err := s.db.Get([]byte(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("seqd: read %s: %w", key, err)
	}
	defer closer.Close()
	if len(v) != 8 {
		return 0, fmt.Errorf("seqd: corrupt %s: %d bytes", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

func putUint(b *pebble.Batch, key string, v uint64) {
	b.Set([]byte(key), binary.BigEndian.AppendUint64(nil, v), nil)
}

// Acquire increments the owner token durably and returns it.
func (s *Store) Acquire(ctx context.Context) (storage.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, storage.ErrClosed
	}
	cur, err := s.getUint(ownerKey)
	if err != nil {
		return 0, err
	}
	b := s.db.NewBatch()
	defer b.Close()
	putUint(b, ownerKey, cur+1)
	if err := s.commitLocked(b); err != nil {
		return 0, fmt.Errorf("seqd: acquire: %w", err)
	}
	return storage.Token(cur + 1), nil
}

// Load calls fn for every record in key order.
func (s *Store) Load(ctx context.Context, fn func(storage.KV) error) error {
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{
		LowerBound: []byte(recordPrefix),
		UpperBound: []byte(recordEnd),
	})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		v := it.Value()
		if len(v) < 8 {
			return fmt.Errorf("seqd: corrupt record %q", it.Key())
		}
		kv := storage.KV{
			Key:   string(it.Key()[len(recordPrefix):]),
			Rev:   storage.Rev(binary.BigEndian.Uint64(v)),
			Value: append([]byte(nil), v[8:]...),
		}
		if err := fn(kv); err != nil {
			return err
		}
	}
	return it.Error()
}

// Commit checks the token and every op's revision, then writes all ops and
// the new revision in one synced batch.
func (s *Store) Commit(ctx context.Context, token storage.Token, ops []storage.Op) (storage.Rev, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, storage.ErrClosed
	}
	if s.failed != nil {
		return 0, s.failed
	}
	owner, err := s.getUint(ownerKey)
	if err != nil {
		return 0, err
	}
	if storage.Token(owner) != token {
		return 0, fmt.Errorf("%w: token %d, owner %d", storage.ErrFenced, token, owner)
	}
	for _, op := range ops {
		cur, err := s.recordRev(op.Key)
		if err != nil {
			return 0, err
		}
		if cur != op.Expect {
			return 0, fmt.Errorf("%w: %q at revision %d, expected %d", storage.ErrConflict, op.Key, cur, op.Expect)
		}
	}
	rev := s.rev + 1
	b := s.db.NewBatch()
	defer b.Close()
	for _, op := range ops {
		k := []byte(recordPrefix + op.Key)
		if op.Value == nil {
			b.Delete(k, nil)
			continue
		}
		v := make([]byte, 8, 8+len(op.Value))
		binary.BigEndian.PutUint64(v, uint64(rev))
		b.Set(k, append(v, op.Value...), nil)
	}
	putUint(b, revKey, uint64(rev))
	if err := s.commitLocked(b); err != nil {
		return 0, err
	}
	s.rev = rev
	return rev, nil
}

// commitLocked commits b with a sync. Pebble treats a failed WAL write or
// sync as fatal (its commit pipeline cannot continue), which reaches us as a
// panic from logger.Fatalf: the store then fails every later call, and the
// outcome of b is unknown. REQUIRES: s.mu held.
func (s *Store) commitLocked(b *pebble.Batch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fatalError)
			if !ok {
				panic(r)
			}
			s.failed = fmt.Errorf("seqd: store failed: %s", string(f))
			err = s.failed
		}
	}()
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("seqd: commit: %w", err)
	}
	return nil
}

func (s *Store) recordRev(key string) (storage.Rev, error) {
	v, closer, err := s.db.Get([]byte(recordPrefix + key))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("seqd: read %q: %w", key, err)
	}
	defer closer.Close()
	if len(v) < 8 {
		return 0, fmt.Errorf("seqd: corrupt record %q", key)
	}
	return storage.Rev(binary.BigEndian.Uint64(v)), nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.failed != nil {
		// A failed Pebble cannot be closed cleanly; the process should
		// restart to recover from what is durable.
		return s.failed
	}
	return s.db.Close()
}

// logger adapts Pebble's logging: informational lines go to the configured
// logger (or nowhere), errors to the standard logger, and fatal errors
// become a panic of fatalError, which commitLocked turns into an error.
// Pebble must not continue after Fatalf (it would report a failed commit as
// done), so Fatalf never returns.
type logger struct{ info *log.Logger }

type fatalError string

func (l logger) Infof(format string, args ...any) {
	if l.info != nil {
		l.info.Printf(format, args...)
	}
}
func (l logger) Errorf(format string, args ...any) { log.Printf("pebble: "+format, args...) }
func (l logger) Fatalf(format string, args ...any) { panic(fatalError(fmt.Sprintf(format, args...))) }
