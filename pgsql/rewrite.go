package pgsql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Other dialects' spellings and seqd's own sequence clauses, which
// PostgreSQL's grammar refuses, are rewritten into it from one scan of the
// query string (planRewrite), with one map from the rewritten text's
// offsets back to the text as sent.
//
// The MariaDB and TiDB spellings:
//
//	NEXT VALUE FOR s          seqd_mariadb_nextval(s)
//	PREVIOUS VALUE FOR s      seqd_mariadb_lastval(s)
//	NEXTVAL(s), LASTVAL(s),   seqd_mariadb_nextval(s), ...: only when the
//	SETVAL(s, n)              name is written in capitals, as MariaDB's and
//	                          TiDB's manuals write it, and s is a bare name
//	NOCACHE, NO CACHE         CACHE 1            (in CREATE and ALTER SEQUENCE)
//	NOCYCLE                   NO CYCLE
//	NOMINVALUE, NOMAXVALUE    NO MINVALUE, NO MAXVALUE
//
// In lower case, nextval(s) keeps PostgreSQL's meaning: s is a column, and
// there is none (42703). The seqd_mariadb_* functions take a bare sequence
// name; the executor gives them MariaDB's semantics (LASTVAL(s) is NULL
// until the session used s).
//
// The sequence clauses (SeqClause), in CREATE and ALTER SEQUENCE: the
// shapes', Spanner's PostgreSQL-dialect spelling and seqd's for TiDB's
// sharded layout, and Oracle's ORDER and NOORDER for cluster mode:
//
//	BIT_REVERSED_POSITIVE
//	SHARD_BITS s, RANGE_BITS r
//	SKIP RANGE min max, NO SKIP RANGE
//	START COUNTER [WITH] n, RESTART COUNTER [WITH] n
//	ORDER, NOORDER
//	SNOWFLAKE, EPOCH 'timestamptz', TIME_UNIT 'interval', NODE_BITS n, COUNTER_BITS n
//
// The grammar has no room for them, so each takes the place of a sequence
// option nothing else uses, SEQUENCE NAME pg_catalog.seqd_<clause>, and is
// taken out of the parse tree again as data (Statement.Clauses). A clause
// that is not well formed is left alone, so the grammar reports it where
// it stands.
//
// The capitalized calls are rewritten always (PostgreSQL would read them
// as its own functions); the rest only when PostgreSQL's grammar refused
// the text, so a statement that parses either way keeps its PostgreSQL
// meaning.

// editKind classifies an edit by when it applies.
type editKind uint8

const (
	callEdit     editKind = 1 << iota // NEXTVAL(s) and the like in capitals: always
	spellingEdit                      // MariaDB's other spellings: when the grammar refuses the text
	clauseEdit                        // a sequence clause: likewise
)

// edit replaces q[from:to] by text.
type edit struct {
	from, to int
	text     string
	kind     editKind
}

// rewrite is what one scan of a query string found to rewrite: edits in
// order, not overlapping.
type rewrite struct {
	q     string
	edits []edit
	kinds editKind // the kinds of edits there are
}

// MariaDBFuncs maps the rewritten function names to the functions they
// stand for.
var MariaDBFuncs = map[string]string{
	"seqd_mariadb_nextval": "nextval",
	"seqd_mariadb_lastval": "lastval",
	"seqd_mariadb_setval":  "setval",
}

var capitalCalls = []string{"NEXTVAL", "LASTVAL", "SETVAL"}

// hasMariaDBCall reports whether q may hold a capitalized MariaDB call, the
// one spelling that PostgreSQL's grammar also accepts.
func hasMariaDBCall(q string) bool {
	for _, f := range capitalCalls {
		if strings.Contains(q, f) {
			return true
		}
	}
	return false
}

// seqClausePrefix begins the carrier names' second part.
const seqClausePrefix = "seqd_"

// seqClauseArgs are the sequence clauses and how many numbers each takes.
var seqClauseArgs = map[string]int{
	"bit_reversed_positive": 0, "shard_bits": 1, "range_bits": 1, "skip_range": 2,
	"no_skip_range": 0, "start_counter": 1, "restart_counter": 1,
	"order": 0, "noorder": 0,
	"snowflake": 0, "epoch": 1, "time_unit": 1, "node_bits": 1, "counter_bits": 1,
}

// tokens is a query string's scanner tokens, read by word.
type tokens struct {
	q    string
	toks []*pg.ScanToken
}

// word is token i in lower case, "" past the end.
func (t tokens) word(i int) string {
	if i < 0 || i >= len(t.toks) {
		return ""
	}
	return strings.ToLower(t.q[t.toks[i].Start:t.toks[i].End])
}

// raw is token i as written.
func (t tokens) raw(i int) string {
	if i < 0 || i >= len(t.toks) {
		return ""
	}
	return t.q[t.toks[i].Start:t.toks[i].End]
}

// nameEnd is the index after a possibly qualified name starting at i.
func (t tokens) nameEnd(i int) int {
	if !isName(t.toks, i) {
		return i
	}
	i++
	for t.word(i) == "." && isName(t.toks, i+1) {
		i += 2
	}
	return i
}

// number reads an integer at i, with its sign: the text and the index
// after it.
func (t tokens) number(i int) (string, int, bool) {
	sign := ""
	if w := t.word(i); w == "-" || w == "+" {
		sign, i = w, i+1
	}
	if i >= len(t.toks) || t.toks[i].Token != pg.Token_ICONST && t.toks[i].Token != pg.Token_FCONST {
		return "", i, false
	}
	text := t.raw(i)
	if strings.ContainsAny(text, ".eE") {
		return "", i, false
	}
	if sign == "-" {
		text = "-" + text
	}
	return text, i + 1, true
}

// maxClauseText is the longest string a clause takes (EPOCH's, and
// TIME_UNIT's): it is carried as an identifier, which the grammar cuts
// at 63 bytes.
const maxClauseText = 60

// str reads a plain string constant at i ('...', its quotes doubled
// inside), at most maxClauseText bytes.
func (t tokens) str(i int) (string, bool) {
	if i >= len(t.toks) || t.toks[i].Token != pg.Token_SCONST {
		return "", false
	}
	raw := t.raw(i)
	if len(raw) < 2 || raw[0] != '\'' || raw[len(raw)-1] != '\'' {
		return "", false // E'', U&'', $$: not for a clause
	}
	text := strings.ReplaceAll(raw[1:len(raw)-1], "''", "'")
	if len(text) > maxClauseText || strings.ContainsRune(text, 0) {
		return "", false
	}
	return text, true
}

// skipSequenceName is the index of the last token of IF [NOT] EXISTS and
// the (qualified) sequence name after SEQUENCE at i: a name is not a
// clause, whatever it is called.
func (t tokens) skipSequenceName(i int) int {
	for j := i + 1; j < len(t.toks); j++ {
		switch t.word(j) {
		case "if", "not", "exists", ".":
			i = j
			continue
		}
		if t.word(j+1) == "." {
			continue
		}
		return j
	}
	return i
}

// seqClause reads a sequence clause at i: its carrier text and the index
// of its last token. ok is false when none is there, or it is not well
// formed.
func (t tokens) seqClause(i int) (text string, end int, ok bool) {
	w := t.word(i)
	var clause string
	var args []string
	end = i
	switch {
	case w == "bit_reversed_positive", w == "order", w == "noorder", w == "snowflake":
		clause = w
	case w == "epoch" || w == "time_unit":
		text, ok := t.str(i + 1)
		if !ok {
			return "", 0, false
		}
		clause, args, end = w, []string{text}, i+1
	case w == "shard_bits" || w == "range_bits" || w == "node_bits" || w == "counter_bits":
		n, next, ok := t.number(i + 1)
		if !ok {
			return "", 0, false
		}
		clause, args, end = w, []string{n}, next-1
	case w == "skip" && t.word(i+1) == "range":
		lo, next, ok1 := t.number(i + 2)
		hi, next, ok2 := t.number(next)
		if !ok1 || !ok2 {
			return "", 0, false
		}
		clause, args, end = "skip_range", []string{lo, hi}, next-1
	case w == "no" && t.word(i+1) == "skip" && t.word(i+2) == "range":
		clause, end = "no_skip_range", i+2
	case (w == "start" || w == "restart") && t.word(i+1) == "counter":
		at := i + 2
		if t.word(at) == "with" {
			at++
		}
		n, next, ok := t.number(at)
		if !ok {
			return "", 0, false
		}
		clause, args, end = w+"_counter", []string{n}, next-1
	default:
		return "", 0, false
	}
	text = "SEQUENCE NAME pg_catalog." + seqClausePrefix + clause
	for _, a := range args {
		text += `."` + strings.ReplaceAll(a, `"`, `""`) + `"`
	}
	return text, end, true
}

// planRewrite finds the edits of q, whose scanner tokens are toks.
func planRewrite(q string, toks []*pg.ScanToken) *rewrite {
	r := &rewrite{q: q}
	t := tokens{q, toks}
	add := func(from, to int, text string, kind editKind) {
		r.edits = append(r.edits, edit{int(toks[from].Start), int(toks[to].End), text, kind})
		r.kinds |= kind
	}
	inSeq := false // within the options of a CREATE or ALTER SEQUENCE
	stmtStart := 0
	for i := 0; i < len(toks); i++ {
		w := t.word(i)
		switch {
		case w == ";":
			inSeq, stmtStart = false, i+1
			continue
		case (w == "next" || w == "previous") && t.word(i+1) == "value" && t.word(i+2) == "for" && t.nameEnd(i+3) > i+3:
			end := t.nameEnd(i+3) - 1
			fn := "seqd_mariadb_nextval("
			if w == "previous" {
				fn = "seqd_mariadb_lastval("
			}
			add(i, end, fn+q[toks[i+3].Start:toks[end].End]+")", spellingEdit)
			i = end
			continue
		case slices.Contains(capitalCalls, t.raw(i)) && t.word(i+1) == "(" && t.nameEnd(i+2) > i+2 &&
			(t.word(t.nameEnd(i+2)) == ")" || t.word(t.nameEnd(i+2)) == ","):
			add(i, i, "seqd_mariadb_"+w, callEdit)
			continue
		case w == "sequence" && !inSeq:
			first := t.word(stmtStart)
			if inSeq = first == "create" || first == "alter"; inSeq {
				i = t.skipSequenceName(i)
			}
			continue
		}
		if !inSeq {
			continue
		}
		if prev := t.word(i - 1); prev == "to" || prev == "schema" || prev == "by" || prev == "." {
			continue // a name: RENAME TO, SET SCHEMA, OWNER TO, OWNED BY
		}
		switch {
		case w == "nocache":
			add(i, i, "CACHE 1", spellingEdit)
		case w == "no" && t.word(i+1) == "cache":
			add(i, i+1, "CACHE 1", spellingEdit)
			i++
		case w == "nocycle" || w == "nominvalue" || w == "nomaxvalue":
			add(i, i, "NO "+strings.ToUpper(w[2:]), spellingEdit)
		default:
			if text, end, ok := t.seqClause(i); ok {
				add(i, end, text, clauseEdit)
				i = end
			}
		}
	}
	return r
}

// apply is the text with the edits of the kinds in mask made, and the map
// from its byte offsets back to the query string's (an offset within an
// edit's text maps to where the edit's original text starts).
func (r *rewrite) apply(mask editKind) (string, func(int) int) {
	type span struct{ from, to, newFrom, newTo int }
	var spans []span
	var b strings.Builder
	last := 0
	for _, e := range r.edits {
		if e.kind&mask == 0 {
			continue
		}
		b.WriteString(r.q[last:e.from])
		newFrom := b.Len()
		b.WriteString(e.text)
		spans = append(spans, span{e.from, e.to, newFrom, b.Len()})
		last = e.to
	}
	b.WriteString(r.q[last:])
	back := func(off int) int {
		shift := 0
		for _, s := range spans {
			switch {
			case off >= s.newTo:
				shift += (s.newTo - s.newFrom) - (s.to - s.from)
			case off >= s.newFrom:
				return s.from
			default:
				return off - shift
			}
		}
		return off - shift
	}
	return b.String(), back
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

// SeqClause is one of the sequence clauses above in a CREATE or ALTER
// SEQUENCE, as data.
type SeqClause struct {
	// Name is the clause: bit_reversed_positive, shard_bits, range_bits,
	// skip_range, no_skip_range, start_counter, restart_counter, order,
	// noorder, snowflake, epoch, time_unit, node_bits or counter_bits.
	Name string
	// Args are its numbers as written (EPOCH's and TIME_UNIT's: the
	// string's text).
	Args []string
	// Location is where it stands in the statement's Query, as the parse
	// tree's locations are.
	Location int32
}

// takeClauses moves the sequence clauses out of a CREATE or ALTER
// SEQUENCE's options into data.
func takeClauses(n *pg.Node) []SeqClause {
	var opts *[]*pg.Node
	switch {
	case n.GetCreateSeqStmt() != nil:
		opts = &n.GetCreateSeqStmt().Options
	case n.GetAlterSeqStmt() != nil:
		opts = &n.GetAlterSeqStmt().Options
	default:
		return nil
	}
	var out []SeqClause
	kept := (*opts)[:0]
	for _, o := range *opts {
		if d := o.GetDefElem(); d != nil && d.Defname == "sequence_name" {
			if c, ok := seqClause(d); ok {
				out = append(out, c)
				continue
			}
		}
		kept = append(kept, o)
	}
	*opts = kept
	return out
}

// seqClause decodes the SEQUENCE NAME option a clause was rewritten into.
func seqClause(d *pg.DefElem) (SeqClause, bool) {
	var names []string
	for _, n := range d.Arg.GetList().GetItems() {
		names = append(names, n.GetString_().GetSval())
	}
	if len(names) < 2 || names[0] != "pg_catalog" || !strings.HasPrefix(names[1], seqClausePrefix) {
		return SeqClause{}, false
	}
	clause := strings.TrimPrefix(names[1], seqClausePrefix)
	want, known := seqClauseArgs[clause]
	if !known || len(names)-2 != want {
		return SeqClause{}, false
	}
	return SeqClause{Name: clause, Args: names[2:], Location: d.Location}, true
}
