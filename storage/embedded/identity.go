package embedded

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/storage"
)

// A store's identity: what Pebble's own files cannot say about themselves.
//
// Pebble tolerates a damaged tail of its newest write-ahead log (a torn
// write after a crash looks the same), so a flipped byte in the log can
// make a store open with its latest writes missing, or with none at all,
// and seqd would hand out again the values those writes covered. And a
// store's files say nothing of where they belong, so a copy of a running
// store's directory opens as if it were the store. The identity file,
// IDENTITY-SEQD beside Pebble's files, records both, and Open checks them
// before anything is served:
//
//	seqd store
//	format 3
//	id <32 hex digits: the store's identity, random at its creation>
//	revision <the store's revision when the file was written>
//	place <the store directory's absolute path>
//	inode <the directory's inode number; 0 where the file system has none>
//	crc <crc32c of the lines above, 8 hex digits>
//
// This layout is part of the on-disk format. The file is written whole
// (a temporary file, synced, renamed over it, the directory synced) when
// the store is created, at every open, once a second while the revision
// moves, and at a clean close after Pebble's memtables are flushed to
// checksummed tables. Every commit is synced before the revision in
// memory moves, so the recorded revision never exceeds what is durable:
// a store whose data ends below it has lost acknowledged writes.
//
// The formats: 1, a store written before the identity file existed; 2,
// with it; 3, whose catalog may hold the store's secret (engine.Secret),
// which a binary reading format 2 would take for an unknown record; 4,
// whose latest commits may be in the store's own commit log
// (commitlog.go), which a binary reading format 3 would not replay. Open
// upgrades an older store by writing the file with storeFormat (the
// engine adds the secret at the same open). A format above storeFormat is
// refused.
const (
	identityFile = "IDENTITY-SEQD"
	storeFormat  = 4
)

// identity is the content of the identity file.
type identity struct {
	format   int
	id       string
	revision uint64
	place    string
	inode    uint64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (id identity) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "seqd store\nformat %d\nid %s\nrevision %d\nplace %s\ninode %d\n", id.format, id.id, id.revision, id.place, id.inode)
	fmt.Fprintf(&b, "crc %08x\n", crc32.Checksum(b.Bytes(), castagnoli))
	return b.Bytes()
}

// errIdentityDamaged is the cause of an identity file that does not read
// back as written.
var errIdentityDamaged = errors.New("damaged")

func decodeIdentity(b []byte) (identity, error) {
	i := bytes.LastIndex(b, []byte("crc "))
	if i < 0 || !bytes.HasSuffix(b, []byte("\n")) {
		return identity{}, fmt.Errorf("%w: no checksum line", errIdentityDamaged)
	}
	want := strings.TrimSpace(string(b[i+4:]))
	if got := fmt.Sprintf("%08x", crc32.Checksum(b[:i], castagnoli)); got != want {
		return identity{}, fmt.Errorf("%w: checksum %s, content sums to %s", errIdentityDamaged, want, got)
	}
	var id identity
	sc := bufio.NewScanner(bytes.NewReader(b[:i]))
	line := 0
	for sc.Scan() {
		line++
		key, val, _ := strings.Cut(sc.Text(), " ")
		var err error
		switch {
		case line == 1:
			if sc.Text() != "seqd store" {
				return identity{}, fmt.Errorf("%w: first line %q", errIdentityDamaged, sc.Text())
			}
		case key == "format":
			id.format, err = strconv.Atoi(val)
		case key == "id":
			id.id = val
		case key == "revision":
			id.revision, err = strconv.ParseUint(val, 10, 64)
		case key == "place":
			id.place = val
		case key == "inode":
			id.inode, err = strconv.ParseUint(val, 10, 64)
		}
		if err != nil {
			return identity{}, fmt.Errorf("%w: line %d: %v", errIdentityDamaged, line, err)
		}
	}
	if id.format == 0 || id.id == "" {
		return identity{}, fmt.Errorf("%w: no format or id", errIdentityDamaged)
	}
	return id, nil
}

// readIdentity reads dir's identity file; ok is false when there is none.
func readIdentity(fs vfs.FS, dir string) (id identity, ok bool, err error) {
	f, err := fs.Open(fs.PathJoin(dir, identityFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return identity{}, false, nil
		}
		return identity{}, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return identity{}, false, err
	}
	id, err = decodeIdentity(b)
	return id, true, err
}

// writeIdentity replaces dir's identity file with id, durably.
func writeIdentity(fs vfs.FS, dir string, id identity) error {
	tmp := fs.PathJoin(dir, identityFile+".tmp")
	f, err := fs.Create(tmp, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	if _, err := f.Write(id.encode()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := fs.Rename(tmp, fs.PathJoin(dir, identityFile)); err != nil {
		return err
	}
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func newStoreID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// placeOf is where dir is: its absolute path and, on the operating
// system's file system, its inode (0 elsewhere, or when it cannot be
// read). A copy of a directory, or one restored into the same path, has
// another inode.
func placeOf(fs vfs.FS, dir string) (string, uint64) {
	inode, _ := inodeOf(fs, dir)
	return absDir(dir), inode
}

func absDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return abs
}

// inodeOf is dir's inode on the operating system's file system, 0 on
// another or where the system has none; an error only if it cannot be
// read.
func inodeOf(fs vfs.FS, dir string) (uint64, error) {
	if fs != vfs.Default {
		return 0, nil
	}
	fi, err := os.Stat(absDir(dir))
	if err != nil {
		return 0, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, nil
	}
	return 0, nil
}

// hasPebbleFiles reports whether dir holds a Pebble store (its manifest
// marker or a manifest).
func hasPebbleFiles(fs vfs.FS, dir string) (bool, error) {
	names, err := fs.List(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if strings.HasPrefix(n, "MANIFEST-") || strings.HasPrefix(n, "marker.manifest.") {
			return true, nil
		}
	}
	return false, nil
}

// Report is what Check found in a stopped store.
type Report struct {
	Dir string
	// Format is the store's format: 1 for a store written before the
	// identity file, storeFormat since.
	Format int
	// ID is the store's identity ("" in format 1).
	ID string
	// Revision is the revision the store's data reaches; Recorded the one
	// its identity file recorded (never above Revision in a whole store).
	Revision, Recorded uint64
	// Records is how many records were read and checked.
	Records int
	// Place is where the identity file says the store lives, Here where it
	// is now; they differ for a copy, a moved or a restored store.
	Place, Here string
	// Verified: every record was read and every checksum on the way held
	// (the fields above are then all known).
	Verified bool
}

// String is the report as seqd check prints it.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store %s\n", r.Dir)
	if !r.Verified {
		return b.String()
	}
	if r.Format == 1 {
		fmt.Fprintf(&b, "format 1 (no identity file: written before seqd kept one; the next start upgrades it)\n")
	} else {
		fmt.Fprintf(&b, "format %d, id %s\n", r.Format, r.ID)
	}
	fmt.Fprintf(&b, "revision %d (recorded %d), %d records read, every checksum verified\n", r.Revision, r.Recorded, r.Records)
	if r.Place != "" && r.Place != r.Here {
		fmt.Fprintf(&b, "moved: created in %s, now in %s: a start refuses it until -adopt-store\n", r.Place, r.Here)
	}
	return b.String()
}

// Check verifies a stopped store offline, as Open would, without writing
// anything: it returns what it found, or the error Open would refuse it
// with (ErrDamaged, ErrNewerFormat). A moved store is reported, not
// refused.
func Check(dir string, fs vfs.FS) (Report, error) {
	if fs == nil {
		fs = vfs.Default
	}
	r := Report{Dir: dir, Format: 1}
	r.Here, _ = placeOf(fs, dir)
	id, hasID, err := readIdentity(fs, dir)
	if err != nil {
		return r, fmt.Errorf("%w: its identity file %s is %v", ErrDamaged, fs.PathJoin(dir, identityFile), err)
	}
	if hasID {
		r.Format, r.ID, r.Recorded, r.Place = id.format, id.id, id.revision, id.place
		if id.format > storeFormat {
			return r, fmt.Errorf("%w: format %d; this seqd reads formats up to %d", ErrNewerFormat, id.format, storeFormat)
		}
	}
	existed, err := hasPebbleFiles(fs, dir)
	if err != nil {
		return r, err
	}
	if !existed {
		if hasID {
			return r, fmt.Errorf("%w: %s holds the identity of store %s but none of its data", ErrDamaged, dir, id.id)
		}
		return r, fmt.Errorf("seqd: %s holds no store", dir)
	}
	s, err := openPebble(fs, dir, Options{}, true)
	if err != nil {
		return r, err
	}
	defer s.db.Close()
	// The commit log's records are checked, not applied: nothing is
	// written. Records counts the records its commits add.
	added := map[string]bool{}
	rev, err := replayLog(fs, dir, s.rev, func(_ storage.Rev, ops []storage.Op) error {
		for _, op := range ops {
			if op.Value == nil {
				continue
			}
			_, closer, err := s.db.Get([]byte(recordPrefix + op.Key))
			if errors.Is(err, pebble.ErrNotFound) {
				added[op.Key] = true
			} else if err == nil {
				closer.Close()
			}
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	r.Revision, r.Records, r.Verified = uint64(rev), s.records+len(added), true
	if r.Revision < r.Recorded {
		return r, fmt.Errorf("%w: its data reaches revision %d, but it had durably reached revision %d: its latest writes are lost", ErrDamaged, r.Revision, r.Recorded)
	}
	return r, nil
}

// backupFile, in a backup's directory, says what the backup is: the
// store it was taken from, its revision and when, and the notes of whoever
// took it (the engine's advance rate), one a line (written last: a
// directory without it is no finished backup):
//
//	seqd backup
//	store <the store's identity>
//	revision <the store's revision in the backup>
//	taken <RFC 3339 time, UTC>
//	<note>...
const backupFile = "BACKUP-SEQD"

// Backup is what a backup's BACKUP-SEQD says.
type Backup struct {
	Store    string
	Revision uint64
	Taken    time.Time
	Notes    []string
}

// ReadBackup reads what the finished backup in dir says of itself.
func ReadBackup(dir string) (Backup, error) {
	var b Backup
	data, err := os.ReadFile(filepath.Join(dir, backupFile))
	if err != nil {
		return b, fmt.Errorf("seqd: %s is not a finished backup: %w", dir, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 4 || lines[0] != "seqd backup" {
		return b, fmt.Errorf("seqd: %s: %s is damaged", dir, backupFile)
	}
	for _, l := range lines[1:4] {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "store":
			b.Store = v
		case "revision":
			b.Revision, err = strconv.ParseUint(v, 10, 64)
		case "taken":
			b.Taken, err = time.Parse(time.RFC3339, v)
		default:
			err = fmt.Errorf("unexpected line %q", l)
		}
		if err != nil {
			return b, fmt.Errorf("seqd: %s: %s is damaged: %v", dir, backupFile, err)
		}
	}
	b.Notes = lines[4:]
	return b, nil
}

// Checkpoint writes a consistent copy of the open store into dir (which
// must not exist), as of now: every write acknowledged before it began
// is in it. Online: commits go on meanwhile. The copy has no identity
// file: a store restored from it gets an identity of its own.
func (s *Store) Checkpoint(dir string, notes ...string) error {
	s.mu.Lock()
	if s.closed || s.failed != nil {
		s.mu.Unlock()
		return fmt.Errorf("seqd: backup: the store is closed or failed")
	}
	rev, id := s.rev, s.id.id
	// Under mu no commit runs: the checkpoint holds exactly revision rev,
	// once the memtables (durable only in the commit log) are flushed.
	err := s.db.Flush()
	if err == nil {
		err = s.db.Checkpoint(dir)
	}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("seqd: backup: %w", err)
	}
	b := fmt.Sprintf("seqd backup\nstore %s\nrevision %d\ntaken %s\n", id, rev, time.Now().UTC().Format(time.RFC3339))
	for _, n := range notes {
		b += strings.ReplaceAll(n, "\n", " ") + "\n"
	}
	return os.WriteFile(filepath.Join(dir, backupFile), []byte(b), 0o600)
}

// CopyBackup copies the store files of the backup in from into dir
// (which must not exist), leaving out what marks it as a backup: what
// seqd restore opens and moves on.
func CopyBackup(from, dir string) error {
	isMark := func(path string) bool { return filepath.Base(path) == backupFile }
	if ok, err := vfs.Clone(vfs.Default, vfs.Default, from, dir, vfs.CloneSkip(isMark)); err != nil || !ok {
		return fmt.Errorf("seqd: copy the backup %s: %v", from, err)
	}
	return nil
}

// IsBackup reports whether dir holds a finished backup.
func IsBackup(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, backupFile))
	return err == nil
}
