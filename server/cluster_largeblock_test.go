package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestClusterLargeBlock: a transaction block of far more records than
// etcd takes in one transaction (2,000 CREATE SEQUENCE) commits whole in
// cluster mode, staged (storage/etcdstore TestStagedCrash stops it at
// every step): the leader keeps its term and serves them, a follower's
// snapshot shows them all, and so does the next leader, which drops them
// all in one statement. A failing block of as many makes none, and so
// does one that locks more sequences than -max-transaction-locks (here
// the block's size): SQLSTATE 54000.
func TestClusterLargeBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("etcd and three nodes")
	}
	const n = 2000
	fc := startFailoverCluster(t, func(c *Config) { c.MaxTxnLocks = n })
	ctx := fc.ctx
	c, first := fc.leader()
	defer c.Close(ctx)
	block := func(c *pgx.Conn, tag string, last string) error { return largeBlock(ctx, c, n, tag, last) }
	count := func(c *pgx.Conn, tag string) int { t.Helper(); return countSequences(t, c, tag) }
	var pe *pgconn.PgError
	if err := block(c, "bad", "select nextval('absent')"); !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Fatalf("a failing block: %v", err)
	}
	if _, err := c.Exec(ctx, "rollback"); err != nil {
		t.Fatal(err)
	}
	if err := block(c, "bad", "create sequence bad_more"); !errors.As(err, &pe) || pe.Code != "54000" || !strings.Contains(pe.Hint, "-max-transaction-locks") {
		t.Fatalf("a block of one CREATE past -max-transaction-locks: %v", err)
	}
	if _, err := c.Exec(ctx, "rollback"); err != nil {
		t.Fatal(err)
	}
	// A follower shows none of the block or all of it, also while the
	// leader writes its records, in many etcd transactions after the one
	// that made it.
	f := (first + 1) % 3
	fc1 := fc.connect(f)
	defer fc1.Close(ctx)
	stopWatching := watchPartial(ctx, fc1, n)
	err := block(c, "big", "comment on sequence big_7 is 'seven'")
	if partial := stopWatching(); len(partial) > 0 {
		t.Fatalf("while the block committed, a follower showed %v of its %d sequences (-1: a query failed)", partial, n)
	}
	if err != nil {
		t.Fatalf("a block of %d CREATE SEQUENCE in cluster mode: %v", n, err)
	}
	if k := count(c, "big"); k != n {
		t.Fatalf("the leader serves %d of the block's %d sequences", k, n)
	}
	var v int64
	if err := c.QueryRow(ctx, "select nextval('big_1999')").Scan(&v); err != nil || v != 1 {
		t.Fatalf("nextval of the block's last sequence: %d, %v", v, err)
	}
	if !fc.nodes[first].node.leading() {
		t.Fatal("the leader no longer leads after the block")
	}
	awaitFollowerBlock(t, fc, f, n)
	c.Close(ctx)
	if err := fc.nodes[first].Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	fc.down[first] = true
	c, _ = fc.leader()
	defer c.Close(ctx)
	var comment string
	if err := c.QueryRow(ctx, "select nextval('big_1999'), obj_description('big_7'::regclass)").Scan(&v, &comment); err != nil || v != 2 || comment != "seven" {
		t.Fatalf("the next leader: nextval %d, comment %q, %v", v, comment, err)
	}
	if k := count(c, "big"); k != n {
		t.Fatalf("the next leader serves %d of the block's %d sequences", k, n)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("big_%d", i)
	}
	if _, err := c.Exec(ctx, "drop sequence "+strings.Join(names, ", ")); err != nil {
		t.Fatalf("dropping the %d in one statement: %v", n, err)
	}
	if k := count(c, "big"); k != 0 {
		t.Fatalf("%d left after the drop", k)
	}
}

// largeBlock runs a transaction block of n CREATE SEQUENCE tag_i, then
// last, then COMMIT, in one simple query.
func largeBlock(ctx context.Context, c *pgx.Conn, n int, tag, last string) error {
	var b strings.Builder
	b.WriteString("begin;")
	for i := range n {
		fmt.Fprintf(&b, "create sequence %s_%d;", tag, i)
	}
	b.WriteString(last + ";commit")
	_, err := c.Exec(ctx, b.String(), pgx.QueryExecModeSimpleProtocol)
	return err
}

// countSequences is how many sequences named tag_... c sees.
func countSequences(t *testing.T, c *pgx.Conn, tag string) int {
	t.Helper()
	var k int
	if err := c.QueryRow(context.Background(), "select count(*) from pg_sequences where sequencename like $1", tag+"\\_%").Scan(&k); err != nil {
		t.Fatal(err)
	}
	return k
}

// watchPartial counts a follower's big_... sequences every 20 ms until
// the function it returns is called, which returns the counts seen that
// were neither none nor all n (-1: a query failed).
func watchPartial(ctx context.Context, c *pgx.Conn, n int) func() []int {
	watching := make(chan struct{})
	seen := make(chan []int, 1)
	go func() {
		var partial []int
		defer func() { seen <- partial }()
		for {
			var k int
			if err := c.QueryRow(ctx, "select count(*) from pg_sequences where sequencename like 'big\\_%'").Scan(&k); err != nil {
				partial = append(partial, -1)
				return
			}
			if k != 0 && k != n {
				partial = append(partial, k)
			}
			select {
			case <-watching:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() []int {
		close(watching)
		return <-seen
	}
}

// awaitFollowerBlock waits for follower f to show all n of the block's
// sequences and none of the failed block's, failing on a part of them.
func awaitFollowerBlock(t *testing.T, fc *failoverCluster, f, n int) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		fcn := fc.connect(f)
		k, bad := countSequences(t, fcn, "big"), countSequences(t, fcn, "bad")
		fcn.Close(ctx)
		if bad != 0 {
			t.Fatalf("a follower shows %d sequences of the failed block", bad)
		}
		if k == n {
			return
		}
		if k != 0 || time.Now().After(deadline) {
			t.Fatalf("a follower shows %d of the block's %d sequences", k, n)
		}
	}
}
