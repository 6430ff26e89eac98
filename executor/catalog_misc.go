// Smaller relations of the catalog, as PostgreSQL 15 defines them: the
// groups (pg_group), the sessions' GSSAPI state (pg_stat_gssapi), and
// information_schema's character set and collations.

package executor

import "github.com/seqd/seqd/eval"

// groupRows are pg_group's: the roles that cannot log in, each with its
// members' OIDs.
func (s *Session) groupRows() ([][]eval.Datum, error) {
	roles := s.roleList()
	var out [][]eval.Datum
	for _, g := range roles {
		if g.Login {
			continue
		}
		members := []eval.Datum{}
		for _, r := range roles {
			for _, m := range r.MemberOf {
				if m.Role == g.Name {
					members = append(members, eval.Int(int64(r.oid)))
				}
			}
		}
		out = append(out, []eval.Datum{eval.Text(g.Name), eval.Int(int64(g.oid)), eval.Array(members...)})
	}
	return out, nil
}

// gssapiRows are pg_stat_gssapi's: seqd authenticates no session with
// GSSAPI nor encrypts one with it. Of a session whose role the reader
// does not hold, NULLs, as pg_stat_activity's.
func (s *Session) gssapiRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, b := range s.cfg.Activity.snapshot() {
		row := []eval.Datum{eval.Int(int64(b.pid)), eval.Null, eval.Null, eval.Null}
		if s.hasPrivsOfRole(b.user) {
			row[1], row[3] = eval.Bool(false), eval.Bool(false)
		}
		out = append(out, row)
	}
	return out, nil
}

// characterSetsRows are information_schema.character_sets': the
// database's encoding, UTF8 (its collation, C.UTF-8, is none of
// pg_collation's, so no default collation is named).
func (s *Session) characterSetsRows() ([][]eval.Datum, error) {
	return [][]eval.Datum{{eval.Null, eval.Null, eval.Text("UTF8"), eval.Text("UCS"), eval.Text("UTF8"), eval.Text(s.cfg.Database), eval.Null, eval.Null}}, nil
}

// collationsRows are information_schema.collations': pg_collation's
// (builtinCollations), all for any encoding.
func (s *Session) collationsRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, c := range builtinCollations {
		out = append(out, []eval.Datum{eval.Text(s.cfg.Database), eval.Text("pg_catalog"), eval.Text(c), eval.Text("NO PAD")})
	}
	return out, nil
}

// collationApplicabilityRows are
// information_schema.collation_character_set_applicability's: each
// collation applies to UTF8.
func (s *Session) collationApplicabilityRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, c := range builtinCollations {
		out = append(out, []eval.Datum{eval.Text(s.cfg.Database), eval.Text("pg_catalog"), eval.Text(c), eval.Null, eval.Null, eval.Text("UTF8")})
	}
	return out, nil
}
