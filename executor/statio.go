// The statistics and time zones of PostgreSQL's catalog that describe
// what seqd has: pg_statio_*_sequences and pg_timezone_names.

package executor

import (
	"strings"

	"github.com/seqd/seqd/eval"
)

// statioRows are pg_statio_all_sequences' rows (sys: the catalog
// schemas' sequences, of which seqd has none; user: the others): each
// sequence the session sees, with no blocks read or found in a buffer
// (seqd serves values from memory over its store, reading no blocks of
// a sequence).
func statioRows(which string) func(*Session) ([][]eval.Datum, error) {
	return func(s *Session) ([][]eval.Datum, error) {
		var out [][]eval.Datum
		for _, i := range s.sequences() {
			schema := i.Name.Schema()
			if t, ok := s.tempName(schema); ok {
				schema = t
			}
			sys := schema == "pg_catalog" || schema == "information_schema" || strings.HasPrefix(schema, "pg_toast")
			if which == "sys" && !sys || which == "user" && sys {
				continue
			}
			out = append(out, []eval.Datum{eval.Int(int64(i.OID)), eval.Text(schema), eval.Text(i.Name.Rel()), eval.Int(0), eval.Int(0)})
		}
		return out, nil
	}
}
