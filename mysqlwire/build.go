package mysqlwire

import (
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
// executor runs, node by node: a pgsql.Statement whose Query is the
// client's own text (what pg_stat_activity shows) and whose locations are
// -1, there being no PostgreSQL text for them to index. No SQL text is
// made and none is parsed but the client's. What the builder cannot build
// is the statement's error, ER_NOT_SUPPORTED_YET naming it (unsupported).
//
// The tree says what MySQL means where PostgreSQL's grammar would read
// the same words otherwise: / divides exactly (to 4 digits past the
// point, as MariaDB's div_precision_increment) and a division by zero is
// NULL, as are DIV's and MOD's, with MariaDB's warning (CAST's too: the
// seqd_mariadb_* functions of package eval, warnings.go); XOR, <=>, IF, IFNULL and CONCAT's NULL
// are MySQL's; a number where a condition stands is true unless 0; LIKE
// ignores case, as MariaDB's default collation does; NULLs sort first,
// as MySQL sorts them; column names are not case-sensitive (the tree
// holds them in lower case, the relations name theirs so). What has no
// such tree (bit operators on MySQL's unsigned integers, date and time
// functions, window functions, ...) is refused, never answered with
// PostgreSQL's meaning.

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

// arith is l op r: * and / as MariaDB computes them, eval's
// OPERATOR(seqd_mariadb.*) and OPERATOR(seqd_mariadb./) (a DOUBLE too
// small to hold is 0, not PostgreSQL's underflow error), any other
// operator as it is.
func arith(op string, l, r *pg.Node) *pg.Node {
	n := aexpr(pg.A_Expr_Kind_AEXPR_OP, op, l, r)
	if op == "*" || op == "/" {
		n.GetAExpr().Name = []*pg.Node{strNode("seqd_mariadb"), strNode(op)}
	}
	return n
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

// typeName is a type as PostgreSQL's grammar names one of its own
// (pg_catalog.int8 for bigint, ...), with its modifiers.
func typeName(name string, mods ...int32) *pg.TypeName {
	t := &pg.TypeName{Names: []*pg.Node{strNode("pg_catalog"), strNode(name)}, Typemod: -1, Location: noLoc}
	if name == "text" { // a type name, not a keyword, for the grammar
		t.Names = t.Names[1:]
	}
	for _, m := range mods {
		t.Typmods = append(t.Typmods, aconst(&pg.A_Const{Val: &pg.A_Const_Ival{Ival: &pg.Integer{Ival: m}}}))
	}
	return t
}

// typeCast is x::t.
func typeCast(x *pg.Node, t *pg.TypeName) *pg.Node {
	return &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: x, TypeName: t, Location: noLoc}}}
}

// intConst is an integer constant.
func intConst(n int32) *pg.Node {
	return aconst(&pg.A_Const{Val: &pg.A_Const_Ival{Ival: &pg.Integer{Ival: n}}})
}

// caseWhen is CASE WHEN cond THEN then ELSE otherwise END (otherwise nil:
// no ELSE).
func caseWhen(cond, then, otherwise *pg.Node) *pg.Node {
	when := &pg.Node{Node: &pg.Node_CaseWhen{CaseWhen: &pg.CaseWhen{Expr: cond, Result: then, Location: noLoc}}}
	return &pg.Node{Node: &pg.Node_CaseExpr{CaseExpr: &pg.CaseExpr{Args: []*pg.Node{when}, Defresult: otherwise, Location: noLoc}}}
}

func coalesce(args ...*pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_CoalesceExpr{CoalesceExpr: &pg.CoalesceExpr{Args: args, Location: noLoc}}}
}

// nullIf is NULLIF(x, y).
func nullIf(x, y *pg.Node) *pg.Node { return aexpr(pg.A_Expr_Kind_AEXPR_NULLIF, "=", x, y) }

// resTarget is a select list's item named name ("": as the executor
// names it).
func resTarget(x *pg.Node, name string) *pg.Node {
	return &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: name, Val: x, Location: noLoc}}}
}

// sortBy is an ORDER BY item, NULLs sorted as MySQL sorts them: first
// going up, last going down (PostgreSQL's are the other way round).
func sortBy(x *pg.Node, desc bool) *pg.Node {
	dir, nulls := pg.SortByDir_SORTBY_ASC, pg.SortByNulls_SORTBY_NULLS_FIRST
	if desc {
		dir, nulls = pg.SortByDir_SORTBY_DESC, pg.SortByNulls_SORTBY_NULLS_LAST
	}
	return &pg.Node{Node: &pg.Node_SortBy{SortBy: &pg.SortBy{Node: x, SortbyDir: dir, SortbyNulls: nulls, Location: noLoc}}}
}

// relation is the executor's relation q in a FROM clause, as alias.
func relation(q pgsql.QName, alias string) *pg.Node {
	n := rangeVar(q.Schema, q.Rel, alias)
	n.GetRangeVar().Catalogname = q.Catalog
	return n
}
