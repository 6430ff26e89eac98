package torture

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/internal/testenv"
)

const mib = 1 << 20

// TestMemoryBounded runs the real binary (without the race detector, whose
// shadow memory would swamp the measurement) and holds its resident memory
// to a bound with 10,000 open connections, and while one client reads a
// 1,000,000-row generate_series slowly. Every row must arrive, rising.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("10k connections")
	}
	dir := t.TempDir()
	addr, err := loopback.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	// No idle timeout: opening 10,000 connections one after another takes
	// longer than the harness's 5 s, and the first ones must stay open
	// while the rest are counted.
	p, err := startProc(testenv.SeqdPlainBinary(t), filepath.Join(dir, "data"), addr, false, 0, nil, testWriter{t}, "-idle-timeout", "0")
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	ctx := context.Background()
	c, err := connect(ctx, dsnFor(addr, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence m cache 1000"); err != nil {
		t.Fatal(err)
	}
	base := mustRSS(t, p)

	// 10,000 connections (the default limit) with c, each through startup
	// and one nextval.
	const n = 10_000 - 1
	var conns []net.Conn
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	for i := range n {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, nc)
		fe := pgproto3.NewFrontend(nc, nc)
		fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "m"}})
		fe.Send(&pgproto3.Query{String: "select nextval('m')"})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		for ready := 0; ready < 2; {
			m, err := fe.Receive()
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			if _, ok := m.(*pgproto3.ReadyForQuery); ok {
				ready++
			}
		}
	}
	held := mustRSS(t, p)
	per := (held - base) / n
	t.Logf("resident: %d MiB at start, %d MiB with %d connections (%d KiB each)", base/mib, held/mib, n+1, per>>10)
	if per > 64<<10 {
		t.Errorf("%d KiB per idle connection, more than 64 KiB", per>>10)
	}
	var v int64
	if err := c.QueryRow(ctx, "select nextval('m')").Scan(&v); err != nil {
		t.Fatalf("with %d connections open: %v", n, err)
	}
	for _, nc := range conns {
		nc.Close()
	}
	conns = nil

	// A million rows read a little at a time.
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	slow.(*net.TCPConn).SetReadBuffer(16 << 10)
	fe := pgproto3.NewFrontend(throttled{slow}, slow)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "m"}})
	fe.Send(&pgproto3.Query{String: "select nextval('m') from generate_series(1, 1000000)"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	start := mustRSS(t, p)
	var peak int64
	rows, last, ready := 0, int64(0), 0
	for ready < 2 { // startup's, then the query's
		m, err := fe.Receive()
		if err != nil {
			t.Fatalf("after %d rows: %v", rows, err)
		}
		switch m := m.(type) {
		case *pgproto3.DataRow:
			v, err := strconv.ParseInt(string(m.Values[0]), 10, 64)
			if err != nil || v <= last {
				t.Fatalf("row %d: %q after %d", rows, m.Values[0], last)
			}
			last = v
			rows++
			if rows%50_000 == 0 {
				peak = max(peak, mustRSS(t, p))
			}
		case *pgproto3.ErrorResponse:
			t.Fatalf("after %d rows: %s %s", rows, m.Code, m.Message)
		case *pgproto3.ReadyForQuery:
			ready++
		}
	}
	t.Logf("resident: %d MiB before the slow read, at most %d MiB during it", start/mib, peak/mib)
	if rows != 1_000_000 {
		t.Fatalf("%d rows, want 1000000", rows)
	}
	if peak-start > 64*mib {
		t.Errorf("resident memory grew by %d MiB during a slow read", (peak-start)/mib)
	}
}

// mustRSS is p's resident memory; a failed or empty read fails the test
// (a bound checked against nothing would pass whatever happened).
func mustRSS(t *testing.T, p *proc) int64 {
	t.Helper()
	r, err := p.rss()
	if err != nil || r <= 0 {
		t.Fatalf("reading seqd's resident memory: %d, %v", r, err)
	}
	return r
}

// throttled reads at most 4 KiB at a time, with a pause: a slow reader.
type throttled struct{ net.Conn }

func (c throttled) Read(p []byte) (int, error) {
	time.Sleep(200 * time.Microsecond)
	return c.Conn.Read(p[:min(len(p), 4<<10)])
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
