package compat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/internal/testenv"
)

// TestPipelineTransaction sends batches through pgx's pipeline (the
// extended protocol, one Sync for the batch) to PostgreSQL 15 and seqd:
// a batch is one implicit transaction, so an error undoes the DDL of the
// statements before it, and a command that cannot run in a transaction
// block is refused after another statement of the same batch. The
// transcripts must be the same.
func TestPipelineTransaction(t *testing.T) {
	pg, sd, _, _, _ := connectBoth(t, "seqd_pipeline")
	// Each statement as Parse, Bind, Describe and Execute of the unnamed
	// statement, the batch ended by one Sync (no statement cache, which
	// DISCARD ALL would empty).
	exec := func(c *pgx.Conn) *pgx.Conn {
		cfg := c.Config().Copy()
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
		return connectLike(t, cfg)
	}
	want, got := pipelineStory(t, exec(pg)), pipelineStory(t, exec(sd))
	if want != got {
		t.Errorf("seqd differs from PostgreSQL 15:\n%s", testenv.LineDiff(want, got))
	}
}

func pipelineStory(t *testing.T, c *pgx.Conn) string {
	ctx := context.Background()
	var out strings.Builder
	batch := func(qs ...string) {
		b := &pgx.Batch{}
		for _, q := range qs {
			b.Queue(q)
		}
		br := c.SendBatch(ctx, b)
		for _, q := range qs {
			_, err := br.Exec()
			fmt.Fprintf(&out, "%s: %s\n", q, errString(err))
		}
		fmt.Fprintf(&out, "close: %s\n", errString(br.Close()))
	}
	list := func() {
		var names []string
		rows, err := c.Query(ctx, "select sequencename from pg_sequences order by 1")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var n string
			rows.Scan(&n)
			names = append(names, n)
		}
		fmt.Fprintf(&out, "sequences: %v (%v)\n", names, rows.Err())
	}
	batch("create sequence p1", "create sequence p2", "create sequence p1")
	list()
	batch("create sequence p1", "alter sequence p1 increment 10", "select nextval('p1')")
	list()
	batch("drop sequence p1", "select nextval('nope')")
	list()
	batch("discard all", "select 1")
	batch("select 1", "discard all")
	batch("create role pipe_r", "create role pipe_r")
	batch("begin", "create sequence p3", "commit", "create sequence p4", "select 1/0")
	list()
	batch("drop sequence p1, p3")
	return out.String()
}

func errString(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	if err != nil {
		return err.Error()
	}
	return "ok"
}
