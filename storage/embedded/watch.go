package embedded

import (
	"errors"
	"fmt"
	"log"
	"os"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// The watch: while the store is open, one goroutine looks at its
// directory every Options.WatchInterval and records the revision in the
// identity file. What it finds is one of three things:
//
//  1. The directory is in its place: the identity file reads back as the
//     store's, and (on the operating system's file system) the directory
//     has the inode Open found.
//  2. It is gone or replaced: the directory or the identity file does not
//     exist (ENOENT, ENOTDIR), the file holds another store's identity or
//     is damaged, or the directory has another inode. The store fails.
//  3. The watch could not look: any other error (EMFILE, ENFILE, ENOMEM,
//     EINTR, EAGAIN, EACCES, EIO...) says nothing about the directory. A
//     flood of connections that takes every descriptor the process may
//     have is not an operator removing the store: the store serves on,
//     the watch logs it once (and once more when it can look again) and
//     looks again at the next tick.
//
// On the operating system's file system the watch holds one descriptor in
// reserve (spare), which it gives back to look when a look fails for want
// of descriptors, as servers do for accept's EMFILE.

// errCouldNotLook wraps a failure of the watch that says nothing about
// the directory: the store serves on, and the watch tries again.
var errCouldNotLook = errors.New("could not look")

// placeGone reports whether err says that a path is not there: it was
// removed, or a directory on its way is now something else.
func placeGone(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// resourceFault reports whether err is the system running short (of
// descriptors, memory) or a call interrupted: worth trying again.
func resourceFault(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// watch records the revision in the identity file while it moves, and
// fails the store when its directory is removed or replaced, until Close.
// It owns s.spare.
func (s *Store) watch() {
	defer close(s.watched)
	// Closing the spare at the end leaves its descriptor to Close's write
	// of the identity file.
	defer s.releaseSpare()
	t := time.NewTicker(s.o.WatchInterval)
	defer t.Stop()
	missed := 0 // ticks in a row the watch could not look
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		err := s.look(s.checkPlace)
		if err == nil {
			err = s.look(s.recordRevision)
		}
		switch {
		case err == nil:
			if missed > 0 {
				log.Printf("seqd: the store's watch can look at its directory %s again, after %d ticks it could not", s.dir, missed)
				missed = 0
			}
		case errors.Is(err, errCouldNotLook):
			if missed == 0 {
				log.Printf("seqd: the store's watch %v: the store serves on, and the watch looks again every %v (logged again when it can)", err, s.o.WatchInterval)
			}
			missed++
		default:
			s.fail(err)
			return
		}
	}
}

// look runs fn, a look of the watch. When it fails for want of
// descriptors, the spare is given back and fn runs again; the spare is
// then taken again. Another goroutine may take the freed descriptor
// first: fn then fails again, and the watch tries at its next tick.
func (s *Store) look(fn func() error) error {
	err := fn()
	if s.spare != nil && (errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)) {
		s.releaseSpare()
		err = fn()
	}
	s.holdSpare()
	return err
}

// holdSpare takes a descriptor in reserve for the watch, if the store is
// on the operating system's file system and holds none. (Another file
// system, in tests or under fault injection, takes no descriptor per
// file.) It opens the store's directory: always there while the store is.
func (s *Store) holdSpare() {
	if s.spare == nil && s.fs == vfs.Default {
		if f, err := os.Open(s.dir); err == nil {
			s.spare = f
		}
	}
}

func (s *Store) releaseSpare() {
	if s.spare != nil {
		s.spare.Close()
		s.spare = nil
	}
}

// checkPlace fails when the store's directory, or its identity file, is
// no longer what Open found: removed, or replaced by another directory.
// An error that says neither is returned wrapping errCouldNotLook.
func (s *Store) checkPlace() error {
	id, ok, err := readIdentity(s.fs, s.dir)
	var why error
	switch {
	case err != nil && !placeGone(err) && !errors.Is(err, errIdentityDamaged):
		return fmt.Errorf("%w at its directory %s: read %s: %w", errCouldNotLook, s.dir, identityFile, err)
	case err != nil:
		why = err
	case !ok:
		why = os.ErrNotExist
	case id.id != s.id.id:
		why = fmt.Errorf("it now holds store %s", id.id)
	case s.id.inode != 0:
		inode, err := inodeOf(s.fs, s.dir)
		switch {
		case err != nil && !placeGone(err):
			return fmt.Errorf("%w at its directory %s: %w", errCouldNotLook, s.dir, err)
		case err != nil:
			why = err
		case inode != s.id.inode:
			why = fmt.Errorf("the directory was replaced (inode %d, was %d)", inode, s.id.inode)
		}
	}
	if why != nil {
		return fmt.Errorf("seqd: store failed: its directory %s was removed or replaced (%v): nothing written from now on would survive a restart", s.dir, why)
	}
	return nil
}

// recordRevision writes the store's revision to the identity file if it
// moved since the last write.
//
// The file never records more than is durable: a commit moves s.rev only
// after its synced batch returned, and only the watch writes the file
// while the store is open (Close waits for it to end). A write that fails
// leaves the file as it was, or (renamed, the directory not yet synced)
// with this revision: either was durable. So a write can be skipped: the
// recorded revision only strengthens Open's check for lost writes (an
// older one checks less, and refuses nothing whole). s.id.revision keeps
// the revision last written whole, so the next tick writes again. A
// resource fault skips the write (errCouldNotLook); the directory gone
// fails the store as checkPlace would; any other failure (EIO, ENOSPC)
// fails it too: the disk lost a write.
func (s *Store) recordRevision() error {
	s.mu.Lock()
	rev, failed := uint64(s.rev), s.failed
	s.mu.Unlock()
	if failed != nil || rev == s.id.revision {
		return nil
	}
	id := s.id
	id.revision = rev
	err := writeIdentity(s.fs, s.dir, id)
	switch {
	case err == nil:
		// Only the revision: ID and Checkpoint read s.id.id meanwhile.
		s.id.revision = rev
		return nil
	case resourceFault(err):
		return fmt.Errorf("%w at its directory %s: record revision %d in %s: %w", errCouldNotLook, s.dir, rev, identityFile, err)
	case placeGone(err):
		return fmt.Errorf("seqd: store failed: its directory %s was removed or replaced (write %s: %v): nothing written from now on would survive a restart", s.dir, identityFile, err)
	}
	return fmt.Errorf("seqd: store failed: write %s: %w", identityFile, err)
}
