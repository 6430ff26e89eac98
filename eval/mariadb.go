package eval

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MariaDB's meaning of the expressions whose evaluation raises a
// condition that does not stop the statement (a division by zero is
// NULL, a CAST that cannot read all of a string reads what it can): the
// functions the MySQL front end's trees call in their place, which tell
// the session what they raised as a Warning. The session keeps them
// for its front end (Warner), which words them in its protocol's
// terms; PostgreSQL's statements call none of them.
//
//	seqd_mariadb_divisor(x)    x, or NULL when x is 0 (DivisionByZero):
//	                           the divisor of /, DIV and MOD
//	seqd_mariadb_integer(s)    of a string, its longest prefix an integer
//	seqd_mariadb_decimal(s)    reads (Truncated, or TruncatedSpaces when
//	seqd_mariadb_double(s)     only spaces follow it; "0" for none); of
//	                           another type, the value itself
//	seqd_mariadb_chars(s, n)   s's first n characters (Truncated)
//	seqd_mariadb_unsigned(x)   x (NegativeUnsigned when below 0)

// Warning is a condition an expression raised.
type Warning struct {
	Kind WarningKind
	// Type and Value are a truncation's: the type read, as MariaDB
	// names it (INTEGER, DECIMAL, DOUBLE, CHAR(n)), and the value as it
	// was.
	Type, Value string
}

// WarningKind is what a Warning says.
type WarningKind uint8

const (
	// DivisionByZero: a division, DIV or MOD by zero was NULL.
	DivisionByZero WarningKind = iota + 1
	// Truncated: a conversion read part of its value.
	Truncated
	// TruncatedSpaces: a conversion left out the spaces that end its
	// value, and nothing else.
	TruncatedSpaces
	// NegativeUnsigned: CAST AS UNSIGNED took a negative number to its
	// complement.
	NegativeUnsigned
)

// Warner is what a session that keeps expressions' warnings offers the
// evaluator; a session without it drops them.
type Warner interface {
	Warn(Warning)
}

// Warn reports w to the session the evaluation runs for.
func (e *Env) Warn(w Warning) {
	if s, ok := e.Session.(Warner); ok {
		s.Warn(w)
	}
}

func init() {
	// Of each number type, integer first: a parameter or a literal of
	// no type yet is typed as NULLIF(x, 0) would type it.
	for _, t := range []*Type{TInt4, TInt8, TInt2, tNumeric, TFloat8, tFloat4} {
		Define("seqd_mariadb_divisor", nil, true, func(e *Env, a []Datum) (Datum, error) {
			if isZero(a[0]) {
				e.Warn(Warning{Kind: DivisionByZero})
				return Null, nil
			}
			return a[0], nil
		}, t)
	}
	for name, typ := range map[string]string{"seqd_mariadb_integer": "INTEGER", "seqd_mariadb_decimal": "DECIMAL", "seqd_mariadb_double": "DOUBLE"} {
		integer := typ == "INTEGER"
		Define(name, nil, true, func(e *Env, a []Datum) (Datum, error) {
			if a[0].Kind != KText {
				return a[0], nil
			}
			prefix, kind := NumberPrefix(a[0].S, integer)
			if kind != 0 {
				e.Warn(Warning{Kind: kind, Type: typ, Value: a[0].S})
			}
			return Text(prefix), nil
		}, nil)
	}
	Define("seqd_mariadb_chars", TText, true, func(e *Env, a []Datum) (Datum, error) {
		s, n := a[0].S, int(a[1].I)
		if n < 0 || utf8.RuneCountInString(s) <= n {
			return a[0], nil
		}
		e.Warn(Warning{Kind: Truncated, Type: "CHAR(" + strconv.Itoa(n) + ")", Value: s})
		i := 0
		for range n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		return Text(s[:i]), nil
	}, TText, TInt4)
	Define("seqd_mariadb_unsigned", nil, true, func(e *Env, a []Datum) (Datum, error) {
		if k := a[0].Kind; k == KInt && a[0].I < 0 || k == KNumeric && strings.HasPrefix(a[0].S, "-") {
			e.Warn(Warning{Kind: NegativeUnsigned})
		}
		return a[0], nil
	}, nil)
}

// isZero reports whether d is a number equal to 0.
func isZero(d Datum) bool {
	switch d.Kind {
	case KInt, KBool:
		return d.I == 0
	case KFloat:
		return d.F == 0
	case KNumeric:
		x, _ := decimal(d)
		return x.IsZero()
	}
	return false
}

// NumberPrefix is the longest prefix of s that MariaDB reads as a number
// (an integer's: sign and digits; else with a fraction and an exponent
// too), leading spaces skipped, "0" when there is none, and what was
// left out: nothing (0), spaces only (TruncatedSpaces) or more
// (Truncated).
func NumberPrefix(s string, integer bool) (string, WarningKind) {
	t := strings.TrimLeft(s, " \t\n\r")
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := func(from int) int {
		for from < len(t) && t[from] >= '0' && t[from] <= '9' {
			from++
		}
		return from
	}
	intEnd := digits(i)
	end, seen := intEnd, intEnd > i
	if !integer {
		if end < len(t) && t[end] == '.' {
			if f := digits(end + 1); f > end+1 || seen {
				end, seen = f, seen || f > end+1
			}
		}
		if seen && end < len(t) && (t[end] == 'e' || t[end] == 'E') {
			j := end + 1
			if j < len(t) && (t[j] == '+' || t[j] == '-') {
				j++
			}
			if k := digits(j); k > j {
				end = k
			}
		}
	}
	if !seen {
		return "0", Truncated
	}
	switch rest := t[end:]; {
	case rest == "":
		return t[:end], 0
	case strings.Trim(rest, " ") == "":
		return t[:end], TruncatedSpaces
	}
	return t[:end], Truncated
}
