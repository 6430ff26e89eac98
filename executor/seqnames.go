// Sequences named in SQL: by text (nextval('s')), by OID (regclass), and
// the functions that read a sequence by its OID (pg_sequence_last_value,
// obj_description, pg_sequence_parameters).

package executor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// sequenceByText resolves the text form of a sequence name, which must
// exist. The last name resolved is remembered: clients repeat the same
// nextval('s'), and it stands until a name could resolve differently.
func (s *Session) sequenceByText(text string) (engine.Name, error) {
	epoch := s.planEpoch()
	if text == s.regText && epoch == s.regEpoch && text != "" {
		return s.regName, nil
	}
	q, err := pgsql.ParseQualifiedName(text)
	if err != nil {
		return engine.Name{}, err
	}
	n, err := s.sequenceByQName(q)
	if err != nil {
		return engine.Name{}, err
	}
	s.regText, s.regName, s.regEpoch = text, n, epoch
	return n, nil
}

// sequenceByQName resolves a sequence's name, as sequenceByText its text:
// a relation that is not a sequence is 42809, as in PostgreSQL 15.
func (s *Session) sequenceByQName(q pgsql.QName) (engine.Name, error) {
	n, err := s.lookupSequence(q)
	if err != nil {
		if rel, rerr := s.resolveRelation(q); rerr == nil && rel.kind != 'S' {
			return engine.Name{}, sqlerr.Errorf(sqlerr.WrongObjectType, "\"%s\" is not a sequence", q.Rel)
		}
		return engine.Name{}, err
	}
	return n, nil
}

// sequenceByOID names the sequence an OID (a regclass value) stands for.
func (s *Session) sequenceByOID(oid uint32) (engine.Name, error) {
	n, id, ok := s.oids().sequence(oid)
	if info, err := s.engFor(n).Info(n); ok && (errors.Is(err, engine.ErrNotFound) || err == nil && info.ID != id) {
		ok = false // dropped, or dropped and created again
	}
	if !ok {
		if rel := catalogByOID(oid); rel != nil {
			return engine.Name{}, sqlerr.Errorf(sqlerr.WrongObjectType, "\"%s\" is not a sequence", rel.name)
		}
		return engine.Name{}, sqlerr.Errorf(sqlerr.UndefinedTable, "could not open relation with OID %d", oid)
	}
	return n, nil
}

// regclassIn is regclass's input function: a relation name (a sequence or
// a catalog relation) along the search path, or a numeric OID.
func (s *Session) regclassIn(text string) (eval.Datum, error) {
	if t := strings.TrimSpace(text); t != "" && t[0] >= '0' && t[0] <= '9' {
		d, err := s.Input(eval.TOid, t)
		if err != nil {
			return eval.Null, err
		}
		return s.regclassOf(uint32(d.I)), nil
	}
	q, err := pgsql.ParseQualifiedName(text)
	if err != nil {
		return eval.Null, err
	}
	rel, err := s.resolveRelation(q)
	if err != nil {
		return eval.Null, err
	}
	if rel.kind != 'S' {
		return s.regclassOf(rel.oid), nil
	}
	n, _ := engine.NewName(rel.schema, rel.name)
	return eval.Datum{Kind: eval.KInt, I: int64(rel.oid), S: s.displayRel(n)}, nil
}

// regclassOf is the regclass value of an OID, named if it is known.
func (s *Session) regclassOf(oid uint32) eval.Datum {
	if n, _, ok := s.oids().sequence(oid); ok {
		return eval.Datum{Kind: eval.KInt, I: int64(oid), S: s.displayRel(n)}
	}
	if rel := catalogByOID(oid); rel != nil {
		name := pgsql.QuoteIdent(rel.name)
		if !s.catalogVisible(rel) {
			name = pgsql.QuoteIdent(rel.schema) + "." + name
		}
		return eval.Datum{Kind: eval.KInt, I: int64(oid), S: name}
	}
	return eval.Datum{Kind: eval.KInt, I: int64(oid), S: fmt.Sprint(oid)}
}

func (s *Session) sequenceLastValue(oid uint32) (eval.Datum, error) {
	n, err := s.sequenceByOID(oid)
	if err != nil {
		return eval.Null, err
	}
	if err := s.checkPrivilege(n, engine.PrivUsage|engine.PrivSelect); err != nil {
		return eval.Null, err
	}
	info, err := s.engFor(n).Info(n)
	if err == nil {
		info, err = s.reserved(info)
	}
	if err != nil {
		return eval.Null, err
	}
	if !info.State.Called {
		return eval.Null, nil
	}
	return eval.Int(info.Options.Value(info.State.Last)), nil
}

// sequenceComment is obj_description() of a relation: its comment, NULL if
// it has none.
func (s *Session) sequenceComment(oid uint32) eval.Datum {
	n, err := s.sequenceByOID(oid)
	if err != nil {
		return eval.Null
	}
	if c, err := s.engFor(n).Comment(n); err == nil && c != "" {
		return eval.Text(c)
	}
	return eval.Null
}

// sequenceParametersColumns are pg_sequence_parameters' result columns.
var sequenceParametersColumns = eval.Columns("start_value", eval.TInt8, "minimum_value", eval.TInt8, "maximum_value", eval.TInt8, "increment", eval.TInt8,
	"cycle_option", eval.TBool, "cache_size", eval.TInt8, "data_type", eval.TOid)

// compileSequenceParameters compiles FROM pg_sequence_parameters(oid).
func compileSequenceParameters(c *eval.Compiler, sc *eval.Scope, fc *pg.FuncCall) (eval.Expr, error) {
	if len(fc.Args) != 1 {
		return nil, c.ErrAt(fc.Location, sqlerr.UndefinedFunction, "function pg_sequence_parameters does not exist")
	}
	arg, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	if arg, err = c.Coerce(arg, eval.TOid, eval.Location(fc.Args[0]), "argument"); err != nil {
		return nil, err
	}
	return &sequenceParameters{arg: arg}, nil
}

// sequenceParameters is pg_sequence_parameters(oid): a sequence's options.
type sequenceParameters struct{ arg eval.Expr }

func (p *sequenceParameters) Type() *eval.Type          { return eval.TInt8 }
func (p *sequenceParameters) Columns() []eval.RelColumn { return sequenceParametersColumns }
func (p *sequenceParameters) Eval(e *eval.Env) (eval.Datum, error) {
	row, err := p.EvalRow(e)
	if err != nil || row == nil {
		return eval.Null, err
	}
	return row[0], nil
}

func (p *sequenceParameters) EvalRow(e *eval.Env) ([]eval.Datum, error) {
	d, err := p.arg.Eval(e)
	if err != nil || d.Kind == eval.KNull {
		return nil, err
	}
	s := sessionOf(e)
	n, err := s.sequenceByOID(uint32(d.I))
	if err != nil {
		return nil, err
	}
	// PostgreSQL 15: SELECT, UPDATE or USAGE on the sequence.
	if p, err := s.privilegesOn(n); err != nil {
		return nil, err
	} else if p&(engine.PrivSelect|engine.PrivUpdate|engine.PrivUsage) == 0 {
		return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for sequence %s", n.Rel())
	}
	info, err := s.engFor(n).Info(n)
	if err != nil {
		return nil, err
	}
	o := info.Options
	return []eval.Datum{eval.Int(o.Start), eval.Int(o.Min), eval.Int(o.Max), eval.Int(o.Increment), eval.Bool(o.Cycle), eval.Int(o.Cache),
		eval.Int(int64(eval.TypeByName(sqlTypeName(o.Type.String())).OID()))}, nil
}
