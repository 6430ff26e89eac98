// Package faultfs is the embedded store's file system under test: a copy
// of the data directory held in a crashable in-memory file system, which
// can fail writes and syncs on demand and can lose power, keeping exactly
// what was synced plus a random share of what was not. seqd runs on it when
// started with -fault-injection; the torture harness drives it.
//
// Nothing reaches the real directory until the process exits: a clean exit
// writes what is durable (what was synced), a power loss writes a crash
// clone. LazyFS would do the same under a real directory through FUSE; it is
// not packaged anywhere this project installs from, so this layer stands at
// the store's file-system boundary instead.
package faultfs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Op is a kind of file operation a fault can be injected into.
type Op int

const (
	Write Op = iota // Write and WriteAt
	Sync            // Sync, SyncData and SyncTo
)

// FS is a vfs.FS over a crashable MemFS mirroring one real directory.
type FS struct {
	vfs.FS
	mem *vfs.MemFS
	dir string // absolute path, the same in mem and on disk

	// gate is held shared by every write and sync while it runs and
	// exclusively by a power loss, so that no write or sync is under way
	// while the crash clone is taken.
	gate   sync.RWMutex
	mu     sync.Mutex
	frozen bool
	full   bool // GetDiskUsage says nothing is free (the "full" command)
	faults [2]fault
	rng    *rand.Rand
}

type fault struct {
	err   error
	count int
}

// Open loads dir (absolute or not; created if missing) into memory, synced,
// and returns the file system seqd's store opens dir on, and the path to
// open.
func Open(dir string, seed uint64) (*FS, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, "", err
	}
	mem := vfs.NewCrashableMem()
	if err := mem.MkdirAll(abs, 0o700); err != nil {
		return nil, "", err
	}
	if _, err := vfs.Clone(vfs.Default, mem, abs, abs, vfs.CloneSync); err != nil {
		return nil, "", fmt.Errorf("faultfs: load %s: %w", abs, err)
	}
	if err := syncDirs(mem, abs); err != nil {
		return nil, "", err
	}
	f := &FS{mem: mem, dir: abs, rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	f.FS = fsWrapper{mem, f}
	return f, abs, nil
}

// syncDirs syncs dir and its parents, so that a crash clone keeps the
// loaded directory itself.
func syncDirs(mem *vfs.MemFS, dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		h, err := mem.OpenDir(d)
		if err != nil {
			return err
		}
		err = h.Sync()
		h.Close()
		if err != nil || d == filepath.Dir(d) {
			return err
		}
	}
}

// Inject makes the next count operations of kind op fail with errno.
func (f *FS) Inject(op Op, errno syscall.Errno, count int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults[op] = fault{err: &os.PathError{Op: [...]string{"write", "sync"}[op], Path: f.dir, Err: errno}, count: count}
}

// run runs fn as a write or sync: failed if a fault is armed, never
// returning once the power is off.
func (f *FS) run(op Op, fn func() error) error {
	f.gate.RLock()
	f.mu.Lock()
	frozen := f.frozen
	var err error
	if ft := &f.faults[op]; !frozen && ft.count > 0 {
		ft.count--
		err = ft.err
	}
	f.mu.Unlock()
	if frozen {
		f.gate.RUnlock()
		select {} // the power is off: this call never returns
	}
	if err == nil {
		err = fn()
	}
	f.gate.RUnlock()
	return err
}

// PowerLoss cuts the power: no write or sync completes from now on, and
// the real directory receives what a crash at this moment could leave:
// everything synced, and a random share (0-100%) of what was not. The
// caller exits the process afterwards.
func (f *FS) PowerLoss() error {
	f.gate.Lock()
	f.mu.Lock()
	f.frozen = true
	pct := f.rng.IntN(101)
	f.mu.Unlock()
	f.gate.Unlock()
	return f.persist(vfs.CrashCloneCfg{UnsyncedDataPercent: pct, RNG: rand.New(rand.NewPCG(f.rng.Uint64(), 1))})
}

// Persist writes what is durable (what was synced) to the real directory;
// seqd calls it when it exits on its own.
func (f *FS) Persist() error {
	f.gate.Lock()
	f.mu.Lock()
	f.frozen = true
	f.mu.Unlock()
	f.gate.Unlock()
	return f.persist(vfs.CrashCloneCfg{})
}

func (f *FS) persist(cfg vfs.CrashCloneCfg) error {
	clone := f.mem.CrashClone(cfg)
	tmp := f.dir + ".faultfs-new"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if _, err := vfs.Clone(clone, vfs.Default, f.dir, tmp, vfs.CloneSync); err != nil {
		return fmt.Errorf("faultfs: persist: %w", err)
	}
	if err := os.MkdirAll(tmp, 0o700); err != nil { // the clone may have lost the directory
		return err
	}
	if err := os.RemoveAll(f.dir); err != nil {
		return err
	}
	return os.Rename(tmp, f.dir)
}

// Command carries out one line of the control protocol seqd reads from
// its standard input under -fault-injection:
//
//	fail write|sync eio|enospc [count]   the next count (default 1) operations fail
//	full on|off                          the file system says it is full, or has room again
//	powerloss                            cut the power (the caller then exits)
//
// It reports whether the power was cut.
func (f *FS) Command(line string) (powerLoss bool, err error) {
	w := strings.Fields(line)
	switch {
	case len(w) == 1 && w[0] == "powerloss":
		return true, f.PowerLoss()
	case len(w) == 2 && w[0] == "full" && (w[1] == "on" || w[1] == "off"):
		f.SetFull(w[1] == "on")
		return false, nil
	case (len(w) == 3 || len(w) == 4) && w[0] == "fail":
		op := map[string]Op{"write": Write, "sync": Sync}
		errno := map[string]syscall.Errno{"eio": syscall.EIO, "enospc": syscall.ENOSPC}
		o, ok1 := op[w[1]]
		e, ok2 := errno[w[2]]
		n := 1
		if len(w) == 4 {
			var err error
			if n, err = strconv.Atoi(w[3]); err != nil || n < 0 {
				ok1 = false
			}
		}
		if ok1 && ok2 {
			f.Inject(o, e, n)
			return false, nil
		}
	}
	return false, fmt.Errorf("faultfs: bad command %q", line)
}

// fsWrapper passes everything to the MemFS, wrapping the files it opens.
type fsWrapper struct {
	vfs.FS
	f *FS
}

func (w fsWrapper) wrap(file vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &fileWrapper{File: file, f: w.f}, nil
}

func (w fsWrapper) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return w.wrap(w.FS.Create(name, c))
}

func (w fsWrapper) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	return w.wrap(w.FS.Open(name, opts...))
}

func (w fsWrapper) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return w.wrap(w.FS.OpenReadWrite(name, c, opts...))
}

func (w fsWrapper) OpenDir(name string) (vfs.File, error) { return w.wrap(w.FS.OpenDir(name)) }

func (w fsWrapper) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return w.wrap(w.FS.ReuseForWrite(oldname, newname, c))
}

func (w fsWrapper) Unwrap() vfs.FS { return w.FS }

// GetDiskUsage is a file system of 1 TiB, all of it free, or none of it
// while the "full" command says so (the in-memory one cannot tell).
func (w fsWrapper) GetDiskUsage(string) (vfs.DiskUsage, error) {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	const size = 1 << 40
	if w.f.full {
		return vfs.DiskUsage{TotalBytes: size, UsedBytes: size}, nil
	}
	return vfs.DiskUsage{AvailBytes: size, TotalBytes: size}, nil
}

// SetFull makes the file system say it is full (or not): the store's
// reserve check then refuses writes, as on a disk that filled up.
func (f *FS) SetFull(full bool) {
	f.mu.Lock()
	f.full = full
	f.mu.Unlock()
}

type fileWrapper struct {
	vfs.File
	f *FS
}

func (w *fileWrapper) Write(p []byte) (n int, err error) {
	err = w.f.run(Write, func() (err error) { n, err = w.File.Write(p); return err })
	return n, err
}

func (w *fileWrapper) WriteAt(p []byte, off int64) (n int, err error) {
	err = w.f.run(Write, func() (err error) { n, err = w.File.WriteAt(p, off); return err })
	return n, err
}

func (w *fileWrapper) Sync() error { return w.f.run(Sync, w.File.Sync) }

func (w *fileWrapper) SyncData() error { return w.f.run(Sync, w.File.SyncData) }

func (w *fileWrapper) SyncTo(length int64) (full bool, err error) {
	err = w.f.run(Sync, func() (err error) { full, err = w.File.SyncTo(length); return err })
	return full, err
}
