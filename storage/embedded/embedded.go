// Package embedded is seqd's default store: a local Pebble database,
// every commit of which is synced to the store's own commit log before it
// returns (commitlog.go).
package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

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
	// pidFile holds the process id of the seqd that has the store open,
	// for the error a second one gets.
	pidFile = "PID-SEQD"

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
	// Adopt is the operator's statement that this directory now holds the
	// only copy of its store: a store whose identity file names another
	// place (a copy, a moved volume, a restored snapshot) is opened and
	// takes this place as its own. Without it, such a store is refused
	// with ErrMoved.
	Adopt bool
	// OnFailure, if set, is called once (from its own goroutine) when the
	// store fails while open for a reason a restart on the same directory
	// cannot mend: its directory removed or replaced, or damage found in
	// its files. Every commit fails from then on. (A write Pebble could not
	// complete, such as EIO, fails the store too, without OnFailure: the
	// engine reports it, and a restart recovers what is durable.)
	OnFailure func(error)
	// WatchInterval is how often the open store checks its directory and
	// records its revision in the identity file. Default 1 s.
	WatchInterval time.Duration
	// MinFreeBytes is the room the store keeps on its file system: a
	// commit finding less free refuses to write (storage.ErrDiskFull)
	// rather than let Pebble meet ENOSPC, which it cannot survive (its
	// log writer fails for good, and the process must restart). Writes
	// resume by themselves once space is freed. 0: DefaultMinFreeBytes;
	// negative: no reserve. Where the file system cannot tell its free
	// space, nothing is checked.
	MinFreeBytes int64
}

// DefaultMinFreeBytes is the reserve a store keeps by default: room for
// Pebble to flush and compact a store of millions of sequences.
const DefaultMinFreeBytes = 64 << 20

// Errors of Open that an operator must act on. Each is wrapped with the
// details (the directory, the file, the revisions) in its message.
var (
	// ErrDamaged: the store's files are damaged, or hold less than the
	// store had durably written. Starting would risk handing out values
	// again; nothing was changed.
	ErrDamaged = errors.New("seqd: the store is damaged")
	// ErrMoved: the store's identity names another place: it may be a
	// copy of a store that still serves. Options.Adopt (the -adopt-store
	// flag) opens it once the operator knows it is the only copy.
	ErrMoved = errors.New("seqd: the store was created in another place")
	// ErrNewerFormat: the store was written by a newer seqd.
	ErrNewerFormat = errors.New("seqd: the store's format is newer than this seqd's")
)

// Store is a storage.Store on Pebble. It is safe for concurrent use; commits
// are serialized by one mutex, which is fine because seqd's engine has one
// writer that batches everything into few commits.
type Store struct {
	fs  vfs.FS
	dir string
	o   Options

	mu     sync.Mutex
	db     *pebble.DB
	closed bool
	failed error       // set when Pebble reported a fatal commit error or the directory went
	full   bool        // the last commit found the file system below the reserve
	rev    storage.Rev // last committed revision
	// owner is ownerKey's value. Only this Store writes it (Pebble's lock
	// keeps other processes out of the directory), so Commit fences with
	// it rather than reading the key again: a read per commit.
	owner uint64
	id    identity // as last written (by Open, then the watcher, then Close); id.revision the revision recorded
	fresh bool     // Open created the store
	// records is how many records Open found (and so checked).
	records int

	stop    chan struct{} // closed by Close: the watcher ends
	watched chan struct{} // closed when the watcher has ended
	// spare is a descriptor the watcher holds in reserve to look with
	// (watch.go); Open takes it, then only the watcher touches it.
	spare *os.File

	log      commitLog
	trimming bool           // a trimLog is under way
	trims    sync.WaitGroup // trimLog goroutines, waited for by Close
	noTrim   bool           // tests: segments stay until Close
}

var _ storage.Store = (*Store)(nil)

// Open opens (creating if needed) the store in dir, after checking that
// it is whole and in its place (identity.go): a damaged store is refused
// with ErrDamaged, never opened empty or old; a store created elsewhere
// with ErrMoved unless o.Adopt; one of a newer seqd with ErrNewerFormat.
func Open(dir string, o Options) (*Store, error) {
	fs := o.FS
	if fs == nil {
		fs = vfs.Default
	}
	if o.WatchInterval <= 0 {
		o.WatchInterval = time.Second
	}
	if o.MinFreeBytes == 0 {
		o.MinFreeBytes = DefaultMinFreeBytes
	}
	if _, err := fs.Stat(fs.PathJoin(dir, backupFile)); err == nil {
		// Its marks are as of the backup: served as it is, it would hand
		// out again what the original handed out since.
		return nil, fmt.Errorf("%w: %s is a backup, not a store: make a store of it with seqd restore, which moves every sequence past what the original may have handed out since", ErrMoved, dir)
	}
	id, hasID, err := readIdentity(fs, dir)
	if err != nil {
		return nil, fmt.Errorf("%w: its identity file %s is %v; refusing to start (docs/reliability.md says what to do)", ErrDamaged, fs.PathJoin(dir, identityFile), err)
	}
	if hasID && id.format > storeFormat {
		return nil, fmt.Errorf("%w: %s holds a store of format %d; this seqd reads formats up to %d: run the newer seqd", ErrNewerFormat, dir, id.format, storeFormat)
	}
	existed, err := hasPebbleFiles(fs, dir)
	if err != nil {
		return nil, fmt.Errorf("seqd: open store %s: %w", dir, err)
	}
	if hasID && !existed {
		return nil, fmt.Errorf("%w: %s holds the identity of store %s (at revision %d) but none of its data: the data was removed or the directory emptied; refusing to create a new store that would hand out its values again", ErrDamaged, dir, id.id, id.revision)
	}
	s, err := openPebble(fs, dir, o, false)
	if err != nil {
		return nil, err
	}
	replayed, err := s.replay()
	if err != nil {
		s.db.Close()
		return nil, err
	}
	s.fresh = !existed
	if hasID && uint64(s.rev) < id.revision {
		s.db.Close()
		return nil, fmt.Errorf("%w: %s holds writes up to revision %d, but the store had durably reached revision %d (recorded in %s): its latest writes are lost (a damaged commit log?), and values handed out since could be handed out again; refusing to start", ErrDamaged, dir, s.rev, id.revision, identityFile)
	}
	place, inode := placeOf(fs, dir)
	if hasID && !o.Adopt && (id.place != place || id.inode != 0 && inode != 0 && id.inode != inode) {
		s.db.Close()
		return nil, fmt.Errorf("%w: store %s was created in %s (inode %d) and is opened from %s (inode %d): it may be a copy of a store that still serves, and both would hand out the same values; if this is now its only copy, start once with -adopt-store", ErrMoved, id.id, id.place, id.inode, place, inode)
	}
	// Only now, with nothing to refuse, is the replayed log let go.
	if err := s.settle(replayed); err != nil {
		s.db.Close()
		return nil, err
	}
	if !hasID {
		// A new store, or one written before identity files (format 1):
		// from now on it has one.
		id = identity{id: newStoreID()}
	}
	id.format, id.revision, id.place, id.inode = storeFormat, uint64(s.rev), place, inode
	if err := writeIdentity(fs, dir, id); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("seqd: open store %s: write %s: %w", dir, identityFile, err)
	}
	s.id = id
	if fs == vfs.Default {
		// Says who holds the lock to a second seqd on the same directory.
		os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	}
	s.stop, s.watched = make(chan struct{}), make(chan struct{})
	s.holdSpare()
	go s.watch()
	return s, nil
}

// openPebble opens dir's Pebble database and reads every key, so that
// damage Pebble's checksums find in any table is found now, as an error
// naming it (Pebble reports some as panics). readOnly opens it without
// writing (seqd check).
func openPebble(fs vfs.FS, dir string, o Options, readOnly bool) (s *Store, err error) {
	s = &Store{fs: fs, dir: dir, o: o, log: commitLog{fs: fs, dir: dir}}
	lg := logger{info: o.Logger}
	if fs == vfs.Default {
		lg.dir = dir
	}
	// The commit log is the store's write-ahead log: Pebble writes none
	// (it still replays one a store of format 3 left, and flushes it).
	opts := &pebble.Options{FS: fs, Logger: lg, ReadOnly: readOnly, DisableWAL: true}
	// Damage Pebble's checksums find, in a read or in a background job,
	// fails the store (its default is Fatalf, which would end the
	// process from a goroutine of Pebble's).
	opts.EventListener = &pebble.EventListener{DataCorruption: func(info pebble.DataCorruptionInfo) {
		log.Printf("pebble: on-disk corruption in %s: %v", info.Path, info.Details)
		s.fail(fmt.Errorf("%w: %s: %v", ErrDamaged, info.Path, info.Details))
	}}
	defer func() {
		// Pebble reports some damage by Fatalf (our logger's panic) or
		// a panic of its own; its state is then not to be trusted, not
		// even to close it: the database is left open, and the caller
		// ends without a store.
		if r := recover(); r != nil {
			err, s = fmt.Errorf("%w: %s: %v; refusing to start", ErrDamaged, dir, r), nil
		}
		if err != nil {
			s = nil
		}
	}()
	db, err := pebble.Open(dir, opts)
	if err != nil {
		if errors.Is(err, syscall.EAGAIN) {
			holder := "another process"
			if b, rerr := os.ReadFile(filepath.Join(dir, pidFile)); rerr == nil {
				holder = "process " + strings.TrimSpace(string(b))
			}
			return nil, fmt.Errorf("seqd: the store in %s is in use by %s (it holds the store's lock): stop it first", dir, holder)
		}
		if errors.Is(err, pebble.ErrCorruption) {
			return nil, fmt.Errorf("%w: %s: %v; refusing to start", ErrDamaged, dir, err)
		}
		return nil, fmt.Errorf("seqd: open store %s: %w", dir, err)
	}
	s.db = db
	rev, err := s.getUint(revKey)
	if err == nil {
		s.owner, err = s.getUint(ownerKey)
	}
	if err == nil {
		err = s.verify(rev)
	}
	if err == nil {
		s.mu.Lock()
		err = s.failed
		s.mu.Unlock()
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %s: %v; refusing to start", ErrDamaged, dir, err)
	}
	s.rev = storage.Rev(rev)
	return s, nil
}

// replay applies the commit log past the revision Pebble holds, and
// returns the log's segments.
func (s *Store) replay() ([]string, error) {
	cur, err := replayLog(s.fs, s.dir, s.rev, func(rev storage.Rev, ops []storage.Op) error {
		b := s.db.NewBatch()
		defer b.Close()
		s.stage(b, rev, ops)
		return b.Commit(pebble.NoSync)
	})
	if err != nil {
		if errors.Is(err, ErrDamaged) {
			return nil, fmt.Errorf("%w; refusing to start", err)
		}
		return nil, fmt.Errorf("seqd: open store %s: replay the commit log: %w", s.dir, err)
	}
	segs, err := segments(s.fs, s.dir)
	if err != nil {
		return nil, fmt.Errorf("seqd: open store %s: %w", s.dir, err)
	}
	s.rev = cur
	return segs, nil
}

// settle flushes what replay applied into Pebble's tables and removes
// the segments it read: the log starts again with the next commit, in a
// segment of its own.
func (s *Store) settle(segs []string) error {
	removeSpare(s.fs, s.dir)
	if len(segs) == 0 {
		return nil
	}
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("seqd: open store %s: flush the replayed log: %w", s.dir, err)
	}
	if err := removeSegments(s.fs, s.dir, segs); err != nil {
		return fmt.Errorf("seqd: open store %s: remove the replayed log: %w", s.dir, err)
	}
	return nil
}

// stage adds a commit's ops at rev, and rev itself, to b.
func (s *Store) stage(b *pebble.Batch, rev storage.Rev, ops []storage.Op) {
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
}

// verify reads every record, checking each block's checksum on the way,
// and that no record is newer than the store's revision rev.
func (s *Store) verify(rev uint64) error {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if !bytes.HasPrefix(k, []byte(recordPrefix)) {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if len(v) < 8 {
			return fmt.Errorf("record %q is %d bytes", k, len(v))
		}
		if r := binary.BigEndian.Uint64(v); r > rev {
			return fmt.Errorf("record %q is of revision %d, after the store's %d", k, r, rev)
		}
		s.records++
	}
	return it.Error()
}

// Fresh reports whether Open created the store.
func (s *Store) Fresh() bool { return s.fresh }

// ID is the store's identity (a new one after a restore or an upgrade
// from format 1).
func (s *Store) ID() string { return s.id.id }

// fail makes every later commit fail with err and tells OnFailure, once.
func (s *Store) fail(err error) {
	s.mu.Lock()
	first := s.failed == nil && !s.closed
	if first {
		s.failed = err
	}
	s.mu.Unlock()
	if first && s.o.OnFailure != nil {
		go s.o.OnFailure(err)
	}
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
	err = s.commitLocked(b)
	if err == nil {
		// Not through the log: a flush makes it durable.
		if err = s.db.Flush(); err != nil {
			err = fmt.Errorf("seqd: flush: %w", err)
		}
	}
	// Even when the outcome is unknown: the old token is fenced either way.
	s.owner = cur + 1
	if err != nil {
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

// Commit checks the token and every op's revision, appends the ops to the
// commit log and syncs it, then writes them and the new revision to Pebble
// in one batch.
func (s *Store) Commit(ctx context.Context, token storage.Token, ops []storage.Op) (storage.Rev, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, storage.ErrClosed
	}
	if s.failed != nil {
		return 0, s.failed
	}
	if storage.Token(s.owner) != token {
		return 0, fmt.Errorf("%w: token %d, owner %d", storage.ErrFenced, token, s.owner)
	}
	if err := s.checkSpaceLocked(); err != nil {
		return 0, err
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
	if err := s.log.append(rev, ops); err != nil {
		if storage.Refused(err) {
			return 0, err
		}
		// Outcome unknown, as for a failed fdatasync anywhere: the
		// store takes no more commits, and a restart recovers what is
		// durable.
		s.failed = fmt.Errorf("seqd: store failed: %w", err)
		log.Printf("%v: every later write fails until seqd restarts (it then recovers what is durable)", s.failed)
		return 0, s.failed
	}
	b := s.db.NewBatch()
	defer b.Close()
	s.stage(b, rev, ops)
	if err := s.commitLocked(b); err != nil {
		// Durable in the log, not in Pebble: only a restart's replay
		// makes the store whole again.
		if s.failed == nil {
			s.failed = fmt.Errorf("seqd: store failed: %w", err)
		}
		return 0, s.failed
	}
	s.rev = rev
	if s.log.full() && !s.trimming && !s.noTrim {
		s.trimming = true
		s.trims.Add(1)
		go s.trimLog()
	}
	return rev, nil
}

// trimLog removes the log's segments before the current one once Pebble
// holds what they hold: every commit they hold was applied before the
// current segment began, so a flush begun now writes them all to tables.
// It goes on while segments fill faster than it removes them.
func (s *Store) trimLog() {
	defer s.trims.Done()
	for {
		s.mu.Lock()
		old := s.log.old
		s.log.old = nil
		if len(old) == 0 || s.closed {
			s.log.old = old
			s.trimming = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		err := s.db.Flush()
		if err == nil {
			err = removeSegments(s.fs, s.dir, old)
		}
		if err != nil {
			s.mu.Lock()
			s.log.old = append(old, s.log.old...) // the next full segment tries again
			s.trimming = false
			s.mu.Unlock()
			log.Printf("seqd: remove the commit log's older segments from %s: %v (tried again when the next segment fills)", s.dir, err)
			return
		}
	}
}

// checkSpaceLocked refuses a commit when the file system has less free
// than the reserve, logging when that starts and when it ends. A statfs
// call per commit, against the fsync each commit makes. REQUIRES: s.mu.
func (s *Store) checkSpaceLocked() error {
	reserve := s.o.MinFreeBytes
	if reserve < 0 {
		return nil
	}
	u, err := s.fs.GetDiskUsage(s.dir)
	if err != nil {
		return nil // a file system that cannot tell (in memory)
	}
	if u.AvailBytes >= uint64(reserve) {
		if s.full {
			s.full = false
			log.Printf("seqd: the store's file system has room again (%d bytes free): writes resume", u.AvailBytes)
		}
		return nil
	}
	err = fmt.Errorf("%w: %d bytes free on the file system of %s, below the %d the store keeps in reserve (-min-free-space): nothing was written; writes resume when space is freed", storage.ErrDiskFull, u.AvailBytes, s.dir, reserve)
	if !s.full {
		s.full = true
		log.Printf("%v", err)
	}
	return err
}

// commitLocked applies b to Pebble's memtable (the commit log, or a flush,
// makes it durable). Pebble treats some failures as fatal (its commit
// pipeline cannot continue), which reach us as a panic from
// logger.Fatalf: the store then fails every later call, and the outcome
// of b is unknown. REQUIRES: s.mu held.
func (s *Store) commitLocked(b *pebble.Batch) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fatalError)
			if !ok {
				panic(r)
			}
			s.failed = fmt.Errorf("seqd: store failed: %s", string(f))
			err = s.failed
			log.Printf("%v: every later write fails until seqd restarts (it then recovers what is durable)", s.failed)
		}
	}()
	if err := b.Commit(pebble.NoSync); err != nil {
		err = fmt.Errorf("seqd: commit: %w", err)
		log.Printf("%v", err) // at the moment it happens (ENOSPC, EIO), not only to the client
		return err
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

// Close flushes what Pebble holds in memory to its checksummed tables,
// records the final revision in the identity file and closes the
// database. After a failure nothing is written: the process should
// restart from what is durable.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if s.stop != nil {
		close(s.stop)
		<-s.watched
	}
	s.trims.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.close()
	if s.failed != nil {
		// A failed Pebble cannot be closed cleanly; the process should
		// restart to recover from what is durable.
		return s.failed
	}
	if err := s.db.Flush(); err != nil {
		s.db.Close()
		return fmt.Errorf("seqd: close store: flush: %w", err)
	}
	id := s.id
	id.revision = uint64(s.rev)
	if err := writeIdentity(s.fs, s.dir, id); err != nil {
		s.db.Close()
		return fmt.Errorf("seqd: close store: write %s: %w", identityFile, err)
	}
	// Pebble's tables hold every commit: the log is not needed again.
	segs, err := segments(s.fs, s.dir)
	if err == nil {
		err = removeSegments(s.fs, s.dir, segs)
	}
	if err != nil {
		log.Printf("seqd: close store: remove the commit log: %v (the next start replays what it holds past the tables)", err)
	}
	return s.db.Close()
}

// logger adapts Pebble's logging: informational lines go to the configured
// logger (or nowhere), errors to the standard logger, and fatal errors
// become a panic of fatalError, which commitLocked turns into an error.
// Pebble must not continue after Fatalf (it would report a failed commit as
// done), so Fatalf never returns.
type logger struct {
	info *log.Logger
	dir  string // the store's directory on the real file system ("" on another)
}

type fatalError string

func (l logger) Infof(format string, args ...any) {
	if l.info != nil {
		l.info.Printf(format, args...)
	}
}
func (l logger) Errorf(format string, args ...any) { log.Printf("pebble: "+format, args...) }
func (l logger) Fatalf(format string, args ...any) {
	if l.dir != "" {
		// A removed directory can reach Pebble before the watcher sees
		// it, in a path where the panic below cannot be recovered (Pebble
		// then ends the process): say why first.
		if _, err := os.Stat(l.dir); placeGone(err) {
			log.Printf("seqd: store failed: its directory %s was removed or replaced (%v): stopping", l.dir, err)
		}
	}
	panic(fatalError(fmt.Sprintf(format, args...)))
}
