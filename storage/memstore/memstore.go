// Package memstore is a storage.Store in memory: nothing survives the
// process. It holds what must never reach disk, such as a session's
// temporary sequences.
package memstore

import (
	"context"
	"sort"
	"sync"

	"github.com/seqd/seqd/storage"
)

// Store keeps records in a map. It is safe for concurrent use.
type Store struct {
	mu     sync.Mutex
	kvs    map[string]storage.KV
	rev    storage.Rev
	owner  storage.Token
	closed bool
}

// New returns an empty store.
func New() *Store { return &Store{kvs: map[string]storage.KV{}} }

// Acquire makes the caller the owner.
func (s *Store) Acquire(ctx context.Context) (storage.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, storage.ErrClosed
	}
	s.owner++
	return s.owner, nil
}

// Load calls fn for every record, in key order.
func (s *Store) Load(ctx context.Context, fn func(storage.KV) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return storage.ErrClosed
	}
	kvs := make([]storage.KV, 0, len(s.kvs))
	for _, kv := range s.kvs {
		kvs = append(kvs, kv)
	}
	s.mu.Unlock()
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].Key < kvs[j].Key })
	for _, kv := range kvs {
		if err := fn(kv); err != nil {
			return err
		}
	}
	return nil
}

// Commit applies ops atomically at one new revision.
func (s *Store) Commit(ctx context.Context, token storage.Token, ops []storage.Op) (storage.Rev, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return 0, storage.ErrClosed
	case token != s.owner:
		return 0, storage.ErrFenced
	}
	for _, op := range ops {
		if s.kvs[op.Key].Rev != op.Expect {
			return 0, storage.ErrConflict
		}
	}
	s.rev++
	for _, op := range ops {
		if op.Value == nil {
			delete(s.kvs, op.Key)
		} else {
			s.kvs[op.Key] = storage.KV{Key: op.Key, Value: append([]byte(nil), op.Value...), Rev: s.rev}
		}
	}
	return s.rev, nil
}

// Close releases the store: calls fail with ErrClosed until Reopen.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// Reopen makes a closed store usable again with its records, as reopening
// a disk store would.
func (s *Store) Reopen() *Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = false
	return s
}

// Clone returns a copy of the store's records and revisions, as a copy
// of a disk store's files would be, with no owner.
func (s *Store) Clone() *Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Store{kvs: make(map[string]storage.KV, len(s.kvs)), rev: s.rev}
	for k, kv := range s.kvs {
		c.kvs[k] = kv
	}
	return c
}
