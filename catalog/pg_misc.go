package catalog

import (
	"github.com/seqd/seqd/eval"
)

// pg_catalog's smaller relations: pg_views, pg_group and
// pg_timezone_names.

// pgViewsRows are pg_views' rows: the catalog's views, owned by the
// bootstrap superuser.
func (c *Catalog) pgViewsRows(src Source) ([][]eval.Datum, error) {
	owner := eval.Text(src.BootstrapUser())
	var out [][]eval.Datum
	for _, v := range c.order {
		if v.Kind == 'v' {
			out = append(out, []eval.Datum{eval.Text(v.Schema), eval.Text(v.Name), owner, ViewDefinition(v)})
		}
	}
	return out, nil
}

// groupRows are pg_group's: the roles that cannot log in, each with its
// members' OIDs.
func groupRows(src Source) ([][]eval.Datum, error) {
	roles := src.Roles()
	var out [][]eval.Datum
	for _, g := range roles {
		if g.Login {
			continue
		}
		members := []eval.Datum{}
		for _, r := range roles {
			for _, m := range r.MemberOf {
				if m.Role == g.Name {
					members = append(members, eval.Int(int64(r.OID)))
				}
			}
		}
		out = append(out, []eval.Datum{eval.Text(g.Name), eval.Int(int64(g.OID)), eval.Array(members...)})
	}
	return out, nil
}

// timezoneNamesRows are pg_timezone_names' rows: the zones PostgreSQL 15
// names that seqd's tzdata knows (every one, with Go's embedded tzdata),
// with their abbreviation, offset from UTC and daylight saving time at
// the Source's time.
func timezoneNamesRows(src Source) ([][]eval.Datum, error) {
	now := src.Now()
	out := make([][]eval.Datum, 0, len(TimezoneNames))
	for _, name := range TimezoneNames {
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
