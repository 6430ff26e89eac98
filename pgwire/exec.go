package pgwire

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/alloc"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sql"
)

// Type OIDs of the columns and parameters seqd uses.
const (
	oidBool    = 16
	oidInt8    = 20
	oidInt4    = 23
	oidText    = 25
	oidName    = 19
	oidRegtype = 2206
)

type datumKind byte

const (
	dNull datumKind = iota
	dInt
	dBool
	dText
)

// datum is one value of a row or parameter.
type datum struct {
	kind datumKind
	i    int64
	s    string
}

func intDatum(v int64) datum   { return datum{kind: dInt, i: v} }
func textDatum(s string) datum { return datum{kind: dText, s: s} }
func boolDatum(b bool) datum {
	if b {
		return datum{kind: dBool, i: 1}
	}
	return datum{kind: dBool}
}

type column struct {
	name string
	oid  uint32
}

// rowSource yields a result's rows one at a time, so that a bulk
// generate_series never materializes its rows.
type rowSource interface {
	next() ([]datum, bool, error)
}

type sliceRows struct{ rows [][]datum }

func (s *sliceRows) next() ([]datum, bool, error) {
	if len(s.rows) == 0 {
		return nil, false, nil
	}
	r := s.rows[0]
	s.rows = s.rows[1:]
	return r, true, nil
}

// result is what one statement produces.
type result struct {
	cols   []column // nil for statements that return no rows
	rows   rowSource
	tag    string // command tag; "SELECT" gets its row count appended
	notice *pgproto3.NoticeResponse
}

// session is one connection's state. It is not safe for concurrent use.
type session struct {
	eng      *engine.Engine
	seqs     alloc.Session
	lastName engine.Name // the sequence lastval refers to
	maxRows  int64       // the most rows one generate_series may produce
	regText  string      // the last sequence name resolved from text, and its Name
	regName  engine.Name
	// tx is the transaction status ReadyForQuery reports: 'I' idle, 'T' in
	// a transaction block, 'E' in a failed one. Blocks change nothing about
	// sequences (nextval is non-transactional in PostgreSQL too, and seqd's
	// DDL takes effect at once); they are tracked so that drivers see the
	// states PostgreSQL gives them.
	tx byte
}

// failed records that a statement failed: a transaction block, if one is
// open, then ignores commands until it ends.
func (s *session) failed() {
	if s.tx == 'T' {
		s.tx = 'E'
	}
}

func (s *session) transaction(st *sql.Transaction) *result {
	r := &result{tag: st.Tag}
	switch {
	case st.Tag == "BEGIN" && s.tx != 'I':
		r.notice = warning("25001", "there is already a transaction in progress")
	case st.Tag != "BEGIN" && s.tx == 'I':
		r.notice = warning("25P01", "there is no transaction in progress")
	case st.Tag == "COMMIT" && s.tx == 'E':
		r.tag = "ROLLBACK"
	}
	if st.Tag == "BEGIN" {
		if s.tx == 'I' {
			s.tx = 'T'
		}
	} else {
		s.tx = 'I'
	}
	return r
}

var showValues = map[string]string{
	"server_version":              serverVersion,
	"server_encoding":             "UTF8",
	"client_encoding":             "UTF8",
	"standard_conforming_strings": "on",
	"datestyle":                   "ISO, MDY",
	"integer_datetimes":           "on",
	"timezone":                    "UTC",
	"transaction_isolation":       "read committed",
	"search_path":                 `"$user", public`,
	"max_identifier_length":       "63",
}

func notice(code, msg string) *pgproto3.NoticeResponse {
	return &pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: code, Message: msg}
}

func warning(code, msg string) *pgproto3.NoticeResponse {
	return &pgproto3.NoticeResponse{Severity: "WARNING", SeverityUnlocalized: "WARNING", Code: code, Message: msg}
}

func engineName(q sql.QName) (engine.Name, error) {
	schema := q.Schema
	if schema == "" {
		schema = "public"
	}
	return engine.NewName(schema, q.Rel)
}

// exec runs one statement with its parameters.
func (s *session) exec(ctx context.Context, st sql.Stmt, params []datum) (*result, error) {
	if t, ok := st.(*sql.Transaction); ok {
		return s.transaction(t), nil
	}
	if s.tx == 'E' {
		return nil, &pgError{code: "25P02", msg: "current transaction is aborted, commands ignored until end of transaction block"}
	}
	switch st := st.(type) {
	case *sql.CreateSequence:
		n, err := engineName(st.Name)
		if err != nil {
			return nil, err
		}
		created, err := s.eng.Create(ctx, n, st.Spec, st.IfNotExists)
		if err != nil {
			return nil, err
		}
		r := &result{tag: "CREATE SEQUENCE"}
		if !created {
			r.notice = notice("42P07", fmt.Sprintf("relation \"%s\" already exists, skipping", n.Rel()))
		}
		return r, nil
	case *sql.AlterSequence:
		n, err := engineName(st.Name)
		if err != nil {
			return nil, err
		}
		err = s.eng.Alter(ctx, n, st.Spec)
		if st.IfExists && isNotFound(err) {
			return &result{tag: "ALTER SEQUENCE", notice: notice("00000", fmt.Sprintf("relation \"%s\" does not exist, skipping", n.Rel()))}, nil
		}
		if err != nil {
			return nil, err
		}
		return &result{tag: "ALTER SEQUENCE"}, nil
	case *sql.DropSequence:
		return s.drop(ctx, st)
	case *sql.SelectCall:
		return s.call(ctx, st, params)
	case *sql.SelectSequence:
		return s.selectSequence(st)
	case *sql.SelectPgSequences:
		return s.pgSequences(st)
	case *sql.SelectLiteral:
		d, err := resolve(st.Value, params)
		if err != nil {
			return nil, err
		}
		oid := uint32(oidText)
		switch d.kind {
		case dInt:
			oid = oidInt4
			if d.i != int64(int32(d.i)) {
				oid = oidInt8
			}
		case dBool:
			oid = oidBool
		}
		return &result{cols: []column{{st.Column, oid}}, rows: &sliceRows{[][]datum{{d}}}, tag: "SELECT"}, nil
	case *sql.Set:
		return &result{tag: st.Tag}, nil
	case *sql.Show:
		v, ok := showValues[st.Name]
		if !ok {
			return nil, &pgError{code: "42704", msg: fmt.Sprintf("unrecognized configuration parameter \"%s\"", st.Name)}
		}
		return &result{cols: []column{{st.Name, oidText}}, rows: &sliceRows{[][]datum{{textDatum(v)}}}, tag: "SHOW"}, nil
	}
	return nil, &pgError{code: "0A000", msg: fmt.Sprintf("statement %T not supported", st)}
}

func isNotFound(err error) bool { return err != nil && toErrorResponse(err).Code == "42P01" }

func (s *session) drop(ctx context.Context, st *sql.DropSequence) (*result, error) {
	r := &result{tag: "DROP SEQUENCE"}
	for _, q := range st.Names {
		n, err := engineName(q)
		if err != nil {
			return nil, err
		}
		err = s.eng.Drop(ctx, n)
		if st.IfExists && isNotFound(err) {
			r.notice = notice("00000", fmt.Sprintf("sequence \"%s\" does not exist, skipping", n.Rel()))
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// resolve turns a literal or parameter into a datum.
func resolve(v sql.Value, params []datum) (datum, error) {
	switch v.Kind {
	case sql.VInt:
		return intDatum(v.Int), nil
	case sql.VStr:
		return textDatum(v.Str), nil
	case sql.VBool:
		return boolDatum(v.Bool), nil
	case sql.VNull:
		return datum{}, nil
	case sql.VParam:
		if v.Param > len(params) {
			return datum{}, &pgError{code: "42P02", msg: fmt.Sprintf("there is no parameter $%d", v.Param), pos: v.Pos}
		}
		return params[v.Param-1], nil
	}
	return datum{}, &pgError{code: "42703", msg: fmt.Sprintf("column \"%s\" does not exist", v.Name.Rel), pos: v.Pos}
}

// resolveNames does at Parse what PostgreSQL does there: a sequence named
// by a literal (nextval('s'), SELECT ... FROM s) must exist, because
// PostgreSQL turns the literal into the sequence's OID then. Names given as
// parameters are looked up when the statement runs.
func (s *session) resolveNames(st sql.Stmt) error {
	var v sql.Value
	switch st := st.(type) {
	case *sql.SelectCall:
		if len(st.Call.Args) == 0 || st.Call.Args[0].Kind != sql.VStr && st.Call.Args[0].Kind != sql.VName {
			return nil
		}
		v = st.Call.Args[0]
	case *sql.SelectSequence:
		v = sql.Value{Kind: sql.VName, Name: st.Name}
	default:
		return nil
	}
	n, ok, err := s.seqArg(v, nil)
	if err != nil || !ok {
		return err
	}
	_, err = s.eng.Info(n)
	return err
}

// seqArg resolves a sequence-name argument. The last name given as text is
// remembered: clients repeat the same nextval('s') over and over.
func (s *session) seqArg(v sql.Value, params []datum) (engine.Name, bool, error) {
	if v.Kind == sql.VName {
		n, err := engineName(v.Name)
		return n, true, err
	}
	d, err := resolve(v, params)
	if err != nil || d.kind == dNull {
		return engine.Name{}, false, err
	}
	text := d.s
	if d.kind != dText {
		return engine.Name{}, false, &pgError{code: "42883", msg: "function argument must be a sequence name"}
	}
	if text == s.regText && text != "" {
		return s.regName, true, nil
	}
	q, err := sql.ParseRegclass(text)
	if err != nil {
		return engine.Name{}, false, err
	}
	n, err := engineName(q)
	if err == nil {
		s.regText, s.regName = text, n
	}
	return n, err == nil, err
}

func intArg(v sql.Value, params []datum) (int64, bool, error) {
	d, err := resolve(v, params)
	if err != nil || d.kind == dNull {
		return 0, false, err
	}
	switch d.kind {
	case dInt:
		return d.i, true, nil
	case dText:
		i, err := strconv.ParseInt(d.s, 10, 64)
		if err != nil {
			return 0, false, &pgError{code: "22P02", msg: fmt.Sprintf("invalid input syntax for type bigint: \"%s\"", d.s)}
		}
		return i, true, nil
	}
	return 0, false, &pgError{code: "42804", msg: "argument must be an integer"}
}

func boolArg(v sql.Value, params []datum) (bool, bool, error) {
	d, err := resolve(v, params)
	if err != nil || d.kind == dNull {
		return false, false, err
	}
	switch d.kind {
	case dBool:
		return d.i != 0, true, nil
	case dText:
		b, err := strconv.ParseBool(d.s)
		if err != nil {
			return false, false, &pgError{code: "22P02", msg: fmt.Sprintf("invalid input syntax for type boolean: \"%s\"", d.s)}
		}
		return b, true, nil
	}
	return false, false, &pgError{code: "42804", msg: "argument must be a boolean"}
}

// columns is the result shape of a statement, without running it.
func (s *session) columns(st sql.Stmt) ([]column, error) {
	switch st := st.(type) {
	case *sql.SelectCall:
		return callColumns(st.Call), nil
	case *sql.SelectSequence:
		r, err := s.selectSequence(st)
		if err != nil {
			return nil, err
		}
		return r.cols, nil
	case *sql.SelectPgSequences:
		r, err := s.pgSequences(st)
		if err != nil {
			return nil, err
		}
		return r.cols, nil
	case *sql.SelectLiteral:
		r, err := s.exec(context.Background(), st, make([]datum, 64))
		if err != nil {
			return []column{{st.Column, oidText}}, nil
		}
		return r.cols, nil
	case *sql.Show:
		return []column{{st.Name, oidText}}, nil
	}
	return nil, nil
}
