package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// runUntilListening starts seqd with args and returns it once it logged
// that it listens, or its whole output and exit status if it ended
// before (a refusal to start).
func runUntilListening(t *testing.T, bin string, args ...string) (*exec.Cmd, *logTail, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lt := &logTail{lines: make(chan string, 1000)}
	go lt.read(stderr)
	var out strings.Builder
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lt.lines:
			if !ok {
				return nil, nil, out.String() + "exit: " + errString(cmd.Wait())
			}
			out.WriteString(l + "\n")
			if strings.Contains(l, "seqd listening on") {
				return cmd, lt, out.String()
			}
		case <-deadline:
			t.Fatalf("seqd neither listened nor ended:\n%s", out.String())
		}
	}
}

// logTail passes a process's log lines on.
type logTail struct{ lines chan string }

func (l *logTail) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.lines <- sc.Text()
	}
	close(l.lines)
}

// waitFor reads the log until a line holds want, failing the test if
// the log ends or d passes first: a test waits on what the server says
// it did, not on a sleep.
func (l *logTail) waitFor(t *testing.T, want string, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case line, ok := <-l.lines:
			if !ok {
				t.Fatalf("the log ended before %q", want)
			}
			if strings.Contains(line, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q in the log within %s", want, d)
		}
	}
}

// rest is every line until the process's log ends.
func (l *logTail) rest() string {
	var out strings.Builder
	for line := range l.lines {
		out.WriteString(line + "\n")
	}
	return out.String()
}

func takeValues(t *testing.T, addr string, n int) int64 {
	t.Helper()
	c := connect(t, addr)
	defer c.Close(context.Background())
	var v int64
	for range n {
		if err := c.QueryRow(context.Background(), "select nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// TestCopiedStoreRefused: a copy of a running store's directory, started
// elsewhere, refuses to serve; the refusal is what protects (adopted, the
// copy hands out values the original already handed out, which is why
// -adopt-store is the operator's statement that the original is gone).
func TestCopiedStoreRefused(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir, copyDir := filepath.Join(t.TempDir(), "store"), filepath.Join(t.TempDir(), "copy")
	addr := testenv.FreeAddr(t)
	orig, origLog, _ := runUntilListening(t, bin, "-data", dir, "-listen", addr)
	if orig == nil {
		t.Fatal("the original did not start")
	}
	c := connect(t, addr)
	if _, err := c.Exec(context.Background(), "create sequence s cache 100"); err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
	takeValues(t, addr, 10)
	// cp -r of the running store.
	if out, err := exec.Command("cp", "-r", dir, copyDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	last := takeValues(t, addr, 500)
	orig.Process.Signal(syscall.SIGTERM)
	origLog.rest()
	orig.Wait()

	_, _, out := runUntilListening(t, bin, "-data", copyDir, "-listen", testenv.FreeAddr(t))
	if !strings.Contains(out, "the store was created in another place") || !strings.Contains(out, "-adopt-store") || !strings.Contains(out, "exit status 1") {
		t.Fatalf("the copy started:\n%s", out)
	}
	// Adopted, the copy serves from where the copy was taken: below what
	// the original handed out. That is the reissue the refusal prevents.
	addr2 := testenv.FreeAddr(t)
	cp, cpLog, out := runUntilListening(t, bin, "-data", copyDir, "-listen", addr2, "-adopt-store")
	if cp == nil {
		t.Fatalf("adopted copy did not start:\n%s", out)
	}
	if v := takeValues(t, addr2, 1); v > last {
		t.Fatalf("the adopted copy resumed at %d, above the original's %d: this test no longer shows what the refusal protects", v, last)
	}
	cp.Process.Signal(syscall.SIGTERM)
	cpLog.rest()
	cp.Wait()
	// Adopted once, it is the store of its new place.
	cp, cpLog, out = runUntilListening(t, bin, "-data", copyDir, "-listen", testenv.FreeAddr(t))
	if cp == nil {
		t.Fatalf("the adopted copy refused a plain restart:\n%s", out)
	}
	cp.Process.Signal(syscall.SIGTERM)
	cpLog.rest()
	cp.Wait()
}

// TestDirectoryRemovedUnderLoad: the data directory removed while seqd
// serves: within seconds it stops acknowledging, /readyz fails, and it
// exits non-zero without claiming a clean shutdown.
func TestDirectoryRemovedUnderLoad(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir := filepath.Join(t.TempDir(), "store")
	addr, httpAddr := testenv.FreeAddr(t), testenv.FreeAddr(t)
	cmd, lt, out := runUntilListening(t, bin, "-data", dir, "-listen", addr, "-http", httpAddr)
	if cmd == nil {
		t.Fatalf("did not start:\n%s", out)
	}
	c := connect(t, addr)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create sequence s"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	removed := time.Now()
	// nextval (NO CACHE: every value written) goes on until it fails.
	var err error
	acknowledged := 0
	for time.Since(removed) < 20*time.Second {
		var v int64
		if err = c.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil {
			break
		}
		acknowledged++
	}
	if err == nil {
		t.Fatal("seqd acknowledged nextval for 20 s after its directory was removed")
	}
	stopped := time.Since(removed)
	resp, herr := http.Get("http://" + httpAddr + "/readyz")
	if herr == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("/readyz 200 after the store failed")
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	log := lt.rest()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("seqd did not exit:\n%s", log)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("exit %v, want non-zero:\n%s", err, log)
	}
	if strings.Contains(log, "clean shutdown") || !strings.Contains(log, "was removed or replaced") {
		t.Fatalf("log:\n%s", log)
	}
	t.Logf("stopped acknowledging %v after the removal (%d values acknowledged meanwhile)", stopped.Round(time.Millisecond), acknowledged)
}

// TestDamagedLogRefused: the reported case on the binary: a store whose
// commit log is damaged after a crash is refused at start, naming
// the damage; it never starts empty or old.
func TestDamagedLogRefused(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir := filepath.Join(t.TempDir(), "store")
	addr := testenv.FreeAddr(t)
	cmd, lt, out := runUntilListening(t, bin, "-data", dir, "-listen", addr)
	if cmd == nil {
		t.Fatalf("did not start:\n%s", out)
	}
	c := connect(t, addr)
	if _, err := c.Exec(context.Background(), "create sequence s"); err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
	last := takeValues(t, addr, 300)
	time.Sleep(1500 * time.Millisecond) // the identity file records the revision once a second
	cmd.Process.Kill()
	cmd.Wait()
	lt.rest()
	// The store's commit log: its segments are preallocated, so the byte
	// flipped is in its first record (past the record's 8-byte header),
	// not in the zeros after the records.
	logs, _ := filepath.Glob(filepath.Join(dir, "*.seqlog"))
	damaged := 0
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 200 && b[0] > 8 {
			b[12] ^= 0xff
			os.WriteFile(l, b, 0o600)
			damaged++
		}
	}
	if damaged == 0 {
		t.Fatal("no log to damage")
	}
	addr2 := testenv.FreeAddr(t)
	cmd, lt, out = runUntilListening(t, bin, "-data", dir, "-listen", addr2)
	if cmd != nil {
		// Started: only if nothing was lost.
		defer func() { cmd.Process.Signal(syscall.SIGTERM); lt.rest(); cmd.Wait() }()
		if v := takeValues(t, addr2, 1); v <= last {
			t.Fatalf("started with a damaged log and handed out %d again (had reached %d):\n%s", v, last, out)
		}
		return
	}
	if !strings.Contains(out, "the store is damaged") || !strings.Contains(out, "exit status 1") {
		t.Fatalf("refused without naming the damage:\n%s", out)
	}
	// seqd check says the same, offline, with exit status 1.
	chk, err := exec.Command(bin, "check", "-data", dir).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(chk), "REFUSED: seqd: the store is damaged") {
		t.Fatalf("seqd check: %v\n%s", err, chk)
	}
}

// TestSecondSeqdNamesHolder: a second seqd on a store in use refuses,
// naming the process that holds it.
func TestSecondSeqdNamesHolder(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir := filepath.Join(t.TempDir(), "store")
	first, lt, out := runUntilListening(t, bin, "-data", dir, "-listen", testenv.FreeAddr(t))
	if first == nil {
		t.Fatalf("did not start:\n%s", out)
	}
	defer func() { first.Process.Signal(syscall.SIGTERM); lt.rest(); first.Wait() }()
	_, _, out = runUntilListening(t, bin, "-data", dir, "-listen", testenv.FreeAddr(t))
	if want := fmt.Sprintf("in use by process %d", first.Process.Pid); !strings.Contains(out, want) || !strings.Contains(out, "exit status 1") {
		t.Fatalf("second seqd: want %q:\n%s", want, out)
	}
}

// TestConnectionFlood: under a descriptor limit (set low for the test)
// below what -max-connections needs, seqd says so at start and serves the
// budget that fits; a flood of connections past it then meets the budget
// (the oldest silent connections give their place), not the descriptor
// limit: no accept fails with EMFILE, the session already in keeps
// serving, and new sessions get in after the flood. (Descriptors running
// out all the same are frontendtest's Descriptors case: logged, retried.)
func TestConnectionFlood(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir := filepath.Join(t.TempDir(), "store")
	addr := testenv.FreeAddr(t)
	cmd, lt, out := runUntilListening(t, "bash", "-c", `ulimit -n 256 && exec "$0" "$@"`, bin,
		"-data", dir, "-listen", addr, "-authentication-timeout", "1s")
	if cmd == nil {
		t.Fatalf("did not start:\n%s", out)
	}
	const budget = 256 - server.SelfDescriptors
	for _, want := range []string{"the descriptor limit is 256 (hard limit 256), below the 10128 that -max-connections 10000 needs",
		fmt.Sprintf("serving at most %d client connections at once", budget), "ulimit -n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in the log:\n%s", want, out)
		}
	}
	ctx := context.Background()
	c := connect(t, addr)
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "create sequence s"); err != nil {
		t.Fatal(err)
	}
	var flood []net.Conn
	for range 2 * budget {
		nc, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the backlog is full: the flood has done what it can
		}
		flood = append(flood, nc)
	}
	// The session already in still gets values while the flood holds.
	var v int64
	if err := c.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil {
		t.Fatalf("nextval during the flood: %v", err)
	}
	for _, nc := range flood {
		nc.Close()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c2, err := pgx.Connect(ctx, "postgres://u@"+addr+"/db?sslmode=disable&connect_timeout=2")
		if err == nil {
			c2.Close(ctx)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new session after the flood: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	log := lt.rest()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("seqd after the flood: %v\n%s", err, log)
	}
	if len(flood) <= budget {
		t.Fatalf("a flood of %d connections, within the budget of %d: the test did not flood", len(flood), budget)
	}
	if strings.Contains(log, "too many open files") {
		t.Fatalf("accepts failed for want of descriptors under a budget that fits:\n%s", log)
	}
}

// TestFormatUpgrade: stores written by older seqd binaries, kept in
// testdata (two sequences, one with 250 values taken under CACHE 100, one
// set to 41, a role granted USAGE), open, are upgraded to today's format,
// and go on where they stopped: format 1, before the identity file
// existed; format 2, before the store's secret (its identity names
// another place, as any copy's does, so it opens only when told it is
// the only copy); both stopped cleanly, so they go on exactly there.
// Format 3, before the commit log, was killed (kill -9) instead: its last
// commits are only in Pebble's write-ahead log, which the upgrade must
// replay; orders goes on within its CACHE of 250.
func TestFormatUpgrade(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	for _, tc := range []struct {
		fixture string
		flags   []string
		crashed bool
	}{
		{"store-format1", nil, false},
		{"store-format2", []string{"-adopt-store"}, false},
		{"store-format3", []string{"-adopt-store"}, true},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			if out, err := exec.Command("cp", "-r", filepath.Join("testdata", tc.fixture), dir).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
			addr := testenv.FreeAddr(t)
			cmd, lt, out := runUntilListening(t, bin, append([]string{"-data", dir, "-listen", addr}, tc.flags...)...)
			if cmd == nil {
				t.Fatalf("the %s store did not open:\n%s", tc.fixture, out)
			}
			if !strings.Contains(out, "recovered 2 sequences") {
				t.Fatalf("log:\n%s", out)
			}
			c := connect(t, addr)
			ctx := context.Background()
			var orders, plain int64
			var usage bool
			if err := c.QueryRow(ctx, "select nextval('orders'), nextval('plain_s'), has_sequence_privilege('app', 'orders', 'usage')").Scan(&orders, &plain, &usage); err != nil {
				t.Fatal(err)
			}
			wantOrders := orders == 251
			if tc.crashed {
				wantOrders = orders > 250 && orders <= 350
			}
			if !wantOrders || plain != 42 || !usage {
				t.Fatalf("after the upgrade: orders %d (want 251, or after a crash 251-350), plain_s %d (want 42), app's usage %v", orders, plain, usage)
			}
			c.Close(ctx)
			cmd.Process.Signal(syscall.SIGTERM)
			lt.rest()
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			chk, err := exec.Command(bin, "check", "-data", dir).CombinedOutput()
			if err != nil || !strings.Contains(string(chk), "format 4, id ") {
				t.Fatalf("seqd check after the upgrade: %v\n%s", err, chk)
			}
			// Upgraded, it opens again without being told anything.
			cmd, lt, out = runUntilListening(t, bin, "-data", dir, "-listen", addr)
			if cmd == nil {
				t.Fatalf("the upgraded store did not open again:\n%s", out)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			lt.rest()
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
