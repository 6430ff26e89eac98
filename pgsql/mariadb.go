package pgsql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// The MariaDB and TiDB spellings, rewritten into PostgreSQL's grammar:
//
//	NEXT VALUE FOR s          seqd_mariadb_nextval(s)
//	PREVIOUS VALUE FOR s      seqd_mariadb_lastval(s)
//	NEXTVAL(s), LASTVAL(s),   seqd_mariadb_nextval(s), ...: only when the
//	SETVAL(s, n)              name is written in capitals, as MariaDB's and
//	                          TiDB's manuals write it, and s is a bare name
//	NOCACHE, NO CACHE         CACHE 1
//	NOCYCLE                   NO CYCLE
//	NOMINVALUE, NOMAXVALUE    NO MINVALUE, NO MAXVALUE
//
// In lower case, nextval(s) keeps PostgreSQL's meaning: s is a column, and
// there is none (42703). The seqd_mariadb_* functions take a bare sequence
// name; the executor gives them MariaDB's semantics (LASTVAL(s) is NULL
// until the session used s).

// MariaDBFuncs maps the rewritten function names to the functions they
// stand for.
var MariaDBFuncs = map[string]string{
	"seqd_mariadb_nextval": "nextval",
	"seqd_mariadb_lastval": "lastval",
	"seqd_mariadb_setval":  "setval",
}

var capitalCalls = []string{"NEXTVAL", "LASTVAL", "SETVAL"}

// hasMariaDBCall reports whether q may hold a capitalized MariaDB call, the
// one MariaDB spelling that PostgreSQL's grammar also accepts.
func hasMariaDBCall(q string) bool {
	for _, f := range capitalCalls {
		if strings.Contains(q, f) {
			return true
		}
	}
	return false
}

// rewriteMariaDB rewrites the spellings above; options says whether the
// whole set applies (after PostgreSQL's grammar refused q) or only the
// capitalized calls. ok is false when nothing was rewritten.
func rewriteMariaDB(q string, options bool) (string, bool) {
	scan, err := pg.Scan(q)
	if err != nil {
		return "", false
	}
	toks := scan.Tokens
	word := func(i int) string {
		if i >= len(toks) {
			return ""
		}
		return strings.ToLower(q[toks[i].Start:toks[i].End])
	}
	raw := func(i int) string {
		if i >= len(toks) {
			return ""
		}
		return q[toks[i].Start:toks[i].End]
	}
	// nameEnd is the index after a possibly qualified name starting at i.
	nameEnd := func(i int) int {
		if !isName(toks, i) {
			return i
		}
		i++
		for word(i) == "." && isName(toks, i+1) {
			i += 2
		}
		return i
	}
	var b strings.Builder
	last := 0 // bytes of q copied so far
	changed := false
	emit := func(from, to int32, with string) {
		b.WriteString(q[last:from])
		b.WriteString(with)
		last = int(to)
		changed = true
	}
	for i := 0; i < len(toks); i++ {
		w := word(i)
		switch {
		case options && (w == "next" || w == "previous") && word(i+1) == "value" && word(i+2) == "for" && nameEnd(i+3) > i+3:
			end := nameEnd(i + 3)
			fn := "seqd_mariadb_nextval("
			if w == "previous" {
				fn = "seqd_mariadb_lastval("
			}
			emit(toks[i].Start, toks[end-1].End, fn+q[toks[i+3].Start:toks[end-1].End]+")")
			i = end - 1
		case slices.Contains(capitalCalls, raw(i)) && word(i+1) == "(" && nameEnd(i+2) > i+2 && (word(nameEnd(i+2)) == ")" || word(nameEnd(i+2)) == ","):
			emit(toks[i].Start, toks[i].End, "seqd_mariadb_"+w)
		case options && (w == "nocache" || w == "no" && word(i+1) == "cache"):
			end := i
			if w == "no" {
				end = i + 1
			}
			emit(toks[i].Start, toks[end].End, "CACHE 1")
			i = end
		case options && (w == "nocycle" || w == "nominvalue" || w == "nomaxvalue"):
			emit(toks[i].Start, toks[i].End, "NO "+strings.ToUpper(w[2:]))
		}
	}
	if !changed {
		return "", false
	}
	b.WriteString(q[last:])
	return b.String(), true
}

// isName reports whether token i can be an identifier: a plain or quoted
// identifier, or a keyword that is not reserved.
func isName(toks []*pg.ScanToken, i int) bool {
	if i >= len(toks) {
		return false
	}
	t := toks[i]
	switch t.Token {
	case pg.Token_IDENT:
		return true
	}
	return t.KeywordKind == pg.KeywordKind_UNRESERVED_KEYWORD || t.KeywordKind == pg.KeywordKind_COL_NAME_KEYWORD
}
