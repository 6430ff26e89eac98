// The statistics and time zones of PostgreSQL's catalog that describe
// what seqd has: pg_statio_*_sequences and pg_timezone_names.

package executor

import (
	"strings"
	"time"

	"github.com/seqd/seqd/catalog"
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

// timezoneNamesRows are pg_timezone_names' rows: the zones PostgreSQL 15
// names that seqd's tzdata knows (every one, with Go's embedded tzdata),
// with their abbreviation, offset from UTC and daylight saving time now.
func (s *Session) timezoneNamesRows() ([][]eval.Datum, error) {
	now := time.Now()
	out := make([][]eval.Datum, 0, len(catalog.TimezoneNames))
	for _, name := range catalog.TimezoneNames {
		loc, ok := eval.ZoneNamed(name)
		if !ok {
			continue
		}
		t := now.In(loc)
		abbrev, off := t.Zone()
		out = append(out, []eval.Datum{eval.Text(name), eval.Text(abbrev), eval.Interval(int64(off)), eval.Bool(t.IsDST())})
	}
	return out, nil
}
