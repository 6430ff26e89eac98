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
	// Another role's failures of the code are its own: one role's flood
	// hides nothing of another's.
	f.Log("55000", "refused", "other", 8, "SELECT nextval('ids')")
	if !strings.Contains(buf.String(), `(user "other", connection 8)`) {
		t.Errorf("another role's failure was not logged:\n%s", buf.String())
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

// TestFailureLogBounded: the pairs kept are bounded: past failureKeys,
// those whose bucket filled again are forgotten, and while every pair
// is still failing a new role's failures share the code's bucket.
func TestFailureLogBounded(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1e9, 0)
	f := &FailureLog{Logger: log.New(&buf, "", 0), Now: func() time.Time { return now }}
	for i := range failureKeys {
		f.Log("42601", "syntax error", fmt.Sprint("role", i), 1, "SELEC 1")
	}
	f.Log("42601", "syntax error", "late", 1, "SELEC 1") // every pair still counting: shares the code's
	if n := len(f.codes); n != failureKeys+1 {
		t.Errorf("%d pairs kept, want %d", n, failureKeys+1)
	}
	now = now.Add(time.Second) // each pair's one line back: full again
	f.Log("42601", "syntax error", "later", 1, "SELEC 1")
	if n := len(f.codes); n != 1 { // the shared bucket filled again too
		t.Errorf("%d pairs kept after they filled again, want 1", n)
	}
	if n := strings.Count(buf.String(), "\n"); n != failureKeys+2 {
		t.Errorf("%d lines, want %d", n, failureKeys+2)
	}
}
