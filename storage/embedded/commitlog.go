package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/storage"
)

// The commit log. Every Commit is appended to it as one record and
// synced (fdatasync) before Commit returns; Pebble, opened without its own
// write-ahead log, then takes the commit into its memtable, and holds it
// durably from its next flush. A synced Pebble commit hands its batch to
// Pebble's log writer goroutine, which writes and syncs it and hands it
// back; here the committing goroutine writes and syncs a file it
// preallocated, and nothing else: a sequence with NO CACHE makes one
// commit per round of callers, so that cost is the cost of a durable
// value (docs/benchmarks.md, "Against Redis 7's INCR", has the figures).
//
// The log is a series of segments, COMMITS-<first revision>.seqlog,
// each preallocated to logSegmentSize and written from its start:
//
//	record:  | length (4 bytes LE) | crc32c of length and payload (4 bytes LE) | payload |
//	payload: | revision (8 bytes BE) | op count (uvarint) | op... |
//	op:      | 0: delete, 1: set | key length (uvarint) | key | [value length (uvarint) | value] |
//
// A length of 0 ends the segment (its preallocated rest is zeros). When a
// segment is full, the next record starts a new one, and the store
// flushes Pebble's memtables and removes the older segments
// (Store.trimLog), newest first. Open replays the records after the
// revision Pebble holds and, once it has found nothing to refuse, flushes
// and removes every segment; the next commit starts a new one. A torn
// record (a crash during its write, so never acknowledged) is
// thus always in the last segment, and ends the log there. Anything else
// found in the log (a record that does not check in an earlier segment, a
// revision missing between Pebble's and the log's, a payload that does
// not parse) is damage, and the store is refused. A damaged last record
// looks like a torn one, as it does in Pebble's own log: the identity
// file's revision is what catches its loss.
//
// This layout is part of the on-disk format (storeFormat 4).
const (
	logPrefix       = "COMMITS-"
	logSuffix       = ".seqlog"
	logHeader       = 8
	maxLogRecord    = 1 << 30
	opDelete, opSet = 0, 1
)

// logSegmentSize is a segment's preallocated size (a var: tests make
// segments small, to rotate and trim often).
var logSegmentSize int64 = 4 << 20

// spareName is the next segment, prepared (preallocated and synced) in
// the background while the current one fills: a segment filling takes it
// by a rename, where writing its successor's zeros would hold the
// committing goroutine, under the store's lock, for as long as a write
// of logSegmentSize takes. It is not part of the log (segments does not
// list it): Open and Close remove it.
const spareName = "COMMITS.next" + logSuffix

// spare is a spare segment's preparation, done.
type spare struct {
	f    vfs.File
	size int64
	err  error
}

func segmentName(first storage.Rev) string {
	return fmt.Sprintf("%s%020d%s", logPrefix, first, logSuffix)
}

// segments lists dir's log segments, oldest first.
func segments(fs vfs.FS, dir string) ([]string, error) {
	names, err := fs.List(dir)
	if err != nil {
		return nil, err
	}
	type seg struct {
		name  string
		first uint64
	}
	var segs []seg
	for _, n := range names {
		num, ok := strings.CutPrefix(n, logPrefix)
		if num, ok2 := strings.CutSuffix(num, logSuffix); ok && ok2 {
			first, err := strconv.ParseUint(num, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: log segment %s: its name holds no revision", ErrDamaged, n)
			}
			segs = append(segs, seg{n, first})
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].first < segs[j].first })
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = s.name
	}
	return out, nil
}

// appendRecord appends the record of a commit at rev to b.
func appendRecord(b []byte, rev storage.Rev, ops []storage.Op) []byte {
	start := len(b)
	b = append(b, make([]byte, logHeader)...)
	b = binary.BigEndian.AppendUint64(b, uint64(rev))
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		kind := byte(opSet)
		if op.Value == nil {
			kind = opDelete
		}
		b = append(b, kind)
		b = binary.AppendUvarint(b, uint64(len(op.Key)))
		b = append(b, op.Key...)
		if kind == opSet {
			b = binary.AppendUvarint(b, uint64(len(op.Value)))
			b = append(b, op.Value...)
		}
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-logHeader))
	binary.LittleEndian.PutUint32(b[start+4:], crcOf(b[start:start+4], b[start+logHeader:]))
	return b
}

// crcOf is a record's checksum: of its length's bytes and its payload.
func crcOf(length, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(length, castagnoli), castagnoli, payload)
}

// decodePayload reads a record's payload.
func decodePayload(p []byte) (storage.Rev, []storage.Op, error) {
	if len(p) < 8 {
		return 0, nil, errors.New("short payload")
	}
	rev := storage.Rev(binary.BigEndian.Uint64(p))
	p = p[8:]
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)) {
		return 0, nil, errors.New("bad op count")
	}
	p = p[k:]
	ops := make([]storage.Op, 0, n)
	for range n {
		if len(p) < 1 || p[0] > opSet {
			return 0, nil, errors.New("bad op kind")
		}
		kind := p[0]
		key, rest, err := uvarintBytes(p[1:])
		if err != nil {
			return 0, nil, err
		}
		op := storage.Op{Key: string(key)}
		if kind == opSet {
			var v []byte
			if v, rest, err = uvarintBytes(rest); err != nil {
				return 0, nil, err
			}
			op.Value = append([]byte{}, v...) // not nil: a set of an empty value
		}
		ops = append(ops, op)
		p = rest
	}
	if len(p) != 0 {
		return 0, nil, errors.New("bytes after the last op")
	}
	return rev, ops, nil
}

func uvarintBytes(p []byte) ([]byte, []byte, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, errors.New("bad length")
	}
	return p[k : k+int(n)], p[k+int(n):], nil
}

// replayLog reads dir's log and calls apply for every commit after rev
// from, in order. It returns the last revision read (from, with no commit
// after it) or an ErrDamaged error.
func replayLog(fs vfs.FS, dir string, from storage.Rev, apply func(storage.Rev, []storage.Op) error) (storage.Rev, error) {
	segs, err := segments(fs, dir)
	if err != nil {
		return 0, err
	}
	cur := from
	for i, name := range segs {
		last := i == len(segs)-1
		data, err := readAll(fs, fs.PathJoin(dir, name))
		if err != nil {
			return 0, fmt.Errorf("seqd: read log segment %s: %w", name, err)
		}
		for off := 0; len(data)-off >= logHeader; {
			n := binary.LittleEndian.Uint32(data[off:])
			if n == 0 {
				break // the segment's unwritten rest
			}
			end := off + logHeader + int(n)
			if n > maxLogRecord || end > len(data) || crcOf(data[off:off+4], data[off+logHeader:end]) != binary.LittleEndian.Uint32(data[off+4:]) {
				if last {
					break // a torn write: never acknowledged
				}
				return 0, fmt.Errorf("%w: log segment %s: the record at offset %d does not check, and later segments follow it", ErrDamaged, name, off)
			}
			rev, ops, err := decodePayload(data[off+logHeader : end])
			if err != nil {
				return 0, fmt.Errorf("%w: log segment %s: the record at offset %d: %v", ErrDamaged, name, off, err)
			}
			off = end
			switch {
			case rev <= from:
				continue // in Pebble's tables already
			case rev != cur+1:
				return 0, fmt.Errorf("%w: log segment %s: revision %d follows revision %d", ErrDamaged, name, rev, cur)
			}
			if err := apply(rev, ops); err != nil {
				return 0, err
			}
			cur = rev
		}
	}
	return cur, nil
}

func readAll(fs vfs.FS, path string) ([]byte, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// commitLog is the open log's write side. REQUIRES: Store.mu for every
// method.
type commitLog struct {
	fs   vfs.FS
	dir  string
	f    vfs.File
	name string
	off  int64
	size int64 // preallocated
	buf  []byte
	// old are the segments before f, which the next trim removes once
	// Pebble has flushed what they hold.
	old []string
	// next receives the spare segment being prepared (prepare); nil
	// when none is.
	next chan spare
	// spares counts the segments started from a spare.
	spares int
}

// start begins a new segment whose first record is of revision first,
// preallocated to hold at least need bytes.
// The segment is the spare if one is ready and large enough (a rename),
// else made here; either way the next spare is begun.
func (l *commitLog) start(first storage.Rev, need int) error {
	size := max(logSegmentSize, int64(need))
	name := segmentName(first)
	path := l.fs.PathJoin(l.dir, name)
	f, err := l.fromSpare(path, size)
	if err != nil {
		return err
	}
	if f == nil {
		if f, err = newSegment(l.fs, path, size); err != nil {
			return err
		}
	} else {
		l.spares++
	}
	if err := syncDir(l.fs, l.dir); err != nil {
		f.Close()
		return err
	}
	if l.f != nil {
		l.f.Close()
		l.old = append(l.old, l.name)
	}
	l.f, l.name, l.off, l.size = f, name, 0, size
	l.prepare()
	return nil
}

// newSegment creates the file at path, preallocated to size and synced.
func newSegment(fs vfs.FS, path string, size int64) (vfs.File, error) {
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, err
	}
	if err := fill(fs, f, size); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// prepare begins making the spare segment in the background.
func (l *commitLog) prepare() {
	ch := make(chan spare, 1)
	l.next = ch
	fs, path, size := l.fs, l.fs.PathJoin(l.dir, spareName), logSegmentSize
	go func() {
		f, err := newSegment(fs, path, size)
		ch <- spare{f, size, err}
	}()
}

// fromSpare waits for the spare being prepared, if any, and renames it to
// path if it holds size: it returns the segment, or nil if there is no
// spare to take (none, too small, or its preparation failed: the caller
// makes the segment itself, and meets the failure there if it lasts).
// The rename is durable once the caller syncs the directory.
func (l *commitLog) fromSpare(path string, size int64) (vfs.File, error) {
	if l.next == nil {
		return nil, nil
	}
	sp := <-l.next
	l.next = nil
	if sp.err != nil {
		return nil, nil
	}
	if sp.size < size {
		sp.f.Close()
		return nil, nil
	}
	if err := l.fs.Rename(l.fs.PathJoin(l.dir, spareName), path); err != nil {
		sp.f.Close()
		return nil, err
	}
	return sp.f, nil
}

// fill gives a new segment its size. On the operating system's file
// system it writes zeros, so that a record's fdatasync writes data alone:
// blocks merely reserved (fallocate) are converted on their first write,
// a change of the file's metadata that each sync would then journal, and
// a file that grows has its size to sync too. Elsewhere (the file
// systems of tests, in memory, whose sync copies the whole file) the
// segment grows with its records; a reader sees the same either way.
func fill(fs vfs.FS, f vfs.File, size int64) error {
	if fs != vfs.Default {
		return nil
	}
	zeros := make([]byte, 256<<10)
	for off := int64(0); off < size; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), size-off)], off); err != nil {
			return err
		}
	}
	return nil
}

// append writes the record of a commit at rev and syncs it: once it
// returns nil, the commit is durable. Any error leaves it unknown.
func (l *commitLog) append(rev storage.Rev, ops []storage.Op) error {
	l.buf = appendRecord(l.buf[:0], rev, ops)
	if len(l.buf) > maxLogRecord {
		return fmt.Errorf("%w: a commit of %d bytes", storage.ErrTooLarge, len(l.buf))
	}
	if l.f == nil || l.off+int64(len(l.buf)) > l.size {
		if err := l.start(rev, len(l.buf)+logHeader); err != nil {
			return fmt.Errorf("start a log segment: %w", err)
		}
	}
	if _, err := l.f.WriteAt(l.buf, l.off); err != nil {
		return fmt.Errorf("write the log: %w", err)
	}
	if err := l.f.SyncData(); err != nil {
		return fmt.Errorf("sync the log: %w", err)
	}
	l.off += int64(len(l.buf))
	if cap(l.buf) > 1<<20 {
		l.buf = nil // a large commit's buffer is not kept
	}
	return nil
}

// full reports whether the segment has filled: the next trim may go.
func (l *commitLog) full() bool { return len(l.old) > 0 }

// close closes the segment, and waits for the spare and removes it.
func (l *commitLog) close() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	if l.next != nil {
		if sp := <-l.next; sp.f != nil {
			sp.f.Close()
		}
		l.next = nil
		removeSpare(l.fs, l.dir)
	}
}

// removeSpare removes a spare segment from dir, if there is one (a crash
// leaves the one it was preparing).
func removeSpare(fs vfs.FS, dir string) {
	if err := fs.Remove(fs.PathJoin(dir, spareName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Printf("seqd: remove the commit log's spare segment from %s: %v", dir, err)
	}
}

// removeSegments removes names, newest first (so that a crash on the way
// leaves the newest segment last: see the comment at the top), and syncs
// the directory.
func removeSegments(fs vfs.FS, dir string, names []string) error {
	for i := len(names) - 1; i >= 0; i-- {
		if err := fs.Remove(fs.PathJoin(dir, names[i])); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if len(names) == 0 {
		return nil
	}
	return syncDir(fs, dir)
}

func syncDir(fs vfs.FS, dir string) error {
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
