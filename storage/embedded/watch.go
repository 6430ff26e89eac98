package embedded

import (
	"fmt"
	"os"
	"time"
)

// watch records the revision in the identity file while it moves, and
// fails the store when its directory is removed or replaced, until Close.
func (s *Store) watch() {
	defer close(s.watched)
	t := time.NewTicker(s.o.WatchInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		if err := s.checkPlace(); err != nil {
			s.fail(err)
			return
		}
		// Only the watcher writes the identity file while the store is
		// open (Close waits for it to end), so commits need not wait for
		// the write: the revision read here is durable, and later ones
		// only larger.
		s.mu.Lock()
		rev, failed := uint64(s.rev), s.failed
		s.mu.Unlock()
		if failed == nil && rev != s.id.revision {
			id := s.id
			id.revision = rev
			if err := writeIdentity(s.fs, s.dir, id); err != nil {
				s.fail(fmt.Errorf("seqd: store failed: write %s: %w", identityFile, err))
				return
			}
			s.id = id
		}
	}
}

// checkPlace fails when the store's directory, or its identity file, is
// no longer what Open found: removed, or replaced by another directory.
func (s *Store) checkPlace() error {
	id, ok, err := readIdentity(s.fs, s.dir)
	if err == nil && !ok {
		err = os.ErrNotExist
	}
	if err == nil && id.id != s.id.id {
		err = fmt.Errorf("it now holds store %s", id.id)
	}
	if err == nil {
		if _, inode := placeOf(s.fs, s.dir); s.id.inode != 0 && inode != s.id.inode {
			err = fmt.Errorf("the directory was replaced (inode %d, was %d)", inode, s.id.inode)
		}
	}
	if err != nil {
		return fmt.Errorf("seqd: store failed: its directory %s was removed or replaced (%v): nothing written from now on would survive a restart", s.dir, err)
	}
	return nil
}
