package mysqlwire

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/seqd/seqd/executor"
)

// Two MariaDB spellings TiDB's grammar does not take are renamed before
// parsing into calls it parses as any function's, numbered so that each
// column keeps its name as typed: PREVIOUS VALUE FOR s (LASTVAL(s)), and
// SETVAL( with any arguments (TiDB's takes a literal second argument
// only, MariaDB's a parameter, and a third and fourth).
//
// A third, CREATE and DROP TEMPORARY SEQUENCE, loses its TEMPORARY,
// and the statement it begins is marked as temporary by where it stands;
// a fourth, CREATE OR REPLACE [TEMPORARY] SEQUENCE, loses its OR
// REPLACE, and is marked the same way.
var (
	previousValue = regexp.MustCompile("(?i)\\bPREVIOUS\\s+VALUE\\s+FOR\\s+((?:`[^`]+`|\\w+)(?:\\s*\\.\\s*(?:`[^`]+`|\\w+))?)")
	setval        = regexp.MustCompile(`(?i)\bSETVAL\s*\(`)
	ddlWords      = regexp.MustCompile(`(?i)\b(CREATE|DROP)(\s+OR\s+REPLACE)?(\s+TEMPORARY)?\s+SEQUENCE\b`)
	// packageStatus is MariaDB's SHOW PACKAGE [BODY] STATUS, which
	// mariadb-dump --routines sends: renamed SHOW PROCEDURE STATUS, whose
	// answer, with no routines of any type, is the same.
	packageStatus = regexp.MustCompile(`(?i)\b(SHOW\s+)PACKAGE(?:\s+BODY)?(\s+STATUS)\b`)
)

// marks are where in the renamed text the statements rename marked
// begin: offsets of their first word; limits SHOW WARNINGS's and SHOW
// ERRORS's LIMIT, sonames SHOW PLUGINS SONAME's forms, by where the
// statement begins.
type marks struct {
	temporary, replace offsets
	limits             []showLimit
	sonames            []soname
	// usings are where SHOW GRANTS' USING stands (usingOut).
	usings offsets
}

// soname is a SHOW PLUGINS SONAME at at, which TiDB's grammar does not
// take: rename blanks SONAME out (makes it LIKE before a library's name,
// for the parser to read the string), and the step is built from form.
// refused, when not -1, is where MariaDB's grammar stops reading the
// statement (1064 near there), counted from its SHOW, though TiDB's may
// read on: it takes one string, and nothing after it, after SONAME and
// after LIKE.
type soname struct {
	at, refused int
	form        sonameForm
}

// sonameForm is what follows SONAME: nothing (every plugin), a library's
// name ('lib.so'), LIKE 'pattern' or WHERE cond.
type sonameForm int

const (
	sonameAll sonameForm = iota
	sonameLibrary
	sonameLike
	sonameWhere
)

// sonameWords are SHOW PLUGINS SONAME's.
var sonameWords = regexp.MustCompile(`(?i)\bSHOW\s+PLUGINS\s+SONAME\b`)

// usingAt is where the USING marked on the statement in [start, end)
// stands.
func (m marks) usingAt(start, end int) (int, bool) {
	for _, at := range m.usings {
		if at >= start && at < end {
			return at, true
		}
	}
	return 0, false
}

// sonameOf is the SHOW PLUGINS SONAME marked on the statement in
// [start, end).
func (m marks) sonameOf(start, end int) (soname, bool) {
	for _, s := range m.sonames {
		if s.at >= start && s.at < end {
			return s, true
		}
	}
	return soname{}, false
}

// newSoname reads what follows SONAME, which ends at after in q (quoted
// its spans), and is the mark of the statement at at with the text
// SONAME becomes.
func newSoname(q string, quoted [][2]int, at, after int) (soname, string) {
	s, blank := soname{at: at, refused: -1}, "      "
	// ends refuses the statement at i unless it ends there.
	ends := func(i int) {
		if i < len(q) && q[i] != ';' {
			s.refused = i - at
		}
	}
	// literal is the end of the string at i, -1 for none there.
	literal := func(i int) int {
		if i < len(q) && (q[i] == '\'' || q[i] == '"') {
			return spanFrom(quoted, i)
		}
		return -1
	}
	i := nextToken(q, quoted, after)
	word := q[i:min(i+len("WHERE")+1, len(q))]
	switch {
	case i == len(q) || q[i] == ';':
	case literal(i) >= 0:
		s.form, blank = sonameLibrary, "LIKE  "
		ends(nextToken(q, quoted, literal(i)))
	case isWord(word, "LIKE"):
		s.form = sonameLike
		j := nextToken(q, quoted, i+len("LIKE"))
		if end := literal(j); end >= 0 {
			ends(nextToken(q, quoted, end))
		} else if j < len(q) {
			s.refused = j - at
		}
	case isWord(word, "WHERE"):
		s.form = sonameWhere
	default:
		s.refused = i - at
	}
	return s, blank
}

// isWord reports whether text begins with the keyword w, whole.
func isWord(text, w string) bool {
	return len(text) >= len(w) && strings.EqualFold(text[:len(w)], w) &&
		(len(text) == len(w) || !isWordByte(text[len(w)]))
}

// isWordByte reports whether b may be part of an unquoted name.
func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z' || b >= 0x80
}

// spanFrom is the end of the span of spans (in order) that begins at i,
// -1 for none.
func spanFrom(spans [][2]int, i int) int {
	if k, found := slices.BinarySearchFunc(spans, i, func(sp [2]int, i int) int { return sp[0] - i }); found {
		return spans[k][1]
	}
	return -1
}

// nextToken is where the first token at or after i in q begins, past
// white space and comments (of quoted, q's spans); len(q) for none.
func nextToken(q string, quoted [][2]int, i int) int {
	for i < len(q) {
		if strings.IndexByte(" \t\n\v\f\r", q[i]) >= 0 {
			i++
			continue
		}
		end := spanFrom(quoted, i)
		if end < 0 || strings.IndexByte("'\"`", q[i]) >= 0 { // a token, or a string or quoted name
			return i
		}
		i = end // a comment
	}
	return len(q)
}

// showLimit is SHOW WARNINGS's or SHOW ERRORS's LIMIT [offset,] count
// (or LIMIT count OFFSET offset), which TiDB's grammar does not take:
// rename blanks it out and the step answers only those rows.
type showLimit struct{ at, offset, count int }

// showLimitWords is that LIMIT, at the statement's end.
var showLimitWords = regexp.MustCompile(`(?i)\b(SHOW\s+(?:WARNINGS|ERRORS))\s+LIMIT\s+(\d+)(?:\s*,\s*(\d+)|\s+OFFSET\s+(\d+))?(\s*(?:;|$))`)

// limitOf is the LIMIT marked on the statement in [start, end).
func (m marks) limitOf(start, end int) (showLimit, bool) {
	for _, l := range m.limits {
		if l.at >= start && l.at < end {
			return l, true
		}
	}
	return showLimit{}, false
}

// newShowLimit is the LIMIT of showLimitWords's groups g, at at.
func newShowLimit(at int, g []string) showLimit {
	l := showLimit{at: at, count: clampedInt(g[2])}
	switch {
	case g[3] != "": // LIMIT offset, count
		l.offset, l.count = l.count, clampedInt(g[3])
	case g[4] != "":
		l.offset = clampedInt(g[4])
	}
	return l
}

// clampedInt is the digits d as an int, the largest int past it.
func clampedInt(d string) int {
	n, err := strconv.Atoi(d)
	if err != nil {
		return math.MaxInt
	}
	return n
}

// offsets are offsets in a text.
type offsets []int

// in reports whether one of o lies in [start, end).
func (o offsets) in(start, end int) bool {
	for _, at := range o {
		if at >= start && at < end {
			return true
		}
	}
	return false
}

// renamedPrefix begins the renamed calls' names.
const renamedPrefix = "seqd_renamed_"

// renamedSpelling is the function a renamed call of kind (lower case:
// lastval or setval, as rename names them) stands for, as the
// executor's table of sequence functions spells MariaDB's; false for a
// kind rename does not make.
func renamedSpelling(kind string) (string, bool) {
	if kind != "lastval" && kind != "setval" {
		return "", false
	}
	return executor.MariaDBSpelling(kind)
}

// rename renames the spellings above in q; typed maps each renamed text
// to the text as typed, and m says where the marked statements stand.
func rename(q string) (_ string, typed map[string]string, m marks) { return renameIn(q, true) }

// renameIn is rename with backslash escapes in string literals
// (sql_mode's NO_BACKSLASH_ESCAPES: not).
func renameIn(q string, backslash bool) (_ string, typed map[string]string, m marks) {
	n := 0
	mark := func(kind, m, r string) string {
		if typed == nil {
			typed = map[string]string{}
		}
		n++
		r = fmt.Sprintf("%s%s_%d%s", strings.ToUpper(renamedPrefix), kind, n, r)
		typed[r] = m
		return r
	}
	// First, before any offset is marked: it changes the text's length.
	q = replaceCode(q, backslash, packageStatus, func(_ int, m []string) string {
		if typed == nil {
			typed = map[string]string{}
		}
		n++
		r := fmt.Sprintf("%sPROCEDURE /*%d*/%s", m[1], n, m[2]) // the comment tells each apart, for typed
		typed[r] = m[0]
		return r
	})
	q = replaceCode(q, backslash, previousValue, func(_ int, m []string) string { return mark("LASTVAL", m[0], "("+m[1]+")") })
	q = replaceCode(q, backslash, setval, func(_ int, m []string) string { return mark("SETVAL", m[0], "(") })
	q = replaceCode(q, backslash, ddlWords, func(at int, g []string) string {
		if g[2] != "" && !strings.EqualFold(g[1], "CREATE") {
			return g[0] // DROP OR REPLACE: the parser's syntax error
		}
		if g[2] != "" {
			m.replace = append(m.replace, at)
		}
		if g[3] != "" {
			m.temporary = append(m.temporary, at)
		}
		return g[1] + " SEQUENCE"
	})
	// Blanked, not cut: the offsets marked above stay where they were.
	q = replaceCode(q, backslash, showLimitWords, func(at int, g []string) string {
		m.limits = append(m.limits, newShowLimit(at, g))
		return g[1] + strings.Repeat(" ", len(g[0])-len(g[1])-len(g[5])) + g[5]
	})
	// Blanked too, after every change of the text's length.
	var quoted [][2]int
	read := false
	q = replaceCode(q, backslash, sonameWords, func(at int, g []string) string {
		if strings.HasSuffix(strings.TrimRight(q[:at], " \t\n\v\f\r"), ".") {
			return g[0] // a column t.show: the parser's error
		}
		if !read { // only where SONAME is written
			quoted, read = quotedSpansIn(q, backslash), true
		}
		s, blank := newSoname(q, quoted, at, at+len(g[0]))
		m.sonames = append(m.sonames, s)
		r := g[0][:len(g[0])-len("SONAME")] + blank
		if typed == nil {
			typed = map[string]string{}
		}
		typed[r] = g[0] // the same for every SONAME written alike
		return r
	})
	q = usingOut(q, backslash, func(at int, as, typedAs string) { // after every change of the text's length
		m.usings = append(m.usings, at)
		if typed == nil {
			typed = map[string]string{}
		}
		typed[as] = typedAs
	})
	return q, typed, m
}

// grantsWords begin SHOW GRANTS.
var grantsWords = regexp.MustCompile(`(?i)\bSHOW\s+GRANTS\b`)

// usingOut makes the USING of each SHOW GRANTS in q, which MySQL's
// grammar has and MariaDB's has not, and all after it to the statement's
// end, a comment of the same length, for the parser to read the rest,
// the statement's error being MariaDB's 1064 near the USING. It tells
// mark where USING stands, the comment and the text it stands for. A
// USING in a /*! */ comment stays (showGrants finds it).
func usingOut(q string, backslash bool, mark func(at int, as, typedAs string)) string {
	starts := grantsWords.FindAllStringIndex(q, -1)
	if starts == nil {
		return q
	}
	quoted := quotedSpansIn(q, backslash)
	b, n, read := []byte(q), 0, 0
	for _, g := range starts {
		if g[0] < read || inSpan(quoted, g[0]) || strings.HasSuffix(strings.TrimRight(q[:g[0]], " \t\n\v\f\r"), ".") {
			continue // in a statement read already, quoted, or a column t.show
		}
		at := -1
		i := nextToken(q, quoted, g[1])
		for ; i < len(q) && q[i] != ';'; i = nextToken(q, quoted, i) {
			switch {
			case at < 0 && isWord(q[i:min(i+len("USING")+1, len(q))], "USING"):
				at = i
				i += len("USING")
			case spanFrom(quoted, i) >= 0:
				i = spanFrom(quoted, i)
			case isWordByte(q[i]):
				for i < len(q) && isWordByte(q[i]) {
					i++
				}
			default:
				i++
			}
		}
		read = i
		for i > at && strings.IndexByte(" \t\n\v\f\r", q[i-1]) >= 0 {
			i-- // the white space before the statement's end stays
		}
		if at >= 0 {
			n++
			tag := strconv.Itoa(n) // tells each apart, for typed, where it fits
			if len(tag) > i-at-4 {
				tag = ""
			}
			as := "/*" + tag + strings.Repeat("-", i-at-4-len(tag)) + "*/"
			copy(b[at:i], as)
			mark(at, as, q[at:i])
		}
	}
	return string(b)
}

// replaceCode replaces the matches of re in q that start outside string
// literals, quoted identifiers and comments, with what with makes of the
// match and its groups (told where the replacement begins in the
// result); text in quotes stays as written.
func replaceCode(q string, backslash bool, re *regexp.Regexp, with func(at int, m []string) string) string {
	ms := re.FindAllStringSubmatchIndex(q, -1)
	if ms == nil {
		return q
	}
	quoted := quotedSpansIn(q, backslash)
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if inSpan(quoted, m[0]) {
			continue
		}
		groups := make([]string, len(m)/2)
		for i := range groups {
			if m[2*i] >= 0 {
				groups[i] = q[m[2*i]:m[2*i+1]]
			}
		}
		b.WriteString(q[last:m[0]])
		b.WriteString(with(b.Len(), groups))
		last = m[1]
	}
	b.WriteString(q[last:])
	return b.String()
}

// quotedSpans are the byte spans of q's string literals ('...', "...",
// with backslash escapes and doubled quotes), quoted identifiers (`...`)
// and comments (-- and # to the line's end, /* */).
func quotedSpans(q string) [][2]int { return quotedSpansIn(q, true) }

// quotedSpansIn is quotedSpans with backslash escapes or without
// (sql_mode's NO_BACKSLASH_ESCAPES).
func quotedSpansIn(q string, backslash bool) [][2]int {
	var out [][2]int
	for i := 0; i < len(q); i++ {
		start := i
		switch ch := q[i]; {
		case ch == '\'' || ch == '"' || ch == '`':
			for i++; i < len(q); i++ {
				if q[i] == '\\' && ch != '`' && backslash {
					i++
				} else if q[i] == ch {
					if i+1 < len(q) && q[i+1] == ch {
						i++
						continue
					}
					break
				}
			}
		case ch == '#' || ch == '-' && strings.HasPrefix(q[i:], "-- "):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case ch == '/' && strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				i = len(q)
			} else {
				i += 2 + end + 1
			}
		default:
			continue
		}
		out = append(out, [2]int{start, min(i+1, len(q))})
	}
	return out
}

// inSpan reports whether offset i lies in one of spans (in order, apart,
// as quotedSpansIn makes them): found by halves, as a query of many
// strings may hold many renamed spellings.
func inSpan(spans [][2]int, i int) bool {
	k := sort.Search(len(spans), func(k int) bool { return spans[k][1] > i })
	return k < len(spans) && spans[k][0] <= i
}
