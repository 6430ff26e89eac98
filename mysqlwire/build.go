package mysqlwire

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/seqd/seqd/pgsql"
)

// MySQL's statements are compiled once: TiDB's tree of a statement,
// translated (dialect.go), is built into the PostgreSQL parse tree the
// executor runs, node by node, as PostgreSQL's grammar would have parsed
// the statement's text: a pgsql.Statement whose Query is the client's own
// text (what pg_stat_activity shows) and whose locations are -1, there
// being no PostgreSQL text for them to index.
//
// What the builder does not convert yet is written out as PostgreSQL
// text and parsed again, as every statement was before (restore); the
// builder says so with errNotBuilt, and builtStatements's test lists
// which statements of the corpus still take that way.

// errNotBuilt: the statement holds a node the builder does not convert.
var errNotBuilt = errors.New("mysqlwire: a node the builder does not convert")

// notBuilt is errNotBuilt, for what.
func notBuilt(what string) error { return &notBuiltError{what} }

type notBuiltError struct{ what string }

func (e *notBuiltError) Error() string { return "mysqlwire: not built: " + e.what }
func (e *notBuiltError) Unwrap() error { return errNotBuilt }

// treeFactor is how many bytes of Go memory a parse tree takes per byte
// of its protobuf encoding, as pgsql's parse cache counts it.
const treeFactor = 20

// statement is a built tree as the executor's statement, text the
// client's statement.
func statement(node *pg.Node, text string) *pgsql.Statement {
	return &pgsql.Statement{Node: node, Query: text, Start: 0, End: len(text), Cost: treeFactor * int64(proto.Size(node))}
}

// noLoc is the location of a node built here: none.
const noLoc = -1

func strNode(s string) *pg.Node {
	return &pg.Node{Node: &pg.Node_String_{String_: &pg.String{Sval: s}}}
}

func aconst(c *pg.A_Const) *pg.Node {
	c.Location = noLoc
	return &pg.Node{Node: &pg.Node_AConst{AConst: c}}
}

func strConst(s string) *pg.Node {
	return aconst(&pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: s}}})
}

func nullConst() *pg.Node { return aconst(&pg.A_Const{Isnull: true}) }

func boolConst(b bool) *pg.Node {
	return aconst(&pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: b}}})
}

// numConst is a number as PostgreSQL's scanner reads text: an integer
// that fits 32 bits as one, any other number as its text.
func numConst(text string) *pg.Node {
	if n, err := strconv.ParseInt(text, 10, 32); err == nil {
		return aconst(&pg.A_Const{Val: &pg.A_Const_Ival{Ival: &pg.Integer{Ival: int32(n)}}})
	}
	return aconst(&pg.A_Const{Val: &pg.A_Const_Fval{Fval: &pg.Float{Fval: text}}})
}

// numValue is a number as a sequence option's value (NumericOnly).
func numValue(text string) *pg.Node {
	if n, err := strconv.ParseInt(text, 10, 32); err == nil {
		return &pg.Node{Node: &pg.Node_Integer{Integer: &pg.Integer{Ival: int32(n)}}}
	}
	return &pg.Node{Node: &pg.Node_Float{Float: &pg.Float{Fval: text}}}
}

func listNode(items []*pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: items}}}
}

// columnRef is a column (or, for the sequence functions, a sequence)
// named by its parts.
func columnRef(parts ...string) *pg.Node {
	fields := make([]*pg.Node, 0, len(parts))
	for _, p := range parts {
		if p != "" {
			fields = append(fields, strNode(p))
		}
	}
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: fields, Location: noLoc}}}
}

func funcCall(name string, args []*pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_FuncCall{FuncCall: &pg.FuncCall{Funcname: []*pg.Node{strNode(name)}, Args: args,
		Funcformat: pg.CoercionForm_COERCE_EXPLICIT_CALL, Location: noLoc}}}
}

func aexpr(kind pg.A_Expr_Kind, op string, l, r *pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_AExpr{AExpr: &pg.A_Expr{Kind: kind, Name: []*pg.Node{strNode(op)}, Lexpr: l, Rexpr: r, Location: noLoc}}}
}

func boolExpr(op pg.BoolExprType, args ...*pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: op, Args: args, Location: noLoc}}}
}

func rangeVar(schema, name, alias string) *pg.Node {
	rv := &pg.RangeVar{Schemaname: schema, Relname: name, Inh: true, Relpersistence: "p", Location: noLoc}
	if alias != "" {
		rv.Alias = &pg.Alias{Aliasname: alias}
	}
	return &pg.Node{Node: &pg.Node_RangeVar{RangeVar: rv}}
}

func selectNode(s *pg.SelectStmt) *pg.Node {
	if s.LimitOption == pg.LimitOption_LIMIT_OPTION_UNDEFINED {
		s.LimitOption = pg.LimitOption_LIMIT_OPTION_DEFAULT
	}
	if s.Op == pg.SetOperation_SET_OPERATION_UNDEFINED {
		s.Op = pg.SetOperation_SETOP_NONE
	}
	return &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: s}}
}

// pgText reports whether s can stand in PostgreSQL's text: valid UTF-8
// without NUL (libpg_query reads C strings).
func pgText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// funcName is the function a call of name stands for in PostgreSQL, as
// its grammar reads name unquoted: lower case; false for a name its
// grammar reads as something else than a plain call (a keyword that is
// not unreserved: COALESCE, CURRENT_DATE, ...), or does not read as a
// name.
func funcName(name string) (string, bool) {
	lower := asciiLower(name)
	if v, ok := funcNames.Load(lower); ok {
		return lower, v.(bool)
	}
	ok := plainName(lower) && !pgsql.IsReservedKeyword(lower)
	funcNames.Store(lower, ok)
	return lower, ok
}

// funcNames caches funcName's verdicts, by lower-case name.
var funcNames sync.Map

// plainName reports whether s is an identifier PostgreSQL reads unquoted.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '$') {
			continue
		}
		return false
	}
	return true
}

// asciiLower lowers A-Z alone, as PostgreSQL lowers an unquoted name.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
