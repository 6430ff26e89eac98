package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/storage"
)

// smallSegments makes log segments of n bytes for the test.
func smallSegments(t *testing.T, n int64) {
	old := logSegmentSize
	logSegmentSize = n
	t.Cleanup(func() { logSegmentSize = old })
}

// openOwned opens the store in dir and acquires it.
func openOwned(t *testing.T, dir string, o Options) (*Store, storage.Token) {
	t.Helper()
	s, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, tok
}

// modelOps is what commit i writes: a set of one of seven keys, and
// every fifth commit a delete of another, or a set of an empty value.
func modelOps(i int) []storage.Op {
	ops := []storage.Op{{Key: fmt.Sprintf("k%d", i%7), Value: []byte(fmt.Sprintf("v%d-%s", i, strings.Repeat("x", i%50)))}}
	switch i % 5 {
	case 0:
		ops = append(ops, storage.Op{Key: fmt.Sprintf("k%d", (i+3)%7)})
	case 3:
		ops = append(ops, storage.Op{Key: "empty", Value: []byte{}})
	}
	return ops
}

// modelAt is the store's records after commits 1..rev of modelOps.
func modelAt(rev int) map[string]string {
	m := map[string]string{}
	for i := 1; i <= rev; i++ {
		for _, op := range modelOps(i) {
			if op.Value == nil {
				delete(m, op.Key)
			} else {
				m[op.Key] = string(op.Value)
			}
		}
	}
	return m
}

// commitModel commits modelOps(i) for i from s's revision + 1, one at a
// time, expecting each key's revision, until stop is closed or n commits
// are made; acked is the last revision Commit returned.
func commitModel(t *testing.T, s *Store, tok storage.Token, n int, stop <-chan struct{}, acked *atomic.Int64) {
	revs := map[string]storage.Rev{}
	if err := s.Load(context.Background(), func(kv storage.KV) error {
		revs[kv.Key] = kv.Rev
		return nil
	}); err != nil {
		t.Error(err)
		return
	}
	for i := int(s.rev) + 1; n > 0; i, n = i+1, n-1 {
		select {
		case <-stop:
			return
		default:
		}
		ops := modelOps(i)
		for j := range ops {
			ops[j].Expect = revs[ops[j].Key]
		}
		rev, err := s.Commit(context.Background(), tok, ops)
		if err != nil {
			t.Errorf("commit %d: %v", i, err)
			return
		}
		if int(rev) != i {
			t.Errorf("commit %d at revision %d", i, rev)
			return
		}
		for _, op := range ops {
			if op.Value == nil {
				delete(revs, op.Key)
			} else {
				revs[op.Key] = rev
			}
		}
		acked.Store(int64(rev))
	}
}

// checkModel fails t unless s holds exactly the model at its revision,
// which is at least acked.
func checkModel(t *testing.T, s *Store, acked int, what string) {
	t.Helper()
	if int(s.rev) < acked {
		t.Fatalf("%s: opened at revision %d, below the %d acknowledged: commits lost", what, s.rev, acked)
	}
	got := map[string]string{}
	if err := s.Load(context.Background(), func(kv storage.KV) error {
		got[kv.Key] = string(kv.Value)
		return nil
	}); err != nil {
		t.Fatalf("%s: Load: %v", what, err)
	}
	want := modelAt(int(s.rev))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: at revision %d the store holds %v, want %v", what, s.rev, got, want)
	}
}

// TestCommitLogCrashes takes crash clones (what was synced, and a random
// share of what was not) of a store committing without pause, across
// segments filling, rotating and being trimmed: every clone opens, at a
// revision no lower than the last acknowledged before the clone was
// taken, holding exactly the records of that revision; and the reopened
// store takes commits on from there.
func TestCommitLogCrashes(t *testing.T) {
	smallSegments(t, 2<<10)
	const dir = "db"
	fs := vfs.NewCrashableMem()
	s, tok := openOwned(t, dir, Options{FS: fs, WatchInterval: time.Millisecond})
	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		commitModel(t, s, tok, 1<<30, stop, &acked)
	}()
	rng := rand.New(rand.NewPCG(1, 2))
	type clone struct {
		fs    vfs.FS
		acked int
	}
	var clones []clone
	for len(clones) < 40 {
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
		a := int(acked.Load())
		clones = append(clones, clone{fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(101), RNG: rand.New(rand.NewPCG(rng.Uint64(), 0))}), a})
	}
	close(stop)
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if acked.Load() < 200 {
		t.Fatalf("only %d commits: the segments never filled", acked.Load())
	}
	several := 0
	for i, c := range clones {
		what := fmt.Sprintf("clone %d (acknowledged %d)", i, c.acked)
		if segs, _ := segments(c.fs, dir); len(segs) > 1 {
			several++
		}
		s, err := Open(dir, Options{FS: c.fs})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkModel(t, s, c.acked, what)
		segs, err := segments(c.fs, dir)
		if err != nil || len(segs) != 0 {
			t.Fatalf("%s: after the replay, segments %v (%v): want none", what, segs, err)
		}
		tok, err := s.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var a atomic.Int64
		commitModel(t, s, tok, 5, nil, &a)
		checkModel(t, s, int(a.Load()), what+", then five commits")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d commits; %d clones opened whole, %d of them holding more than one segment", acked.Load(), len(clones), several)
	if several == 0 {
		t.Error("no clone held more than one segment: no crash came between a segment's filling and its trim")
	}
}

// logged writes n model commits to a store whose segments are not
// trimmed, and returns its crash clone (what was synced) and the
// segments it holds.
func logged(t *testing.T, n int) (vfs.FS, []string) {
	t.Helper()
	smallSegments(t, 1<<10)
	const dir = "db"
	fs := vfs.NewCrashableMem()
	s, tok := openOwned(t, dir, Options{FS: fs})
	s.noTrim = true
	var acked atomic.Int64
	commitModel(t, s, tok, n, nil, &acked)
	clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	s.Close()
	segs, err := segments(clone, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 3 {
		t.Fatalf("segments %v: want several", segs)
	}
	return clone, segs
}

// TestCommitLogSegmentsReplayed: a crash leaves several segments, all
// replayed in order.
func TestCommitLogSegmentsReplayed(t *testing.T) {
	clone, segs := logged(t, 100)
	s, err := Open("db", Options{FS: clone})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkModel(t, s, 100, fmt.Sprintf("%d segments", len(segs)))
}

// TestCommitLogDamageRefused: damage a torn write cannot explain is
// refused, never opened with commits missing: a record of an earlier
// segment that does not check, a segment missing between others, a
// record whose checksum holds over a payload that does not parse. A
// damaged record of the last segment reads as a torn write: the identity
// file's revision refuses the store when it had recorded more.
func TestCommitLogDamageRefused(t *testing.T) {
	flip := func(fs vfs.FS, path string, off int64) {
		f, err := fs.OpenReadWrite(path, vfs.WriteCategoryUnspecified)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, 1)
		f.ReadAt(b, off)
		b[0] ^= 0x40
		f.WriteAt(b, off)
	}
	t.Run("flipped byte in an earlier segment", func(t *testing.T) {
		clone, segs := logged(t, 100)
		flip(clone, clone.PathJoin("db", segs[1]), 20)
		if _, err := Open("db", Options{FS: clone}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "does not check") {
			t.Fatalf("Open: %v, want ErrDamaged", err)
		}
	})
	t.Run("segment missing", func(t *testing.T) {
		clone, segs := logged(t, 100)
		if err := clone.Remove(clone.PathJoin("db", segs[1])); err != nil {
			t.Fatal(err)
		}
		if _, err := Open("db", Options{FS: clone}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "follows revision") {
			t.Fatalf("Open: %v, want ErrDamaged", err)
		}
	})
	t.Run("payload that does not parse", func(t *testing.T) {
		clone, segs := logged(t, 100)
		path := clone.PathJoin("db", segs[0])
		data, err := readAll(clone, path)
		if err != nil {
			t.Fatal(err)
		}
		// The first record's op count made too large, then its
		// checksum made to hold.
		rec := appendRecord(nil, 1, modelOps(1))
		rec[logHeader+8] = 200
		binary.LittleEndian.PutUint32(rec[4:], crcOf(rec[:4], rec[logHeader:]))
		copy(data, rec)
		w, err := clone.Create(path, vfs.WriteCategoryUnspecified)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		w.Close()
		if _, err := Open("db", Options{FS: clone}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "bad op count") {
			t.Fatalf("Open: %v, want ErrDamaged", err)
		}
	})
	t.Run("flipped byte in the last segment, identity ahead", func(t *testing.T) {
		clone, segs := logged(t, 100)
		id, _, err := readIdentity(clone, "db")
		if err != nil {
			t.Fatal(err)
		}
		id.revision = 100 // as the watch records once the revision is durable
		if err := writeIdentity(clone, "db", id); err != nil {
			t.Fatal(err)
		}
		flip(clone, clone.PathJoin("db", segs[len(segs)-1]), 10)
		if _, err := Open("db", Options{FS: clone}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "latest writes are lost") {
			t.Fatalf("Open: %v, want ErrDamaged", err)
		}
	})
}

// TestCommitLogTrimmed: segments filled while the store runs are removed
// once Pebble holds their commits, so the log stays small; a clean close
// leaves none.
func TestCommitLogTrimmed(t *testing.T) {
	smallSegments(t, 1<<10)
	fs := vfs.NewMem()
	s, tok := openOwned(t, "db", Options{FS: fs})
	var acked atomic.Int64
	commitModel(t, s, tok, 300, nil, &acked)
	s.trims.Wait()
	segs, _ := segments(fs, "db")
	if len(segs) > 2 {
		t.Fatalf("after 300 commits in segments of 1 KiB, %d segments remain: %v", len(segs), segs)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if segs, _ := segments(fs, "db"); len(segs) != 0 {
		t.Fatalf("after a clean close: %v", segs)
	}
	s, err := Open("db", Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkModel(t, s, 300, "reopened")
}

// failingFS fails SyncData of the commit log's segments once fail is set.
type failingFS struct {
	vfs.FS
	fail atomic.Bool
}

type failingFile struct {
	vfs.File
	fs *failingFS
}

func (fs *failingFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, c)
	if err != nil || !strings.HasSuffix(name, logSuffix) {
		return f, err
	}
	return failingFile{f, fs}, nil
}

func (f failingFile) SyncData() error {
	if f.fs.fail.Load() {
		return syscall.EIO
	}
	return f.File.SyncData()
}

// TestCommitLogSyncFailure: a commit whose log sync fails is not
// acknowledged, and fails the store: every later commit fails, as after
// a failed fdatasync nothing can be trusted of what the file holds. A
// restart recovers every acknowledged commit.
func TestCommitLogSyncFailure(t *testing.T) {
	mem := vfs.NewCrashableMem()
	fs := &failingFS{FS: mem}
	s, tok := openOwned(t, "db", Options{FS: fs})
	var acked atomic.Int64
	commitModel(t, s, tok, 20, nil, &acked)
	fs.fail.Store(true)
	ops := modelOps(21)
	s.Load(context.Background(), func(kv storage.KV) error {
		for i := range ops {
			if ops[i].Key == kv.Key {
				ops[i].Expect = kv.Rev
			}
		}
		return nil
	})
	if _, err := s.Commit(context.Background(), tok, ops); err == nil || !errors.Is(err, syscall.EIO) {
		t.Fatalf("commit with its sync failing: %v, want EIO", err)
	}
	fs.fail.Store(false)
	if _, err := s.Commit(context.Background(), tok, ops); err == nil || !strings.Contains(err.Error(), "store failed") {
		t.Fatalf("commit after a failed sync: %v, want the store failed", err)
	}
	clone := mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	s.Close()
	s, err := Open("db", Options{FS: clone})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkModel(t, s, 20, "restarted")
}

// TestCommitLogFormat3Upgraded: a store of format 3, whose last commits
// are only in Pebble's own write-ahead log (synced commits, then a
// crash), opens whole and at its revision: Pebble replays its log even
// opened without one.
func TestCommitLogFormat3Upgraded(t *testing.T) {
	const dir = "db"
	mem := vfs.NewCrashableMem()
	s, err := Open(dir, Options{FS: mem})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	id, _, err := readIdentity(mem, dir)
	if err != nil {
		t.Fatal(err)
	}
	id.format = 3
	if err := writeIdentity(mem, dir, id); err != nil {
		t.Fatal(err)
	}
	// Format 3's commits, as its seqd made them: synced through Pebble's
	// log, with the owner's token and the revision beside the records.
	db, err := pebble.Open(dir, &pebble.Options{FS: mem})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 30; i++ {
		b := db.NewBatch()
		s := &Store{}
		s.stage(b, storage.Rev(i), modelOps(i))
		if i == 1 {
			putUint(b, ownerKey, 1)
		}
		if err := b.Commit(pebble.Sync); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	clone := mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	db.Close()
	s, err = Open(dir, Options{FS: clone})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkModel(t, s, 30, "format 3 after a crash")
	if s.owner != 1 {
		t.Fatalf("owner %d, want 1", s.owner)
	}
	if id, _, _ := readIdentity(clone, dir); id.format != storeFormat {
		t.Fatalf("format %d after the open, want %d", id.format, storeFormat)
	}
}

// TestCommitLogSpare: on the operating system's file system, a segment
// that fills is followed by the spare prepared meanwhile (renamed, not
// written while the commit waits), the log reads back whole across them,
// and the spare is not left behind: Close removes it, and Open removes
// one a crash left.
func TestCommitLogSpare(t *testing.T) {
	smallSegments(t, 4<<10)
	dir := t.TempDir()
	spare := filepath.Join(dir, spareName)
	s, tok := openOwned(t, dir, Options{})
	var acked atomic.Int64
	commitModel(t, s, tok, 400, nil, &acked)
	s.mu.Lock()
	spares := s.log.spares
	s.mu.Unlock()
	segs, _ := segments(vfs.Default, dir)
	t.Logf("400 commits in segments of 4 KiB: %d segments began from a spare, %d remain", spares, len(segs))
	if spares < 3 {
		t.Fatalf("%d segments began from a spare", spares)
	}
	if _, err := os.Stat(spare); err != nil {
		t.Fatalf("no spare prepared while the store is open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spare); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the spare after a clean close: %v", err)
	}
	// A crash's leftover spare, half written: not part of the log.
	if err := os.WriteFile(spare, []byte("half a spare"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkModel(t, s, 400, "reopened")
	if _, err := os.Stat(spare); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a crash's spare after Open: %v", err)
	}
}
