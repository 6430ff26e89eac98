package mysqlwire

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// MariaDB's diagnostics area, as a connection keeps it: the notes,
// warnings and errors statements raise, which SHOW WARNINGS, SHOW
// ERRORS, SHOW COUNT(*) WARNINGS|ERRORS, @@warning_count and
// @@error_count read, and whose number for the statement just run the
// OK and EOF packets carry. MariaDB 10.11's rules, as its server shows
// them (the oracle compares SHOW WARNINGS after every statement):
//
//  1. A statement that uses a table (a sequence, information_schema, a
//     derived table; every SHOW but SHOW WARNINGS, SHOW ERRORS and SHOW
//     CREATE DATABASE; DESCRIBE, LOCK TABLES, FLUSH TABLES t) clears the list
//     before it runs; one that uses none (SELECT 1, SET, USE, BEGIN,
//     CREATE DATABASE, UNLOCK TABLES) leaves it as it was, unless it
//     raises a condition itself: its first one clears the list.
//  2. SHOW WARNINGS and SHOW ERRORS neither clear nor add.
//  3. A failed statement's error is a row of level Error; where MariaDB
//     raises two (a missing sequence called: 4091, then 1146 naming the
//     table), both are rows.
//  4. The list keeps at most max_error_count (64) conditions; the counts
//     count them all.
//
// The executor's notices of IF EXISTS and IF NOT EXISTS are PostgreSQL's
// words; each statement says which MariaDB note they are (step.noted),
// by their kind or by its own knowledge of the names, never by their
// text. Its expressions' warnings (eval.Warning, taken from the session
// after each statement: a division by zero, a CAST that truncates, a
// negative CAST AS UNSIGNED) come before a failed statement's error, in
// the order raised, each as MariaDB words it (exprCondition).

// maxErrorCount is MariaDB's max_error_count default: the conditions the
// list keeps.
const maxErrorCount = 64

// MariaDB's condition levels, as SHOW WARNINGS words them.
const (
	levelNote    = "Note"
	levelWarning = "Warning"
	levelError   = "Error"
)

// condition is one row of SHOW WARNINGS.
type condition struct {
	level string
	code  uint16
	msg   string
}

// note is a condition of level Note.
func note(code uint16, format string, args ...any) condition {
	return condition{levelNote, code, fmt.Sprintf(format, args...)}
}

// diagnostics is a connection's diagnostics area.
type diagnostics struct {
	list []condition
	// count and errors are @@warning_count and @@error_count: the list's
	// conditions and its errors, those it did not keep too.
	count, errors int
	// stmt is how many conditions the statement running (or last run)
	// raised: the OK and EOF packets' warning count.
	stmt int
	// fresh: the running statement has cleared the list (rule 1), so its
	// conditions are added to it.
	fresh bool
}

// start begins a statement; clears: it uses a table (rule 1).
func (d *diagnostics) start(clears bool) {
	d.stmt, d.fresh = 0, false
	if clears {
		d.clear()
	}
}

func (d *diagnostics) clear() {
	d.list, d.count, d.errors, d.fresh = d.list[:0], 0, 0, true
}

// push adds a condition the running statement raised.
func (d *diagnostics) push(c condition) {
	if !d.fresh {
		d.clear()
	}
	d.stmt++
	d.count++
	if c.level == levelError {
		d.errors++
	}
	if len(d.list) < maxErrorCount {
		d.list = append(d.list, c)
	}
}

// pushUnkept counts n conditions the running statement raised beyond
// those it pushed, which the list has no room for (rule 4).
func (d *diagnostics) pushUnkept(n int) {
	if n <= 0 {
		return
	}
	if !d.fresh {
		d.clear()
	}
	d.stmt += n
	d.count += n
}

// exprConditions are MariaDB's conditions for a statement's expressions'
// warnings, each raised for the row of the result rows says (1 for one
// raised before the first). A 1264 names that row; in a statement that
// reads no table (readsTable false), row 0 after another warning, as
// MariaDB counts it.
func exprConditions(ws []eval.Warning, rows []int, readsTable bool) []condition {
	out := make([]condition, len(ws))
	for i, w := range ws {
		row := 1
		if i < len(rows) {
			row = rows[i]
		}
		if i > 0 && !readsTable {
			row = 0
		}
		out[i] = exprCondition(w, row)
	}
	return out
}

// rowWarnings are a statement's expressions' warnings, taken from the
// session as its result's rows are read, so that each is known by the
// row it was raised for, as MariaDB's 1264 names it (at row n: the
// rows sent before it, and one). The first maxErrorCount are kept;
// count counts them all. Not safe for concurrent use (a connection's).
type rowWarnings struct {
	kept  []eval.Warning
	rows  []int
	count int
}

// take takes the warnings sess raised since last asked as row's.
func (r *rowWarnings) take(sess interface {
	TakeWarnings() ([]eval.Warning, int)
}, row int) {
	kept, count := sess.TakeWarnings()
	for _, w := range kept {
		if len(r.kept) < maxErrorCount {
			r.kept, r.rows = append(r.kept, w), append(r.rows, row)
		}
	}
	r.count += count
}

func (r *rowWarnings) reset() { *r = rowWarnings{kept: r.kept[:0], rows: r.rows[:0]} }

// exprCondition is MariaDB's condition for an expression's warning,
// raised for row (which a 1264 names).
func exprCondition(w eval.Warning, row int) condition {
	switch w.Kind {
	case eval.DivisionByZero:
		return condition{levelWarning, 1365, "Division by 0"}
	case eval.Truncated:
		return condition{levelWarning, 1292, "Truncated incorrect " + w.Type + " value: '" + w.Value + "'"}
	case eval.TruncatedSpaces:
		return condition{levelNote, 1292, "Truncated incorrect " + w.Type + " value: '" + w.Value + "'"}
	case eval.NegativeUnsigned:
		return condition{levelNote, 1105, "Cast to unsigned converted negative integer to it's positive complement"}
	case eval.SignedComplement:
		return condition{levelNote, 1105, "Cast to signed converted positive out-of-range integer to it's negative complement"}
	case eval.Overflow:
		return condition{levelWarning, 1916, "Got overflow when converting '" + w.Value + "' to " + w.Type + ". Value truncated"}
	case eval.DoubleOverflow:
		return condition{levelNote, 1916, "Got overflow when converting '" + w.Value + "' to " + w.Type + ". Value truncated"}
	case eval.OutOfRange:
		return condition{levelWarning, 1264, "Out of range value for column '" + w.Value + "' at row " + strconv.Itoa(row)}
	case eval.IllegalValue:
		return condition{levelWarning, 1918, "Encountered illegal value '' when converting to " + w.Type}
	case eval.PacketOverflow:
		return condition{levelWarning, 1301, "Result of " + w.Type + "() was larger than max_allowed_packet (" + w.Value + ") - truncated"}
	}
	return condition{levelWarning, 1105, "Unknown warning"}
}

// failed adds a failed statement's error (rule 3).
func (d *diagnostics) failed(err error) {
	me := toSQLError(err)
	d.push(condition{levelError, uint16(me.Num), me.Message})
	var also *alsoRaised
	if errors.As(err, &also) {
		for _, c := range also.conds {
			d.push(c)
		}
	}
}

// warningCount is the OK and EOF packets' warning count.
func (d *diagnostics) warningCount() uint16 { return uint16(min(d.stmt, 0xffff)) }

// alsoRaised is an error after which MariaDB raises more conditions
// (rule 3): the client gets err, SHOW WARNINGS shows err and conds.
type alsoRaised struct {
	err   error
	conds []condition
}

func (e *alsoRaised) Error() string { return e.err.Error() }
func (e *alsoRaised) Unwrap() error { return e.err }

// unknownSequence is MariaDB's error for a sequence a statement calls or
// alters that is not there: 4091 naming it as written, then 1146 naming
// its table in its database.
func unknownSequence(s seqName) error {
	return &alsoRaised{mysql.NewSQLError(4091, "42S02", "Unknown SEQUENCE: '%s'", s.name),
		[]condition{{levelError, 1146, "Table '" + s.named + "' doesn't exist"}}}
}

// noticed is a step's noted for a statement of one object: the note
// MariaDB raises when the executor gave a notice of kind (any kind:
// sqlerr.Kind("")).
func noticed(kind sqlerr.Kind, c condition) func([]executor.Notice) []condition {
	return func(ns []executor.Notice) []condition {
		for _, n := range ns {
			if kind == "" || n.Kind == kind {
				return []condition{c}
			}
		}
		return nil
	}
}

// unknownNote is MariaDB's note for DROP or ALTER SEQUENCE IF EXISTS of
// sequences not there, named together.
func unknownNote(named string) condition {
	return note(4091, "Unknown SEQUENCE: '%s'", named)
}

// translateShowWarnings is SHOW WARNINGS and SHOW ERRORS, and SHOW
// COUNT(*) WARNINGS|ERRORS. (TiDB's grammar takes no LIMIT after SHOW
// WARNINGS: rename takes it out, and limited applies it.)
func translateShowWarnings(n *ast.ShowStmt) (step, error) {
	errorsOnly := n.Tp == ast.ShowErrors
	if n.CountWarningsOrErrors {
		return step{answer: func(c *conn) (*answer, error) {
			name, v := "@@session.warning_count", c.diag.count
			if errorsOnly {
				name, v = "@@session.error_count", c.diag.errors
			}
			return &answer{cols: []string{name}, rows: [][]any{{int64(v)}}, types: []colType{tUnsignedVariable}}, nil
		}}, nil
	}
	return step{answer: func(c *conn) (*answer, error) { return &answer{typed: c.diag.rows(errorsOnly)}, nil }}, nil
}

// limited is st, SHOW WARNINGS or SHOW ERRORS, answering l's rows only.
func (l showLimit) limited(st step) step {
	all := st.answer
	if all == nil {
		return st
	}
	st.answer = func(c *conn) (*answer, error) {
		a, err := all(c)
		if err != nil || a == nil || a.typed == nil {
			return a, err
		}
		res := *a.typed
		from := min(l.offset, len(res.Rows))
		res.Rows = res.Rows[from : from+min(l.count, len(res.Rows)-from)]
		return &answer{typed: &res}, nil
	}
	return st
}

// rows is SHOW WARNINGS's result (errorsOnly: SHOW ERRORS's), with
// MariaDB's columns: Level and Message VARCHAR, Code INT UNSIGNED, none
// NULL.
func (d *diagnostics) rows(errorsOnly bool) *sqltypes.Result {
	out := &sqltypes.Result{Fields: []*querypb.Field{{}, {}, {}}}
	textExpr(7, true).setField(out.Fields[0], "Level")
	colType{typ: querypb.Type_UINT32, length: 4, notNull: true, known: true}.setField(out.Fields[1], "Code")
	textExpr(512, true).setField(out.Fields[2], "Message")
	for _, c := range d.list {
		if errorsOnly && c.level != levelError {
			continue
		}
		out.Rows = append(out.Rows, []sqltypes.Value{sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(c.level)),
			sqltypes.MakeTrusted(querypb.Type_UINT32, strconv.AppendUint(nil, uint64(c.code), 10)),
			sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(c.msg))})
	}
	return out
}

// countVariable is @@warning_count or @@error_count; ok is false for
// another name.
func (d *diagnostics) countVariable(name string) (string, bool) {
	switch name {
	case "warning_count":
		return strconv.Itoa(d.count), true
	case "error_count":
		return strconv.Itoa(d.errors), true
	}
	return "", false
}

// missingKind reports whether err is the executor's for a relation or
// schema that is not there.
func missingKind(err error) bool {
	k := frontend.KindOf(err)
	return k == sqlerr.UndefinedTable || k == sqlerr.UndefinedSchema
}

// usesTable reports whether MariaDB counts st as a statement that uses
// a table (rule 1), a query aside (builtQuery says for those).
func usesTable(st ast.StmtNode) bool {
	switch n := st.(type) {
	case *ast.ShowStmt:
		return n.Tp != ast.ShowWarnings && n.Tp != ast.ShowErrors && n.Tp != ast.ShowCreateDatabase
	case *ast.CreateSequenceStmt, *ast.AlterSequenceStmt, *ast.DropSequenceStmt, *ast.RenameTableStmt, *ast.AlterTableStmt,
		*ast.LockTablesStmt:
		return true
	case *ast.FlushStmt:
		return len(n.Tables) > 0
	case *ast.ExplainStmt: // DESCRIBE s
		return true
	}
	return false
}

// readsTable reports whether q reads a table: a FROM clause of a
// table, information_schema's or a derived one (FROM DUAL is none), or
// a set operation in parentheses within another, which MariaDB makes a
// derived table ((SELECT 1 UNION SELECT 2) UNION SELECT 3).
func readsTable(q ast.Node) bool {
	var v tableFinder
	q.Accept(&v)
	return v.found
}

type tableFinder struct{ found bool }

func (v *tableFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.TableSource:
		v.found = true
	case *ast.SetOprSelectList:
		for _, q := range n.Selects {
			if l, ok := q.(*ast.SetOprSelectList); ok && len(l.Selects) > 1 {
				v.found = true
			}
		}
	}
	return n, v.found
}

func (v *tableFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
