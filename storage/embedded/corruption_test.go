package embedded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/faultfs"
)

// The corruption matrix: a store of known records is damaged, file by
// file (write-ahead log, sstables, manifest, options, markers, identity),
// by a flipped byte at several offsets, a truncation and a removal, after
// a clean close and after a crash. Open must then refuse, or open with
// every record intact: never with records missing or old.

const matrixRecords = 60

// writeRecords commits matrixRecords records, one commit each (so the
// store's revision is matrixRecords).
func writeRecords(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range matrixRecords {
		if _, err := s.Commit(ctx, tok, []storage.Op{{Key: recordKey(i), Value: []byte(strings.Repeat(fmt.Sprint(i), 40))}}); err != nil {
			t.Fatal(err)
		}
	}
}

func recordKey(i int) string { return fmt.Sprintf("seq/%03d", i) }

// checkWhole fails t unless s holds exactly the records writeRecords
// wrote, at the revision it reached.
func checkWhole(t *testing.T, s *Store, what string) {
	t.Helper()
	got := map[string]string{}
	if err := s.Load(context.Background(), func(kv storage.KV) error {
		got[kv.Key] = string(kv.Value)
		return nil
	}); err != nil {
		t.Fatalf("%s: opened, then Load: %v", what, err)
	}
	if s.rev != matrixRecords {
		t.Fatalf("%s: opened at revision %d, want %d: writes lost", what, s.rev, matrixRecords)
	}
	for i := range matrixRecords {
		if want := strings.Repeat(fmt.Sprint(i), 40); got[recordKey(i)] != want {
			t.Fatalf("%s: opened with record %d = %q, want %q", what, i, got[recordKey(i)], want)
		}
	}
}

// damage is one way of damaging a file.
type damage struct {
	name  string
	apply func(fs vfs.FS, path string, size int64) error
}

func damages(size int64) []damage {
	var out []damage
	seen := map[int64]bool{}
	for _, off := range []int64{0, 1, 7, 20, 100, size / 3, size / 2, size - 30, size - 1} {
		if off < 0 || off >= size || seen[off] {
			continue
		}
		seen[off] = true
		out = append(out, damage{fmt.Sprintf("flip@%d", off), func(fs vfs.FS, path string, _ int64) error {
			f, err := fs.OpenReadWrite(path, vfs.WriteCategoryUnspecified)
			if err != nil {
				return err
			}
			defer f.Close()
			b := make([]byte, 1)
			if _, err := f.ReadAt(b, off); err != nil {
				return err
			}
			b[0] ^= 0x5a
			_, err = f.WriteAt(b, off)
			return err
		}})
	}
	if size > 0 {
		out = append(out, damage{"truncate", func(fs vfs.FS, path string, size int64) error {
			return truncate(fs, path, size/2)
		}})
	}
	out = append(out, damage{"remove", func(fs vfs.FS, path string, _ int64) error { return fs.Remove(path) }})
	return out
}

// truncate cuts the file at path to n bytes, on any vfs.
func truncate(fs vfs.FS, path string, n int64) error {
	f, err := fs.Open(path)
	if err != nil {
		return err
	}
	b := make([]byte, n)
	_, err = f.ReadAt(b, 0)
	f.Close()
	if err != nil {
		return err
	}
	w, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = w.Write(b)
	return err
}

// fileKind names a store file's kind for the matrix's coverage.
func fileKind(name string) string {
	switch {
	case strings.HasSuffix(name, logSuffix):
		return "commit log"
	case strings.HasSuffix(name, ".log"):
		return "wal"
	case strings.HasSuffix(name, ".sst"):
		return "sstable"
	case strings.HasPrefix(name, "MANIFEST-"):
		return "manifest"
	case strings.HasPrefix(name, "OPTIONS-"):
		return "options"
	case strings.HasPrefix(name, "marker."):
		return "marker"
	case name == identityFile:
		return "identity"
	}
	return ""
}

// cloneMem copies every file of src's dir into a new MemFS.
func cloneMem(t *testing.T, src vfs.FS, dir string) vfs.FS {
	t.Helper()
	dst := vfs.NewMem()
	if _, err := vfs.Clone(src, dst, dir, dir); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestCorruptionMatrix(t *testing.T) {
	const dir = "db"
	scenarios := map[string]func(t *testing.T) vfs.FS{
		// A clean close: Pebble's memtables flushed to tables, the
		// identity file at the final revision.
		"clean": func(t *testing.T) vfs.FS {
			fs := vfs.NewMem()
			s, err := Open(dir, Options{FS: fs})
			if err != nil {
				t.Fatal(err)
			}
			writeRecords(t, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			return fs
		},
		// A crash once the identity file has caught up with the
		// revision: only what was synced survives, all of it in the log.
		"crash": func(t *testing.T) vfs.FS { return crashedStore(t, dir) },
	}
	covered := map[string]int{}
	refused, whole := 0, 0
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			base := scenario(t)
			// The undamaged store opens whole.
			s, err := Open(dir, Options{FS: cloneMem(t, base, dir)})
			if err != nil {
				t.Fatalf("undamaged: %v", err)
			}
			checkWhole(t, s, "undamaged")
			s.Close()
			names, err := base.List(dir)
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(names)
			for _, file := range names {
				kind := fileKind(file)
				if kind == "" {
					continue
				}
				fi, err := base.Stat(base.PathJoin(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range damages(fi.Size()) {
					what := fmt.Sprintf("%s %s %s", name, file, d.name)
					fs := cloneMem(t, base, dir)
					if err := d.apply(fs, fs.PathJoin(dir, file), fi.Size()); err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					covered[kind]++
					s, err := Open(dir, Options{FS: fs})
					if err != nil {
						refused++
						continue
					}
					checkWhole(t, s, what)
					whole++
					s.Close()
				}
			}
		})
	}
	for _, kind := range []string{"commit log", "sstable", "manifest", "options", "marker", "identity"} {
		if covered[kind] == 0 {
			t.Errorf("no %s file was damaged", kind)
		}
	}
	if refused == 0 {
		t.Error("no damage was refused")
	}
	t.Logf("damaged files by kind %v: %d refused, %d opened whole", covered, refused, whole)
}

// TestFlippedLogAfterCleanStop is the reported case on a real disk: a
// store written and stopped cleanly, a byte flipped at offset 100 of its
// write-ahead log (and, before the clean close flushed, of a crash's), must
// not open empty: it opens whole (the clean close left the data in tables)
// or refuses.
func TestFlippedLogAfterCleanStop(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	flipped := 0
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 100 {
			b[100] ^= 0xff
			os.WriteFile(l, b, 0o600)
			flipped++
		}
	}
	s, err = Open(dir, Options{})
	if err != nil {
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("refused, but not as damage: %v", err)
		}
		return
	}
	defer s.Close()
	checkWhole(t, s, fmt.Sprintf("%d logs flipped", flipped))
}

// TestLostWritesRefused: a store whose data ends below the revision its
// identity file recorded (its newest log lost, as a damaged log's tail
// is dropped) is refused, and the refusal is what protects: without the
// identity file the same files open with the writes missing.
func TestLostWritesRefused(t *testing.T) {
	const dir = "db"
	clone := crashedStore(t, dir)
	segs, _ := segments(clone, dir)
	for _, n := range segs {
		if err := truncate(clone, clone.PathJoin(dir, n), 0); err != nil {
			t.Fatal(err)
		}
	}
	unprotected := cloneMem(t, clone, dir)
	if _, err := Open(dir, Options{FS: clone}); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "its latest writes are lost") {
		t.Fatalf("Open of a store that lost its log: %v, want ErrDamaged", err)
	}
	unprotected.Remove(unprotected.PathJoin(dir, identityFile))
	s, err := Open(dir, Options{FS: unprotected})
	if err != nil {
		t.Fatalf("without the identity file: %v", err)
	}
	defer s.Close()
	if s.rev >= matrixRecords {
		t.Fatalf("the emptied log lost nothing (revision %d): the test shows no protection", s.rev)
	}
}

// TestEmptiedDirectoryRefused: the identity file without the store's
// data (the data removed, the identity left) refuses to start a new
// store in its place.
func TestEmptiedDirectoryRefused(t *testing.T) {
	dir := writtenStore(t)
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		if n.Name() != identityFile {
			os.RemoveAll(filepath.Join(dir, n.Name()))
		}
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open of an emptied directory: %v, want ErrDamaged", err)
	}
}

// TestNewerFormatRefused: a store of a newer format is refused with both
// versions named.
func TestNewerFormatRefused(t *testing.T) {
	const dir = "db"
	fs := vfs.NewMem()
	s, err := Open(dir, Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	id, _, _ := readIdentity(fs, dir)
	id.format = storeFormat + 1
	if err := writeIdentity(fs, dir, id); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir, Options{FS: fs})
	if !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), fmt.Sprintf("format %d; this seqd reads formats up to %d", storeFormat+1, storeFormat)) {
		t.Fatalf("Open of a newer format: %v", err)
	}
}

// TestCheck: seqd check refuses every damage of the corruption matrix
// that Open refuses, writes nothing, and reports a whole store's
// revision and records.
func TestCheck(t *testing.T) {
	dir := writtenStore(t)
	r, err := Check(dir, nil)
	if err != nil || !r.Verified || r.Revision != matrixRecords || r.Recorded != matrixRecords || r.Records != matrixRecords || r.Format != storeFormat {
		t.Fatalf("whole store: %+v, %v", r, err)
	}
	// Check writes nothing: the identity file is as Close left it.
	before, _ := os.ReadFile(filepath.Join(dir, identityFile))
	Check(dir, nil)
	if after, _ := os.ReadFile(filepath.Join(dir, identityFile)); string(after) != string(before) {
		t.Fatal("Check rewrote the identity file")
	}
	fs := vfs.NewMem()
	if _, err := vfs.Clone(vfs.Default, fs, dir, "db"); err != nil {
		t.Fatal(err)
	}
	names, _ := fs.List("db")
	for _, n := range names {
		if fileKind(n) == "" {
			continue
		}
		fi, _ := fs.Stat(fs.PathJoin("db", n))
		for _, d := range damages(fi.Size()) {
			c := cloneMem(t, fs, "db")
			d.apply(c, c.PathJoin("db", n), fi.Size())
			_, checkErr := Check("db", cloneMem(t, c, "db"))
			s, openErr := Open("db", Options{FS: c, Adopt: true})
			if openErr == nil {
				s.Close()
			}
			// Check may be stricter than Open (read-only, Pebble does not
			// look for a manifest whose marker is gone), never laxer.
			if checkErr == nil && openErr != nil {
				t.Fatalf("%s %s: check passed what open refuses: %v", n, d.name, openErr)
			}
		}
	}
}

// TestWriteFailureLogged: a write the disk refuses (ENOSPC) is logged when
// it happens, not only reported to the caller.
func TestWriteFailureLogged(t *testing.T) {
	ffs, dir, err := faultfs.Open(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{FS: ffs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	tok, err := s.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	log.SetOutput(&buf)
	defer log.SetOutput(os.Stderr)
	ffs.Inject(faultfs.Write, syscall.ENOSPC, 1000)
	if _, err := s.Commit(ctx, tok, []storage.Op{{Key: "k", Value: []byte("v")}}); err == nil {
		t.Fatal("a commit succeeded with the disk full")
	}
	if !strings.Contains(buf.String(), "no space left on device") {
		t.Fatalf("the failure was not logged:\n%s", buf.String())
	}
}

// writtenStore is a directory holding a store of writeRecords' records,
// closed cleanly.
func writtenStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// crashedStore is what a crash leaves of a store of writeRecords' records
// in dir on a crashable file system, once its identity file has caught up
// with the revision: only what was synced, all of it in the log.
func crashedStore(t *testing.T, dir string) vfs.FS {
	t.Helper()
	fs := vfs.NewCrashableMem()
	s, err := Open(dir, Options{FS: fs, WatchInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	writeRecords(t, s)
	for deadline := time.Now().Add(10 * time.Second); ; {
		id, _, err := readIdentity(fs, dir)
		if err == nil && id.revision == matrixRecords {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the identity file never reached revision %d: %+v %v", matrixRecords, id, err)
		}
		time.Sleep(time.Millisecond)
	}
	clone := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	s.Close()
	return clone
}
