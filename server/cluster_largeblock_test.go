package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/etcdtest"
)

// TestClusterLargeBlockRefused: a transaction block of more records than
// etcd takes in one transaction is refused to its client (54000, nothing
// written) and the store stays sound: the leader keeps its term, reports
// ready, and serves the next statement and a smaller block. (It used to
// count as a failed store: the leader resigned, and a client repeating
// its migration kept the cluster leaderless.)
func TestClusterLargeBlockRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and a node")
	}
	ctx := context.Background()
	s, c := leaderNode(t, etcdtest.Start(t, 1), "/large/")
	defer s.Shutdown(ctx)
	defer c.Close(ctx)
	block := func(n int) error {
		var b strings.Builder
		b.WriteString("begin;")
		for i := range n {
			fmt.Fprintf(&b, "create sequence big_%d_%d;", n, i)
		}
		b.WriteString("commit")
		_, err := c.Exec(ctx, b.String(), pgx.QueryExecModeSimpleProtocol)
		return err
	}
	var pe *pgconn.PgError
	if err := block(200); err == nil || !errors.As(err, &pe) || pe.Code != "54000" {
		t.Fatalf("a block of 200 CREATE SEQUENCE in cluster mode: %v, want 54000", err)
	}
	var n int
	if err := c.QueryRow(ctx, "select count(*) from pg_sequences where sequencename like 'big_200_%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("after the refused block: %d of its sequences, %v", n, err)
	}
	if eng, standby := s.node.current(); standby || eng.Healthy() != nil || !s.node.leading() {
		t.Fatalf("after a refused block the node is a standby (%v), unhealthy (%v) or no longer leads", standby, eng.Healthy())
	}
	if err := block(20); err != nil {
		t.Fatalf("a block of 20 after the refused one: %v", err)
	}
	var v int64
	if err := c.QueryRow(ctx, "select nextval('big_20_3')").Scan(&v); err != nil || v != 1 {
		t.Fatalf("nextval after the blocks: %d, %v", v, err)
	}
}
