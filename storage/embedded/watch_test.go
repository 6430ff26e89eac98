package embedded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/storage"
)

// The directory watch tells "removed or replaced" from "could not look":
// a look that fails for want of descriptors or memory (a connection flood
// reaching EMFILE) must not stop the store, and a removal or replacement
// after it must still be found.

// watchOp is what lookFaultFS fails: opening the identity file, reading
// it, or creating the temporary file that replaces it.
type watchOp int

const (
	openIdentity watchOp = iota
	readIdentityOp
	createIdentity
)

// lookFaultFS fails one kind of access to the identity file with an
// errno while armed, and counts the failures.
type lookFaultFS struct {
	vfs.FS
	mu     sync.Mutex
	op     watchOp
	errno  syscall.Errno // 0: disarmed
	failed int
}

func (f *lookFaultFS) arm(op watchOp, errno syscall.Errno) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.op, f.errno, f.failed = op, errno, 0
}

func (f *lookFaultFS) failures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// fault is the error for an access of kind op, or nil.
func (f *lookFaultFS) fault(op watchOp) syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.errno == 0 || f.op != op {
		return 0
	}
	f.failed++
	return f.errno
}

func (f *lookFaultFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	if filepath.Base(name) == identityFile {
		if errno := f.fault(openIdentity); errno != 0 {
			return nil, &os.PathError{Op: "open", Path: name, Err: errno}
		}
		file, err := f.FS.Open(name, opts...)
		if err != nil {
			return nil, err
		}
		return faultyReads{file, f}, nil
	}
	return f.FS.Open(name, opts...)
}

func (f *lookFaultFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	if filepath.Base(name) == identityFile+".tmp" {
		if errno := f.fault(createIdentity); errno != 0 {
			return nil, &os.PathError{Op: "open", Path: name, Err: errno}
		}
	}
	return f.FS.Create(name, c)
}

type faultyReads struct {
	vfs.File
	f *lookFaultFS
}

func (r faultyReads) Read(p []byte) (int, error) {
	if errno := r.f.fault(readIdentityOp); errno != 0 {
		return 0, &os.PathError{Op: "read", Path: identityFile, Err: errno}
	}
	return r.File.Read(p)
}

// logBuffer collects the standard logger's output for the test's
// duration; the watch writes to it from its own goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func captureLog(t *testing.T) *logBuffer {
	t.Helper()
	var buf logBuffer
	log.SetOutput(&buf)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	return &buf
}

// waitFor polls cond until it holds; the deadline only keeps a broken
// watch from hanging the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// watchedStore is an open store on fs whose OnFailure reports to the
// returned channel, with its owner token.
func watchedStore(t *testing.T, dir string, fs vfs.FS) (*Store, storage.Token, chan error) {
	t.Helper()
	failed := make(chan error, 1)
	s, err := Open(dir, Options{FS: fs, WatchInterval: time.Millisecond, OnFailure: func(err error) { failed <- err }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tok, err := s.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, tok, failed
}

func commit(t *testing.T, s *Store, tok storage.Token, i int) {
	t.Helper()
	if _, err := s.Commit(context.Background(), tok, []storage.Op{{Key: fmt.Sprint("k", i), Value: []byte("v")}}); err != nil {
		t.Fatalf("commit %d: %v", i, err)
	}
}

func notFailed(t *testing.T, failed chan error) {
	t.Helper()
	select {
	case err := <-failed:
		t.Fatalf("the store failed: %v", err)
	default:
	}
}

func TestWatchResourceFaults(t *testing.T) {
	const dir = "db"
	faults := []struct {
		name  string
		op    watchOp
		errno syscall.Errno
	}{
		{"open-EMFILE", openIdentity, syscall.EMFILE},
		{"open-ENFILE", openIdentity, syscall.ENFILE},
		{"open-EINTR", openIdentity, syscall.EINTR},
		{"open-ENOMEM", openIdentity, syscall.ENOMEM},
		{"open-EAGAIN", openIdentity, syscall.EAGAIN},
		{"open-EACCES", openIdentity, syscall.EACCES},
		{"read-EMFILE", readIdentityOp, syscall.EMFILE},
		{"read-EINTR", readIdentityOp, syscall.EINTR},
		{"read-EIO", readIdentityOp, syscall.EIO},
		{"write-EMFILE", createIdentity, syscall.EMFILE},
		{"write-ENFILE", createIdentity, syscall.ENFILE},
		{"write-EINTR", createIdentity, syscall.EINTR},
	}
	ends := map[string]func(fs vfs.FS) error{
		"removed": func(fs vfs.FS) error { return fs.RemoveAll(dir) },
		"replaced": func(fs vfs.FS) error {
			id, _, err := readIdentity(fs, dir)
			if err != nil {
				return err
			}
			id.id = newStoreID()
			return writeIdentity(fs, dir, id)
		},
	}
	for _, f := range faults {
		for end, apply := range ends {
			t.Run(f.name+"/"+end, func(t *testing.T) {
				logged := captureLog(t)
				fs := &lookFaultFS{FS: vfs.NewMem()}
				s, tok, failed := watchedStore(t, dir, fs)
				fs.arm(f.op, f.errno)
				// Several ticks fail; commits go on meanwhile (and move
				// the revision, so that the watch has one to record).
				deadline := time.Now().Add(20 * time.Second)
				for i := 0; fs.failures() < 5; i++ {
					if time.Now().After(deadline) {
						t.Fatal("the watch never met the fault")
					}
					commit(t, s, tok, i)
					notFailed(t, failed)
					time.Sleep(time.Millisecond)
				}
				commit(t, s, tok, -1)
				notFailed(t, failed)
				fs.arm(0, 0)
				// The watch says once that it could not look, and once that
				// it can again; then it records the revision it missed.
				waitFor(t, "the watch logs that it can look again", func() bool {
					return strings.Contains(logged.String(), "can look at its directory "+dir+" again")
				})
				if n := strings.Count(logged.String(), "could not look"); n != 1 {
					t.Fatalf("%d lines say the watch could not look, want 1:\n%s", n, logged)
				}
				commit(t, s, tok, -2)
				s.mu.Lock()
				rev := uint64(s.rev)
				s.mu.Unlock()
				waitFor(t, "the identity file records the revision", func() bool {
					id, _, _ := readIdentity(fs, dir)
					return id.revision == rev
				})
				notFailed(t, failed)
				// A removal or a replacement now fails the store. (No
				// commit from here: the watch has nothing to write that
				// could race the replacement.)
				if err := apply(fs); err != nil {
					t.Fatal(err)
				}
				select {
				case err := <-failed:
					if !strings.Contains(err.Error(), "removed or replaced") {
						t.Fatalf("failed for %v", err)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("the watch did not see the directory " + end)
				}
				if _, err := s.Commit(context.Background(), tok, []storage.Op{{Key: "after", Value: []byte("v")}}); err == nil {
					t.Fatal("a commit succeeded after the directory was " + end)
				}
			})
		}
	}
}

// TestWatchDescriptorExhaustion: on the real file system, with every
// descriptor the process may have taken (what a connection flood does),
// the store serves on, and still sees its directory removed once
// descriptors are free again. It lowers the process's descriptor limit:
// not parallel.
func TestWatchDescriptorExhaustion(t *testing.T) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open descriptors: %v", err)
	}
	captureLog(t) // the watch's lines, out of the test's output
	dir := t.TempDir()
	s, tok, failed := watchedStore(t, dir, nil)
	commit(t, s, tok, 0)

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	fds, _ = os.ReadDir("/proc/self/fd")
	lim := old
	lim.Cur = uint64(len(fds)) + 8
	if lim.Cur > old.Cur {
		t.Skipf("the limit %d is already below %d", old.Cur, lim.Cur)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Errorf("restore the descriptor limit: %v", err)
		}
	})
	var held []*os.File
	// exhaust takes every descriptor still free, as a flood does.
	exhaust := func() {
		for {
			f, err := os.Open(os.DevNull)
			if errors.Is(err, syscall.EMFILE) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, f)
		}
	}
	release := func() {
		for _, f := range held {
			f.Close()
		}
		held = nil
	}
	t.Cleanup(release)
	// The watch ticks many times (every millisecond) with every
	// descriptor taken; commits go on (the log is open already).
	for i := 1; i <= 50; i++ {
		exhaust()
		time.Sleep(time.Millisecond)
		commit(t, s, tok, i)
		notFailed(t, failed)
	}
	release()
	notFailed(t, failed)
	// The flood here takes every descriptor freed, each millisecond: it
	// usually wins the one the watch frees to look with (the race the
	// spare cannot close; TestWatchSpare shows the spare at work), and the
	// watch then logs that it could not look, and serves on.
	// Once the watch has recorded the last revision it writes nothing that
	// could race the removal.
	s.mu.Lock()
	rev := uint64(s.rev)
	s.mu.Unlock()
	waitFor(t, "the identity file records the revision", func() bool {
		id, _, _ := readIdentity(vfs.Default, dir)
		return id.revision == rev
	})
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		if !strings.Contains(err.Error(), "removed or replaced") {
			t.Fatalf("failed for %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the watch did not see the directory removed")
	}
}

// TestWatchSpare: a look that fails for want of descriptors is tried
// again with the spare given back, and the spare is taken again after.
func TestWatchSpare(t *testing.T) {
	s := &Store{fs: vfs.Default, dir: t.TempDir()}
	s.holdSpare()
	defer s.releaseSpare()
	if s.spare == nil {
		t.Fatal("no spare descriptor held")
	}
	var held []bool
	err := s.look(func() error {
		held = append(held, s.spare != nil)
		if len(held) == 1 {
			return &os.PathError{Op: "open", Path: identityFile, Err: syscall.EMFILE}
		}
		return nil
	})
	if err != nil || fmt.Sprint(held) != "[true false]" || s.spare == nil {
		t.Fatalf("look: %v; spare held on each try: %v; spare after: %v", err, held, s.spare != nil)
	}
	// On another file system there is no spare: the failure stands.
	m := &Store{fs: vfs.NewMem(), dir: "db"}
	m.holdSpare()
	if err := m.look(func() error { return syscall.EMFILE }); !errors.Is(err, syscall.EMFILE) || m.spare != nil {
		t.Fatalf("look on a MemFS: %v, spare %v", err, m.spare != nil)
	}
}
