package migrate

import (
	"bytes"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ImportReport says what Import did.
type ImportReport struct {
	DumpReport
	SQL string // what it ran on the target
}

// Import creates the sequences of a live PostgreSQL (or seqd) database in
// a seqd, each with every option and a position beyond anything the
// source handed out: PostgreSQL's pg_sequences.last_value is the last
// value written to the sequence, which covers every session's cache, so
// the target resumes after it (Margin more increments for a source that
// still serves). The sequences are created in one implicit transaction:
// all or none (one that exists already fails the whole import).
//
// A role that cannot read a sequence sees no last_value in pg_sequences,
// as if it had never been used; Import refuses then rather than restart
// it.
func Import(ctx context.Context, source, target *pgx.Conn, o DumpOptions) (ImportReport, error) {
	var rep ImportReport
	var unreadable []string
	rows, err := source.Query(ctx, `select format('%I.%I', schemaname, sequencename) from pg_catalog.pg_sequences
		where not has_sequence_privilege(format('%I.%I', schemaname, sequencename), 'SELECT')`)
	if err != nil {
		return rep, err
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return rep, err
		}
		unreadable = append(unreadable, n)
	}
	rows.Close()
	if len(unreadable) > 0 {
		return rep, fmt.Errorf("migrate: the source role may not read %v (SELECT), so their positions are unknown: import as the sequences' owner or a superuser", unreadable)
	}
	var sql bytes.Buffer
	if rep.DumpReport, err = Dump(ctx, source, &sql, o); err != nil {
		return rep, err
	}
	rep.SQL = sql.String()
	if len(rep.Skipped) > 0 {
		return rep, fmt.Errorf("migrate: %v cannot be imported", rep.Skipped)
	}
	// One Query: one implicit transaction, as in PostgreSQL.
	if _, err := target.Exec(ctx, rep.SQL, pgx.QueryExecModeSimpleProtocol); err != nil {
		return rep, fmt.Errorf("migrate: creating the sequences in the target (nothing was created): %w", err)
	}
	return rep, nil
}
