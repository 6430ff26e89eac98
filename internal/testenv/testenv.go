// Package testenv gives tests the real services the project's scripts
// start, and builds seqd for tests that run it as a process.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// PostgresDSN is the connection string of the PostgreSQL 15 that
// scripts/test-deps.sh starts. Without it the test is skipped, unless
// SEQD_REQUIRE_PG is set (as scripts/test does), when it fails.
func PostgresDSN(t testing.TB) string {
	dsn := os.Getenv("SEQD_TEST_PG_DSN")
	if dsn == "" {
		if os.Getenv("SEQD_REQUIRE_PG") != "" {
			t.Fatal("SEQD_TEST_PG_DSN is not set; run scripts/test")
		}
		t.Skip("no PostgreSQL: run scripts/test, or set SEQD_TEST_PG_DSN")
	}
	return dsn
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// SeqdBinary builds cmd/seqd once per test process and returns its path.
func SeqdBinary(t testing.TB) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "seqd-bin")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "seqd")
		out, err := exec.Command("go", "build", "-race", "-o", binary, "github.com/seqd/seqd/cmd/seqd").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }
