package server

import (
	"bytes"
	"io"
	"log"
	"sync"
	"time"

	"github.com/seqd/seqd/console"
)

// maxFailures bounds the failed statements the console keeps.
const maxFailures = 100

// failureLog is the server's log writer, which also keeps the last
// maxFailures failed statements it logged (frontend.LogFailure's lines,
// each at most a statement's logged text long) for the console.
// It is safe for concurrent use.
type failureLog struct {
	out  io.Writer
	mu   sync.Mutex
	ring [maxFailures]console.Failure
	n    int // failures kept
	next int // where the next one goes
}

// logFailures is logger, writing also to a failureLog (logger itself if
// it has one already).
func logFailures(logger *log.Logger) *log.Logger {
	if _, ok := logger.Writer().(*failureLog); ok {
		return logger
	}
	return log.New(&failureLog{out: logger.Writer()}, logger.Prefix(), logger.Flags())
}

// failuresOf is the failureLog logger writes to, nil if none.
func failuresOf(logger *log.Logger) *failureLog {
	f, _ := logger.Writer().(*failureLog)
	return f
}

func (f *failureLog) Write(p []byte) (int, error) {
	if i := bytes.Index(p, []byte("ERROR ")); i >= 0 && bytes.Contains(p, []byte(" STATEMENT: ")) {
		f.keep(string(bytes.TrimSpace(p[i+len("ERROR "):])))
	}
	return f.out.Write(p)
}

// keep adds one failure's line (after "ERROR ").
func (f *failureLog) keep(line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ring[f.next] = console.Failure{At: time.Now().UTC(), Line: line}
	f.next = (f.next + 1) % maxFailures
	f.n = min(f.n+1, maxFailures)
}

// Recent are the failures kept, newest first.
func (f *failureLog) Recent() []console.Failure {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]console.Failure, 0, f.n)
	for i := 1; i <= f.n; i++ {
		out = append(out, f.ring[(f.next-i+maxFailures)%maxFailures])
	}
	return out
}
