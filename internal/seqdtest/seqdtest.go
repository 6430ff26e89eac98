// Package seqdtest is the test kit's seqd: a server started in the test
// process on a fresh data directory and a loopback port, shut down when
// the test ends. (Tests of the server and pgwire packages themselves
// start theirs without it: this package imports them.)
package seqdtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/seqd/seqd/server"
)

// Start runs seqd with cfg; an empty DataDir is a fresh temporary one, an
// empty Listen a free loopback port.
func Start(t testing.TB, cfg server.Config) *server.Server {
	t.Helper()
	ctx := context.Background()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	srv, err := server.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(ctx) })
	return srv
}

// DSN is a connection string to srv for user and database db, without TLS.
func DSN(srv *server.Server, user, db string) string {
	return fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, srv.Addr(), db)
}
