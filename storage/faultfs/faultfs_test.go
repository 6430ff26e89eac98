package faultfs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

func write(t *testing.T, f vfs.File, s string) {
	t.Helper()
	if _, err := f.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// TestPersistKeepsSynced writes a synced and an unsynced part; a clean
// persist keeps exactly the synced part on disk, and a reload sees it.
func TestPersistKeepsSynced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	fs, path, err := Open(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fs.Create(fs.PathJoin(path, "wal"), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, "synced;")
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	d, err := fs.OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	write(t, f, "unsynced")
	if err := fs.Persist(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "wal"))
	if err != nil || string(got) != "synced;" {
		t.Fatalf("on disk after persist: %q, %v", got, err)
	}
	fs2, path2, err := Open(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	g, err := fs2.Open(fs2.PathJoin(path2, "wal"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(g); err != nil || buf.String() != "synced;" {
		t.Fatalf("reloaded: %q, %v", buf.String(), err)
	}
}

// TestPowerLoss keeps everything synced and at most what was written
// after it, for many random shares of the unsynced data.
func TestPowerLoss(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	for seed := range uint64(20) {
		os.RemoveAll(dir)
		fs, path, err := Open(dir, seed)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := fs.Create(fs.PathJoin(path, "wal"), vfs.WriteCategoryUnspecified)
		write(t, f, "synced;")
		f.Sync()
		d, _ := fs.OpenDir(path)
		d.Sync()
		write(t, f, "unsynced")
		if err := fs.PowerLoss(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "wal"))
		if err != nil || !bytes.HasPrefix(got, []byte("synced;")) || !bytes.HasPrefix([]byte("synced;unsynced"), got) {
			t.Fatalf("seed %d: on disk after power loss: %q, %v", seed, got, err)
		}
	}
}

// TestInject fails exactly the armed number of writes and syncs with the
// armed errno, and takes commands in the control protocol.
func TestInject(t *testing.T) {
	fs, path, err := Open(filepath.Join(t.TempDir(), "data"), 1)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := fs.Create(fs.PathJoin(path, "x"), vfs.WriteCategoryUnspecified)
	if _, err := fs.Command("fail write enospc 2"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.Write([]byte("a")); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("write: %v, want ENOSPC", err)
		}
	}
	write(t, f, "a")
	if _, err := fs.Command("fail sync eio"); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("sync: %v, want EIO", err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "fail", "fail write", "fail read eio", "fail sync eperm", "fail sync eio -1", "powerloss now"} {
		if _, err := fs.Command(bad); err == nil {
			t.Errorf("command %q accepted", bad)
		}
	}
}
