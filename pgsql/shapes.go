package pgsql

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// The sequence shapes' clauses, Spanner's PostgreSQL-dialect spelling and
// seqd's for TiDB's sharded layout, in CREATE and ALTER SEQUENCE:
//
//	BIT_REVERSED_POSITIVE
//	SHARD_BITS s, RANGE_BITS r
//	SKIP RANGE min max, NO SKIP RANGE
//	START COUNTER [WITH] n, RESTART COUNTER [WITH] n
//	ORDER, NOORDER (Oracle's, for cluster mode)
//
// PostgreSQL's grammar has no room for them, so each becomes one of its
// sequence options that nothing else uses, SEQUENCE NAME, with a name in
// pg_catalog that carries the clause and its numbers:
//
//	SKIP RANGE 1 1000   SEQUENCE NAME pg_catalog.seqd_skip_range."1"."1000"
//
// ShapeOption reads such a name back. A clause that is not well formed
// is left alone, so the grammar reports it where it stands.

// shapeOptionPrefix begins the carrier names' second part.
const shapeOptionPrefix = "seqd_"

// ShapeOption decodes the name of a SEQUENCE NAME option the rewrite made:
// the clause (bit_reversed_positive, shard_bits, range_bits, skip_range,
// no_skip_range, start_counter, restart_counter, order, noorder) and its
// numbers as
// written. ok is false for any other name.
func ShapeOption(names []string) (clause string, args []string, ok bool) {
	if len(names) < 2 || names[0] != "pg_catalog" || !strings.HasPrefix(names[1], shapeOptionPrefix) {
		return "", nil, false
	}
	clause = strings.TrimPrefix(names[1], shapeOptionPrefix)
	want, known := shapeClauseArgs[clause]
	if !known || len(names)-2 != want {
		return "", nil, false
	}
	return clause, names[2:], true
}

var shapeClauseArgs = map[string]int{
	"bit_reversed_positive": 0, "shard_bits": 1, "range_bits": 1, "skip_range": 2,
	"no_skip_range": 0, "start_counter": 1, "restart_counter": 1,
	"order": 0, "noorder": 0,
}

// rewriteShapes rewrites the shape clauses of the CREATE and ALTER
// SEQUENCE statements in q. ok is false when there were none.
func rewriteShapes(q string) (string, bool) {
	r, _, ok := rewriteShapesMapped(q)
	return r, ok
}

// rewriteShapesMapped is rewriteShapes that also returns, for a byte
// offset in the rewritten text, the offset in q it came from.
func rewriteShapesMapped(q string) (string, func(int) int, bool) {
	type edit struct{ from, to, newFrom, newTo int }
	var edits []edit
	scan, err := pg.Scan(q)
	if err != nil {
		return "", nil, false
	}
	toks := scan.Tokens
	word := func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return strings.ToLower(q[toks[i].Start:toks[i].End])
	}
	// number reads an integer at i, with its sign: the text and the
	// index after it.
	number := func(i int) (string, int, bool) {
		sign := ""
		if w := word(i); w == "-" || w == "+" {
			sign, i = w, i+1
		}
		if i >= len(toks) || toks[i].Token != pg.Token_ICONST && toks[i].Token != pg.Token_FCONST {
			return "", i, false
		}
		text := q[toks[i].Start:toks[i].End]
		if strings.ContainsAny(text, ".eE") {
			return "", i, false
		}
		if sign == "-" {
			text = "-" + text
		}
		return text, i + 1, true
	}
	var b strings.Builder
	last, changed := 0, false
	inSeq := false // within the options of a CREATE or ALTER SEQUENCE
	stmtStart := 0
	for i := 0; i < len(toks); i++ {
		w := word(i)
		if w == ";" {
			inSeq, stmtStart = false, i+1
			continue
		}
		if w == "sequence" && !inSeq {
			first := word(stmtStart)
			inSeq = first == "create" || first == "alter"
			// The sequence's name is not a clause, whatever it is
			// called: skip IF [NOT] EXISTS and the (qualified) name.
			if inSeq {
				for j := i + 1; j < len(toks); j++ {
					switch word(j) {
					case "if", "not", "exists", ".":
						i = j
						continue
					}
					if word(j+1) == "." {
						continue
					}
					i = j
					break
				}
			}
			continue
		}
		if !inSeq {
			continue
		}
		if prev := word(i - 1); prev == "to" || prev == "schema" || prev == "by" || prev == "." {
			continue // a name: RENAME TO, SET SCHEMA, OWNER TO, OWNED BY
		}
		var clause string
		var args []string
		end := i // last token of the clause
		switch {
		case w == "bit_reversed_positive", w == "order", w == "noorder":
			clause = w
		case w == "shard_bits" || w == "range_bits":
			n, next, ok := number(i + 1)
			if !ok {
				continue
			}
			clause, args, end = w, []string{n}, next-1
		case w == "skip" && word(i+1) == "range":
			lo, next, ok1 := number(i + 2)
			hi, next, ok2 := number(next)
			if !ok1 || !ok2 {
				continue
			}
			clause, args, end = "skip_range", []string{lo, hi}, next-1
		case w == "no" && word(i+1) == "skip" && word(i+2) == "range":
			clause, end = "no_skip_range", i+2
		case (w == "start" || w == "restart") && word(i+1) == "counter":
			at := i + 2
			if word(at) == "with" {
				at++
			}
			n, next, ok := number(at)
			if !ok {
				continue
			}
			clause, args, end = w+"_counter", []string{n}, next-1
		default:
			continue
		}
		b.WriteString(q[last:toks[i].Start])
		newFrom := b.Len()
		b.WriteString("SEQUENCE NAME pg_catalog." + shapeOptionPrefix + clause)
		for _, a := range args {
			b.WriteString(`."` + a + `"`)
		}
		edits = append(edits, edit{int(toks[i].Start), int(toks[end].End), newFrom, b.Len()})
		last, changed = int(toks[end].End), true
		i = end
	}
	if !changed {
		return "", nil, false
	}
	b.WriteString(q[last:])
	back := func(off int) int {
		shift := 0
		for _, e := range edits {
			switch {
			case off >= e.newTo:
				shift += (e.newTo - e.newFrom) - (e.to - e.from)
			case off >= e.newFrom:
				return e.from
			default:
				return off - shift
			}
		}
		return off - shift
	}
	return b.String(), back, true
}
