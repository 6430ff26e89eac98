package catalog

import (
	"strconv"
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// A session's own objects as the catalog lists them (its prepared
// statements, pg_prepared_statements; its cursors, pg_cursors), the
// locks of every session (pg_locks), and the sequences' I/O statistics
// (pg_statio_*_sequences).

// preparedRows are pg_prepared_statements' rows. seqd has one plan for
// every execution, which PostgreSQL would call generic: generic_plans
// counts the executions, custom_plans is 0.
func preparedRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, st := range src.PreparedStatements() {
		var types []eval.Datum
		for _, t := range st.ParamTypes {
			types = append(types, eval.Datum{Kind: eval.KInt, I: int64(t.OID()), S: t.SQLName()})
		}
		out = append(out, []eval.Datum{eval.Text(st.Name), eval.Text(st.Text), timestamptz(src, st.Prepared), eval.Array(types...),
			eval.Bool(st.FromSQL), eval.Int(st.Runs), eval.Int(0)})
	}
	return out, nil
}

// cursorRows are pg_cursors' rows: the DECLAREd cursors (not the
// protocol's portals, as in PostgreSQL). seqd's cursors read forward
// only.
func cursorRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, c := range src.Cursors() {
		out = append(out, []eval.Datum{eval.Text(c.Name), eval.Text(c.Text), eval.Bool(c.Hold), eval.Bool(c.Binary), eval.Bool(false),
			timestamptz(src, c.Declared)})
	}
	return out, nil
}

// locksRows are pg_locks' rows: the locks transactions hold (a
// sequence's, taken by DDL in a block; each holder's on its own
// transaction) and those sessions wait for, of every front end. seqd has
// no virtual transactions or locks on catalog relations to show.
func locksRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, l := range src.Locks() {
		locktype, db, rel, xid := "transactionid", eval.Null, eval.Null, eval.Null
		if l.Seq != (engine.Name{}) {
			locktype, db, rel = "relation", eval.Int(DatabaseOID), eval.Int(int64(l.Relation))
		} else {
			xid = eval.Int(int64(l.Txn))
		}
		waitStart := eval.Null
		if !l.Granted {
			waitStart = timestamptz(src, l.Since)
		}
		out = append(out, []eval.Datum{eval.Text(locktype), db, rel, eval.Null, eval.Null, eval.Null, xid, eval.Null, eval.Null, eval.Null,
			eval.Text(strconv.FormatUint(uint64(l.Owner), 10) + "/" + strconv.FormatUint(l.Txn, 10)), eval.Int(int64(l.Owner)),
			eval.Text(l.Mode), eval.Bool(l.Granted), eval.Bool(false), waitStart})
	}
	return out, nil
}

// statioSequences are pg_statio_all_sequences' rows (sys: the catalog
// schemas' sequences, of which seqd has none; user: the others): each
// sequence the session sees, with no blocks read or found in a buffer
// (seqd serves values from memory over its store, reading no blocks of
// a sequence).
func statioSequences(which string) *PerSequence {
	return &PerSequence{NameCol: 2, OIDCol: 0, Row: func(_ Source, i Sequence) [][]eval.Datum {
		schema := i.Name.Schema()
		sys := schema == "pg_catalog" || schema == "information_schema" || strings.HasPrefix(schema, "pg_toast")
		if which == "sys" && !sys || which == "user" && sys {
			return nil
		}
		return [][]eval.Datum{{eval.Int(int64(i.OID)), eval.Text(schema), eval.Text(i.Name.Rel()), eval.Int(0), eval.Int(0)}}
	}}
}
