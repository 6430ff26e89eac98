// Package testenv gives tests the real services the project's scripts
// start, builds seqd for tests that run it as a process, and holds the
// helpers tests share (an engine on an in-memory store, a line diff).
package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/storage/embedded"
)

// PostgresDSN is the connection string of the PostgreSQL 15 that
// scripts/test-deps.sh starts.
func PostgresDSN(t testing.TB) string { return need(t, "SEQD_TEST_PG_DSN", "PostgreSQL") }

// MariaDBDSN is the go-sql-driver/mysql data source name of the MariaDB
// 10.11 that scripts/test-deps.sh starts.
func MariaDBDSN(t testing.TB) string { return need(t, "SEQD_TEST_MARIADB_DSN", "MariaDB") }

// Python is a Python interpreter with psycopg, from scripts/test-deps.sh.
func Python(t testing.TB) string { return need(t, "SEQD_TEST_PYTHON", "Python with psycopg") }

// TypeScriptModules is the node_modules of the TypeScript SDK's toolchain
// (typescript, prettier, pg), installed by scripts/test-deps.sh.
func TypeScriptModules(t testing.TB) string {
	return need(t, "SEQD_TEST_TS_MODULES", "TypeScript toolchain")
}

// need reads what scripts/test-deps.sh exported into env. Without it the
// test is skipped, unless SEQD_REQUIRE_DEPS is set (as scripts/test does),
// when it fails.
func need(t testing.TB, env, what string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		missing(t, fmt.Sprintf("no %s: run scripts/test, or set %s", what, env))
	}
	return v
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("SEQD_REQUIRE_DEPS") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// Command is the path of a program the tests run, such as psql or
// pgbench (installed with PostgreSQL by scripts/test-deps.sh).
func Command(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, fmt.Sprintf("no %s: run scripts/test", name))
	}
	return p
}

var builds sync.Map // race bool -> *build

type build struct {
	once sync.Once
	path string
	err  error
}

// SeqdBinary builds cmd/seqd once per test binary, with the race
// detector, and returns its path.
func SeqdBinary(t testing.TB) string { return seqdBinary(t, true) }

// SeqdPlainBinary is SeqdBinary without the race detector, for
// measurements (the detector multiplies memory use).
func SeqdPlainBinary(t testing.TB) string { return seqdBinary(t, false) }

func seqdBinary(t testing.TB, race bool) string {
	v, _ := builds.LoadOrStore(race, &build{})
	b := v.(*build)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "seqd-bin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "seqd")
		// With fault injection (the torture harness's -fault-injection),
		// which the binary operators build leaves out.
		args := []string{"build", "-tags", "faultinject", "-o", b.path}
		if race {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "github.com/seqd/seqd/cmd/seqd")...).CombinedOutput()
		if err != nil {
			b.err = &buildError{err, string(out)}
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// MemEngine opens an engine on an in-memory store, closed when tb ends.
func MemEngine(tb testing.TB) *engine.Engine {
	tb.Helper()
	st, err := embedded.Open("db", embedded.Options{FS: vfs.NewMem()})
	if err != nil {
		tb.Fatal(err)
	}
	eng, err := engine.Open(context.Background(), engine.Config{Store: st})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// LineDiff shows the first line where want and got part.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\n got %q", i+1, wl, gl)
		}
	}
	return "(equal)"
}

// FreeAddr is a loopback address nobody listens on now (for a server the
// test starts a moment later).
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := loopback.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// LogBuffer collects what a logger writes, safe for the server's
// goroutines to write while the test reads.
type LogBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written, with slog's escaped quotes plain.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.ReplaceAll(l.b.String(), `\"`, `"`)
}

// WaitStuck waits until public.s has moved and then stays put for 200 ms
// (a client that sends and never reads has stalled the server), failing
// the test if that takes more than 20 s.
func WaitStuck(tb testing.TB, eng *engine.Engine) {
	tb.Helper()
	n, _ := engine.NewName("public", "s")
	last := int64(-1)
	for deadline := time.Now().Add(20 * time.Second); ; {
		v, _ := eng.Info(n)
		if v.State.Last > 0 && v.State.Last == last {
			return
		}
		last = v.State.Last
		if time.Now().After(deadline) {
			tb.Fatal("the answers never filled the connection")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
