package executor

import (
	"strings"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// The OID alias types past regclass and regtype: regnamespace (schemas),
// regrole (roles), regproc and regprocedure (functions, pgproc.go). Input
// takes a name, or an OID in digits; output is the name, or the OID's
// digits for one that names nothing, "-" for 0 (PostgreSQL's).

func (v *evalView) RegIn(typ uint32, text string) (eval.Datum, error) { return v.s().regIn(typ, text) }
func (v *evalView) RegOut(typ, oid uint32) eval.Datum                 { return v.s().regOut(typ, oid) }

func (s *Session) regIn(typ uint32, text string) (eval.Datum, error) {
	if t := strings.TrimSpace(text); t != "" && (t[0] >= '0' && t[0] <= '9' || t == "-") {
		if t == "-" {
			return s.regOut(typ, 0), nil
		}
		d, err := s.Input(eval.TOid, t)
		if err != nil {
			return eval.Null, err
		}
		return s.regOut(typ, uint32(d.I)), nil
	}
	switch typ {
	case eval.OIDRegnsp, eval.OIDRegrole:
		parts, ok := pgsql.SplitIdentifiers(text, '.')
		if !ok || len(parts) != 1 {
			return eval.Null, sqlerr.Errorf(sqlerr.InvalidName, "invalid name syntax")
		}
		if typ == eval.OIDRegnsp {
			for _, n := range s.schemaNames() {
				if n == parts[0] {
					oid := s.oids().forSchema(n)
					return eval.Datum{Kind: eval.KInt, I: int64(oid), S: pgsql.QuoteIdent(n)}, nil
				}
			}
			return eval.Null, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", parts[0])
		}
		for _, r := range s.regRoles() {
			if r.name == parts[0] {
				return eval.Datum{Kind: eval.KInt, I: r.oid, S: pgsql.QuoteIdent(r.name)}, nil
			}
		}
		return eval.Null, sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", parts[0])
	}
	return procIn(typ, text)
}

func (s *Session) regOut(typ, oid uint32) eval.Datum {
	d := eval.Datum{Kind: eval.KInt, I: int64(oid)}
	if oid == 0 {
		d.S = "-"
		return d
	}
	switch typ {
	case eval.OIDRegnsp:
		for _, n := range s.schemaNames() {
			if s.oids().forSchema(n) == oid {
				d.S = pgsql.QuoteIdent(n)
			}
		}
	case eval.OIDRegrole:
		for _, r := range s.regRoles() {
			if r.oid == int64(oid) {
				d.S = pgsql.QuoteIdent(r.name)
			}
		}
	default:
		d.S = procOut(typ, oid)
	}
	return d
}

// regRoles are the roles regrole knows: seqd's, and the predefined role
// that owns the public schema.
func (s *Session) regRoles() []struct {
	name string
	oid  int64
} {
	out := []struct {
		name string
		oid  int64
	}{{"pg_database_owner", dbOwnerOID}}
	for _, r := range s.roleList() {
		out = append(out, struct {
			name string
			oid  int64
		}{r.Name, int64(r.oid)})
	}
	return out
}

// procIn and procOut are regproc's and regprocedure's, over the
// functions pg_proc lists.
func procIn(typ uint32, text string) (eval.Datum, error) {
	return eval.Null, sqlerr.Errorf(sqlerr.UndefinedFunction, "function \"%s\" does not exist", text)
}

func procOut(typ, oid uint32) string { return "" }
