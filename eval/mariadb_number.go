package eval

import (
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// A string where MariaDB wants a number, whose type the MySQL front end's
// builder cannot tell before the evaluator resolves it (a column, a
// function's result), read as MariaDB reads it:
//
//	seqd_mariadb_number(x)     an operand of arithmetic: a string read
//	                           as a DOUBLE as far as it is a number
//	                           (seqd_mariadb_double's 1292); another
//	                           type, x itself
//	seqd_mariadb_number(x, y)  x compared with y: a string compared with
//	                           an integer read as a DECIMAL, with a
//	                           decimal or a double as a DOUBLE (1292);
//	                           else x itself (y is compiled for its type
//	                           only, never evaluated)

func init() {
	DefineCompiled("seqd_mariadb_number", CompiledFunc{Column: "seqd_mariadb_number", Compile: compileNumber})
}

// compileNumber compiles seqd_mariadb_number.
func compileNumber(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) < 1 || len(fc.Args) > 2 {
		return nil, c.NoFunction("seqd_mariadb_number", nil, fc.Location)
	}
	x, err := c.Expr(sc, fc.Args[0])
	if err != nil {
		return nil, err
	}
	if !isStringTyped(x) {
		return x, nil
	}
	read := "DOUBLE"
	if len(fc.Args) == 2 {
		y, err := c.Expr(sc, fc.Args[1])
		if err != nil {
			return nil, err
		}
		switch t := y.Type(); {
		case isUnknown(y) || t.Category() != 'N':
			return x, nil // compared as strings, or as PostgreSQL compares
		case t == TInt2 || t == TInt4 || t == TInt8:
			read = "DECIMAL"
		}
	}
	x = c.settle(x)
	if read == "DECIMAL" {
		return &funcExpr{t: tNumeric, fn: readDecimal, args: []Expr{x}, strict: true}, nil
	}
	return &funcExpr{t: TFloat8, fn: readDouble, args: []Expr{x}, strict: true}, nil
}

// isStringTyped reports whether x is a string: of a string type, or a
// string literal not yet typed (not a parameter, which takes its type
// from where it stands).
func isStringTyped(x Expr) bool {
	if _, param := x.(*paramExpr); param {
		return false
	}
	return x.Type() == tUnknown || x.Type().Category() == 'S'
}

// readDecimal reads a string as a DECIMAL as far as it is a number.
func readDecimal(e *Env, a []Datum) (Datum, error) {
	prefix, kind := NumberPrefix(a[0].S, false)
	if kind != 0 {
		e.Warn(Warning{Kind: kind, Type: "DECIMAL", Value: a[0].S})
	}
	return numericIn(prefix)
}

// readDouble reads a string as a DOUBLE as far as it is a number, past
// DOUBLE's range its bound.
func readDouble(e *Env, a []Datum) (Datum, error) {
	prefix, kind := NumberPrefix(a[0].S, false)
	if bound, out := doubleBound(prefix); out {
		prefix, kind = bound, Truncated
	}
	if kind != 0 {
		e.Warn(Warning{Kind: kind, Type: "DOUBLE", Value: a[0].S})
	}
	f, err := strconv.ParseFloat(prefix, 64)
	if err != nil {
		return Null, err
	}
	return Float(f), nil
}
