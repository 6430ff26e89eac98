package executor

import (
	"slices"
	"strings"

	"github.com/seqd/seqd/engine"
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
			if r.Name == parts[0] {
				return eval.Datum{Kind: eval.KInt, I: int64(r.OID), S: pgsql.QuoteIdent(r.Name)}, nil
			}
		}
		return eval.Null, sqlerr.Errorf(sqlerr.UndefinedObject, "role \"%s\" does not exist", parts[0])
	}
	return s.procIn(typ, text)
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
			if r.OID == oid {
				d.S = pgsql.QuoteIdent(r.Name)
			}
		}
	default:
		d.S = s.procOut(typ, oid)
	}
	return d
}

// regRoles are the roles regrole knows: seqd's, and the predefined role
// that owns the public schema.
func (s *Session) regRoles() []roleRow {
	return append(s.roleList(), roleRow{Role: engine.Role{Name: "pg_database_owner"}, OID: dbOwnerOID})
}

// procIn is regproc's and regprocedure's input: a function's name
// (regproc: one function only), or its name and argument types.
func (s *Session) procIn(typ uint32, text string) (eval.Datum, error) {
	b := s.builtins()
	name, args, hasArgs := strings.Cut(strings.TrimSpace(text), "(")
	parts, ok := pgsql.SplitIdentifiers(name, '.')
	if !ok || len(parts) == 0 || len(parts) > 2 || len(parts) == 2 && parts[0] != "pg_catalog" {
		return eval.Null, sqlerr.Errorf(sqlerr.InvalidName, "invalid name syntax")
	}
	fn := parts[len(parts)-1]
	oids := b.Named(fn)
	if typ == eval.OIDRegproc || !hasArgs {
		switch {
		case typ == eval.OIDRegprocedure:
			return eval.Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "expected a left parenthesis")
		case len(oids) == 0:
			return eval.Null, sqlerr.Errorf(sqlerr.UndefinedFunction, "function \"%s\" does not exist", text)
		case len(oids) > 1:
			return eval.Null, sqlerr.Errorf(sqlerr.AmbiguousFunction, "more than one function named \"%s\"", text)
		}
		return s.regOut(typ, oids[0]), nil
	}
	args, ok = strings.CutSuffix(strings.TrimSpace(args), ")")
	if !ok {
		return eval.Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "expected a right parenthesis")
	}
	var want []uint32
	if strings.TrimSpace(args) != "" {
		for _, a := range strings.Split(args, ",") {
			t, err := s.Input(eval.TRegtype, strings.TrimSpace(a))
			if err != nil {
				return eval.Null, err
			}
			want = append(want, uint32(t.I))
		}
	}
	for _, oid := range oids {
		if p, _ := b.Proc(oid); slices.Equal(p.Args, want) {
			return s.regOut(typ, oid), nil
		}
	}
	return eval.Null, sqlerr.Errorf(sqlerr.UndefinedFunction, "function %s does not exist", strings.TrimSpace(text))
}

// procOut is a function's regproc (its name) or regprocedure (its name
// and argument types) text, "" for an OID that is none.
func (s *Session) procOut(typ, oid uint32) string { return s.builtins().RegOut(typ, oid).S }
