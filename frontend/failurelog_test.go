package frontend

import (
	"bytes"
	"fmt"
	"log"
	"strings"
	"testing"
	"time"
)

// TestFailureLog: a code's failures are logged in a burst, then at the
// rate, and the line after a gap says how many were left out; another
// code keeps its own burst.
func TestFailureLog(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1e9, 0)
	f := &FailureLog{Logger: log.New(&buf, "", 0), Now: func() time.Time { return now }}
	for i := range failureBurst + 50 {
		f.Log("55000", fmt.Sprintf("refused %d", i), "app", 7, "SELECT nextval('ids')")
	}
	if n := strings.Count(buf.String(), "\n"); n != failureBurst {
		t.Fatalf("%d lines for %d failures at once, want the burst of %d", n, failureBurst+50, failureBurst)
	}
	f.Log("42601", "syntax error", "app", 7, "SELEC 1")
	if !strings.Contains(buf.String(), "ERROR 42601 syntax error") {
		t.Errorf("another code's first failure was not logged:\n%s", buf.String())
	}
	buf.Reset()
	now = now.Add(time.Second) // failureRate lines' worth
	for i := range 2 * failureRate {
		f.Log("55000", fmt.Sprintf("later %d", i), "app", 7, "SELECT nextval('ids')")
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != failureRate {
		t.Fatalf("%d lines a second later, want %d:\n%s", len(lines), failureRate, buf.String())
	}
	if want := "later 0 (and 50 more failures with code 55000 not logged"; !strings.Contains(lines[0], want) {
		t.Errorf("the first line after the gap: %q, want it to contain %q", lines[0], want)
	}
	if strings.Contains(lines[1], "not logged") {
		t.Errorf("the count was said twice: %q", lines[1])
	}
}
