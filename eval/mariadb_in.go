package eval

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// IN and BETWEEN as MariaDB reads them, where strings and numbers meet
// or an operand may raise a warning or change as it is read:
//
//	seqd_mariadb_in(types, x, a1, ..., an)
//	                           x IN (a1, ..., an), the list read in
//	                           order up to its first match. Each ai is
//	                           compared with x in the type MariaDB
//	                           compares the pair in, of types (a letter
//	                           each for x, a1, ...: i an integer, d a
//	                           DECIMAL, r a DOUBLE, s a string, q a
//	                           string read as a number without 1292, as
//	                           MariaDB reads a user variable's): two
//	                           integers as integers, two strings as
//	                           strings (by utf8mb4_general_ci, as
//	                           seqd_mariadb_ci compares them), a string and an integer as
//	                           DECIMALs, a string and a DECIMAL or a
//	                           DOUBLE as DOUBLEs, else as numbers; the
//	                           string read as far as it is a number
//	                           (1292). x is read once for each type it
//	                           is compared in, as MariaDB reads it (a
//	                           call in it is made as often); an ai that
//	                           is NULL is passed by
//	seqd_mariadb_case(types, x, w1, ..., wn)
//	                           CASE x WHEN w1 ... WHEN wn's choice: the
//	                           number of the first wi equal to x (1 to
//	                           n), 0 where none is, each pair compared
//	                           and read as seqd_mariadb_in compares and
//	                           reads it (MariaDB's simple CASE compares
//	                           as its IN does)
//	seqd_mariadb_between(x, lo, hi)
//	                           x BETWEEN lo AND hi, x read once, the
//	                           bounds not read when x is NULL, both read
//	                           else; all three numbers or all strings,
//	                           or NULL (the MySQL front end reads strings
//	                           among numbers as numbers first); strings
//	                           compared by utf8mb4_general_ci
//
// PostgreSQL's IN reads its whole list, and its BETWEEN its operand
// against each bound; its statements call neither.

func init() {
	DefineCompiled("seqd_mariadb_in", CompiledFunc{Column: "seqd_mariadb_in", Compile: compileIn})
	DefineCompiled("seqd_mariadb_case", CompiledFunc{Column: "seqd_mariadb_case", Compile: compileCase})
	DefineCompiled("seqd_mariadb_between", CompiledFunc{Column: "seqd_mariadb_between", Compile: compileBetween})
}

// compileIn compiles seqd_mariadb_in.
func compileIn(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	return compileInList(c, sc, fc, "seqd_mariadb_in")
}

// compileCase compiles seqd_mariadb_case.
func compileCase(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	in, err := compileInList(c, sc, fc, "seqd_mariadb_case")
	if err != nil {
		return nil, err
	}
	return &mariadbCase{in: in}, nil
}

// compileInList compiles the arguments seqd_mariadb_in and
// seqd_mariadb_case (name) take.
func compileInList(c *Compiler, sc *Scope, fc *pg.FuncCall, name string) (*mariadbIn, error) {
	var types string
	if len(fc.Args) > 2 {
		if s := fc.Args[0].GetAConst().GetSval(); s != nil {
			types = s.GetSval()
		}
	}
	if len(types) != len(fc.Args)-1 || !validCompareTypes(types) {
		return nil, c.NoFunction(name, nil, fc.Location)
	}
	xs := make([]Expr, len(fc.Args)-1)
	for i, n := range fc.Args[1:] {
		x, err := c.Expr(sc, n)
		if err != nil {
			return nil, err
		}
		xs[i] = c.settle(x)
	}
	in := &mariadbIn{x: xs[0], list: xs[1:], pairs: make([]byte, len(xs)-1), quiet: make([]bool, len(xs))}
	letters := []byte(types)
	for i, t := range letters {
		if t == 'q' {
			letters[i], in.quiet[i] = 's', true
		}
	}
	for i := range in.list {
		in.pairs[i] = pairType(letters[0], letters[i+1])
	}
	return in, nil
}

func validCompareTypes(types string) bool {
	for _, t := range []byte(types) {
		if t != 'i' && t != 'd' && t != 'r' && t != 's' && t != 'q' {
			return false
		}
	}
	return true
}

// pairType is the type MariaDB compares a value of type a with one of
// type b in: i, d, r or s (compileIn's letters).
func pairType(a, b byte) byte {
	switch {
	case a == b:
		return a
	case a == 'r' || b == 'r':
		return 'r'
	case a == 'i' || b == 'i': // an integer and a string or a DECIMAL
		return 'd'
	}
	return 'r' // a DECIMAL and a string
}

// mariadbIn is seqd_mariadb_in.
type mariadbIn struct {
	x     Expr
	list  []Expr
	pairs []byte // the type each of list is compared with x in
	// quiet tells which of x and list (x first) are read as numbers
	// without 1292.
	quiet []bool
}

func (in *mariadbIn) Type() *Type { return TBool }
func (in *mariadbIn) Eval(e *Env) (Datum, error) {
	i, sawNull, err := in.match(e)
	switch {
	case err != nil:
		return Null, err
	case i >= 0:
		return Bool(true), nil
	case sawNull:
		return Null, nil
	}
	return Bool(false), nil
}

// mariadbCase is seqd_mariadb_case.
type mariadbCase struct{ in *mariadbIn }

func (c *mariadbCase) Type() *Type { return TInt4 }
func (c *mariadbCase) Eval(e *Env) (Datum, error) {
	i, _, err := c.in.match(e)
	if err != nil {
		return Null, err
	}
	return Int(int64(i + 1)), nil
}

// match is the index in list of the first item equal to x, -1 where
// none is; sawNull reports whether a comparison before it was NULL.
func (in *mariadbIn) match(e *Env) (i int, sawNull bool, err error) {
	var read [4]struct {
		done bool
		d    Datum
	}
	for i, a := range in.list {
		if isNull(a) {
			sawNull = true
			continue
		}
		t := in.pairs[i]
		slot := &read[compareSlot(t)]
		if !slot.done {
			d, err := in.x.Eval(e)
			if err != nil {
				return -1, false, err
			}
			slot.d, slot.done = readAs(e, d, t, in.quiet[0]), true
		}
		d, err := a.Eval(e)
		if err != nil {
			return -1, false, err
		}
		if slot.d.Kind == KNull || d.Kind == KNull {
			sawNull = true
			continue
		}
		if compareCI(slot.d, readAs(e, d, t, in.quiet[i+1])) == 0 {
			return i, sawNull, nil
		}
	}
	return -1, sawNull, nil
}

// compareSlot numbers the types a pair is compared in.
func compareSlot(t byte) int {
	switch t {
	case 'i':
		return 0
	case 'd':
		return 1
	case 'r':
		return 2
	}
	return 3
}

// readAs is d as a pair of type t compares it: a string read as a
// DECIMAL (d) or a DOUBLE (r) as far as it is a number, with 1292, or
// where quiet as seqd_mariadb_quiet reads it; any other value as it is.
func readAs(e *Env, d Datum, t byte, quiet bool) Datum {
	if d.Kind != KText || t != 'd' && t != 'r' {
		return d
	}
	read := readDouble
	switch {
	case t == 'd' && quiet:
		read = readDecimalQuiet
	case t == 'd':
		read = readDecimal
	case quiet:
		read = readDoubleQuiet
	}
	v, err := read(e, []Datum{d})
	if err != nil { // not for a prefix NumberPrefix gives
		return Null
	}
	return v
}

// compileBetween compiles seqd_mariadb_between.
func compileBetween(c *Compiler, sc *Scope, fc *pg.FuncCall) (Expr, error) {
	if len(fc.Args) != 3 {
		return nil, c.NoFunction("seqd_mariadb_between", nil, fc.Location)
	}
	xs := make([]Expr, 3)
	numbers, strs := 0, 0
	for i, n := range fc.Args {
		x, err := c.Expr(sc, n)
		if err != nil {
			return nil, err
		}
		xs[i] = c.settle(x)
		switch t := xs[i].Type(); {
		case isNull(xs[i]):
			numbers, strs = numbers+1, strs+1
		case isNumber(t):
			numbers++
		case isString(t):
			strs++
		}
	}
	if numbers != 3 && strs != 3 {
		return nil, c.ErrAt(fc.Location, sqlerr.UndefinedFunction, "operator does not exist: %s BETWEEN %s AND %s",
			xs[0].Type().sqlName, xs[1].Type().sqlName, xs[2].Type().sqlName)
	}
	return &mariadbBetween{x: xs[0], lo: xs[1], hi: xs[2]}, nil
}

// mariadbBetween is seqd_mariadb_between.
type mariadbBetween struct{ x, lo, hi Expr }

func (b *mariadbBetween) Type() *Type { return TBool }
func (b *mariadbBetween) Eval(e *Env) (Datum, error) {
	x, err := b.x.Eval(e)
	if err != nil || x.Kind == KNull {
		return Null, err
	}
	lo, err := b.lo.Eval(e)
	if err != nil {
		return Null, err
	}
	hi, err := b.hi.Eval(e)
	if err != nil {
		return Null, err
	}
	switch {
	case lo.Kind != KNull && compareCI(x, lo) < 0, hi.Kind != KNull && compareCI(x, hi) > 0:
		return Bool(false), nil
	case lo.Kind == KNull || hi.Kind == KNull:
		return Null, nil
	}
	return Bool(true), nil
}

// isNull reports whether x is NULL written as one.
func isNull(x Expr) bool {
	k, ok := x.(*constExpr)
	return ok && k.d.Kind == KNull
}
