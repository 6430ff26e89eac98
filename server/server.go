// Package server wires seqd together: it opens the store and the engine,
// serves the PostgreSQL protocol, and shuts down cleanly.
package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgwire"
	"github.com/seqd/seqd/storage/embedded"
)

// Config is seqd's configuration. The zero value is not valid; see
// cmd/seqd for the defaults.
type Config struct {
	DataDir     string // the embedded store's directory
	Listen      string // host:port for the PostgreSQL protocol
	MaxBulkRows int64
	MaxConns    int
	MaxMessage  int           // bytes of one protocol message (a statement)
	IdleTimeout time.Duration // 0: none
	Logger      *log.Logger
	// FS, when set, is the file system the embedded store uses (tests and
	// fault injection); nil is the operating system's.
	FS vfs.FS
}

// Server is a running seqd.
type Server struct {
	eng  *engine.Engine
	pg   *pgwire.Server
	ln   net.Listener
	done chan error
}

// Start opens the data directory, recovers every sequence and starts
// listening.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = log.Default()
	}
	if cfg.FS == nil {
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, err
		}
	}
	st, err := embedded.Open(cfg.DataDir, embedded.Options{FS: cfg.FS})
	if err != nil {
		return nil, err
	}
	opened := time.Now()
	eng, err := engine.Open(ctx, engine.Config{Store: st})
	if err != nil {
		st.Close()
		return nil, err
	}
	recovery := time.Since(opened)
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		eng.Close()
		return nil, fmt.Errorf("seqd: listen: %w", err)
	}
	s := &Server{eng: eng, ln: ln, done: make(chan error, 1),
		pg: pgwire.NewServer(pgwire.Config{Engine: eng, MaxBulkRows: cfg.MaxBulkRows, MaxConns: cfg.MaxConns,
			MaxMessage: cfg.MaxMessage, IdleTimeout: cfg.IdleTimeout, Logger: cfg.Logger})}
	go func() { s.done <- s.pg.Serve(ln) }()
	if cfg.FS == nil {
		dir, _ := filepath.Abs(cfg.DataDir)
		if eng.Fresh() {
			cfg.Logger.Printf("created a new store in %s", dir)
		} else {
			cfg.Logger.Printf("recovered %d sequences in %d schemas from %s in %v", len(eng.List()), len(eng.Schemas()), dir, recovery.Round(time.Millisecond))
		}
	}
	cfg.Logger.Printf("seqd listening on %s", ln.Addr())
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Done reports a listener failure.
func (s *Server) Done() <-chan error { return s.done }

// Shutdown stops accepting, finishes in-flight requests, writes the
// clean-shutdown record of every sequence and closes the store.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.pg.Shutdown(ctx)
	return errors.Join(err, s.eng.Close())
}
