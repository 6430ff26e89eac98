package eval

import (
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Where MariaDB reads an expression fewer times than PostgreSQL's
// executor does, so that it raises its warnings fewer times:
//
//	seqd_mariadb_once(x)        a constant (no column, no subquery, no
//	                            call that may change): read once for each
//	                            execution of its query, where first read,
//	                            as MariaDB reads a constant WHERE once for
//	                            the statement, and a constant string
//	                            compared with a column as a number; a
//	                            literal is itself
//	seqd_mariadb_compare(op, l, r)
//	                            l op r, a comparison whose right side is
//	                            not read when its left is NULL (MariaDB's
//	                            1/0 = 1/0 raises one 1365)
//	seqd_mariadb_typed(x)       x, read once more as its query opens,
//	                            before its rows (and where it has none):
//	                            MariaDB reads a constant argument as it
//	                            types its function's result (REPEAT's
//	                            count), and again for each row

func init() {
	DefineCompiled("seqd_mariadb_once", CompiledFunc{Column: "seqd_mariadb_once", Compile: compileOnce})
	DefineCompiled("seqd_mariadb_compare", CompiledFunc{Column: "seqd_mariadb_compare", Compile: compileCompare})
	DefineCompiled("seqd_mariadb_typed", CompiledFunc{Column: "seqd_mariadb_typed", Compile: compileTyped})
}

// compileTyped compiles seqd_mariadb_typed(x): x, which the query whose
// select list, WHERE or HAVING holds it reads once as it opens
// (Query.typed); outside a query's clauses, x alone.
func compileTyped(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) != 1 {
		return nil, c.NoFunction("seqd_mariadb_typed", nil, fc.Location)
	}
	x, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	if c.typed != nil {
		*c.typed = append(*c.typed, x)
	}
	return x, nil
}

func compileOnce(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) != 1 {
		return nil, c.NoFunction("seqd_mariadb_once", nil, fc.Location)
	}
	x, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	if _, literal := x.(*constExpr); literal || isUnknown(x) {
		return x, nil // read alike each time, and typed where it stands
	}
	return &onceExpr{x: x}, nil
}

// onceExpr is x read once for each Env it is evaluated in: a query's
// execution evaluates its WHERE clause in one Env (Query.Open), a new
// one each time. Safe for concurrent use.
type onceExpr struct {
	x Expr

	mu  sync.Mutex
	env *Env // the Env d was read in
	d   Datum
	err error
}

func (o *onceExpr) Type() *Type { return o.x.Type() }
func (o *onceExpr) Eval(e *Env) (Datum, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.env != e {
		o.d, o.err = o.x.Eval(e)
		o.env = e
	}
	return o.d, o.err
}

func compileCompare(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) != 3 || fc.Args[0].GetAConst().GetSval() == nil {
		return nil, c.NoFunction("seqd_mariadb_compare", nil, fc.Location)
	}
	op := fc.Args[0].GetAConst().GetSval().GetSval()
	l, r, err := c.operands(sc, fc.Args[1], fc.Args[2])
	if err != nil {
		return nil, err
	}
	x, err := c.binaryExprs(op, l, r, fc.Args[1], fc.Args[2], fc.Location)
	if err != nil {
		return nil, err
	}
	if cmp, ok := x.(*cmpExpr); ok {
		cmp.skipsAfterNull = true
	}
	return x, nil
}
