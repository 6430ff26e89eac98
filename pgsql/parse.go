package pgsql

import (
	"errors"
	"strings"
	"sync"

	"github.com/seqd/seqd/sqlerr"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/proto"
)

// Statement is one parsed statement of a query string. Statements are
// shared through the parse cache: nothing may modify Node.
type Statement struct {
	Node *pg.Node
	// Query is the text the parse tree's locations index: the whole query
	// string the statement came in (after the MariaDB rewrite, if any).
	Query string
	// Start and End delimit the statement's own text in Query.
	Start, End int
	// Clauses are the sequence clauses of a CREATE or ALTER SEQUENCE
	// that PostgreSQL's grammar has no room for (rewrite.go), in the order
	// written; they are not in Node.
	Clauses []SeqClause
	// Notices are what parsing the query string said (identifiers
	// truncated), on its first statement only: PostgreSQL says them once,
	// before running any statement of the string.
	Notices []Notice

	// Cost estimates the memory the statement's tree holds (set when the
	// parse cache keeps it; 0 otherwise), for caches of what is built
	// from it.
	Cost int64

	// sent and back: when Query is a rewrite of the text the client sent
	// (rewrite.go), that text, and the map of Query's byte offsets to it.
	sent string
	back func(int) int
}

// Locate moves the position of a *Error in Query to the text the client
// sent, when the statement's clauses were rewritten; other errors, and
// errors without a position, are returned as they are.
func (s *Statement) Locate(err error) error {
	var se *sqlerr.Error
	if s.back == nil || !errors.As(err, &se) || se.Pos <= 0 {
		return err
	}
	se.Pos = sqlerr.CharPos(s.sent, s.back(byteOffset(s.Query, se.Pos)))
	return err
}

// Notice is a message of the parser that does not fail the query.
type Notice struct {
	Kind sqlerr.Kind
	Msg  string
}

// Text is the statement's own text.
func (s *Statement) Text() string { return strings.TrimSpace(s.Query[s.Start:s.End]) }

// Parse parses a query string of zero or more statements, with
// PostgreSQL's grammar and the MariaDB spellings. Results are cached by
// text; callers must not modify them.
func Parse(q string) ([]Statement, error) {
	if st, ok := cache.get(q); ok {
		return st, nil
	}
	st, err := parse(q)
	if err != nil {
		return nil, err
	}
	cache.put(q, st)
	return st, nil
}

func parse(q string) ([]Statement, error) {
	sc := scanner{q: q}
	if len(q) >= MaxDepth {
		// A text the scanner itself refuses is left to the parser, which
		// reports the syntax error.
		if toks, ok := sc.tokens(); ok && estimateDepth(toks) > MaxDepth {
			return nil, depthError()
		}
	}
	var rw *rewrite
	text, back := q, (func(int) int)(nil)
	if hasMariaDBCall(q) {
		rw = sc.rewrite()
		if rw.kinds&callEdit != 0 {
			text, back = rw.apply(callEdit)
		}
	}
	tree, err := pg.Parse(text)
	clauses := false
	if err != nil {
		if rw == nil {
			rw = sc.rewrite()
		}
		if rw.kinds&^callEdit != 0 {
			full, fullBack := rw.apply(rw.kinds)
			tree2, err2 := pg.Parse(full)
			switch {
			case err2 == nil:
				tree, err, text, back = tree2, nil, full, fullBack
				clauses = rw.kinds&clauseEdit != 0
			case rw.kinds&clauseEdit != 0:
				// A statement with sequence clauses fails where the
				// rewritten text fails (a clause that is not well
				// formed, or another error). A rewrite of spellings
				// alone that does not help reports PostgreSQL's error.
				err, text, back = err2, full, fullBack
			}
		}
	}
	if err != nil {
		return nil, located(parseError(err), q, text, back)
	}
	sent := ""
	if back != nil {
		sent = q
	}
	out := make([]Statement, 0, len(tree.Stmts))
	for _, raw := range tree.Stmts {
		start := int(raw.StmtLocation)
		end := len(text)
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		st := Statement{Node: raw.Stmt, Query: text, Start: start, End: end, sent: sent, back: back}
		if clauses {
			st.Clauses = takeClauses(raw.Stmt)
		}
		out = append(out, st)
	}
	if len(out) > 0 {
		out[0].Notices = truncationNotices(&sc)
	}
	return out, nil
}

// scanner scans a query string once, when first asked.
type scanner struct {
	q       string
	scanned bool
	toks    []*pg.ScanToken
	ok      bool
}

func (s *scanner) tokens() ([]*pg.ScanToken, bool) {
	if !s.scanned {
		s.scanned = true
		if res, err := pg.Scan(s.q); err == nil {
			s.toks, s.ok = res.Tokens, true
		}
	}
	return s.toks, s.ok
}

func (s *scanner) rewrite() *rewrite {
	toks, _ := s.tokens()
	return planRewrite(s.q, toks)
}

// located moves a parse error's position in text, the rewrite of q that
// back maps to q, to its place in q.
func located(err *sqlerr.Error, q, text string, back func(int) int) error {
	if back != nil && err.Pos > 0 {
		err.Pos = sqlerr.CharPos(q, back(byteOffset(text, err.Pos)))
	}
	return err
}

// byteOffset is the byte offset of 1-based character position pos in s.
func byteOffset(s string, pos int) int {
	n := 1
	for i := range s {
		if n == pos {
			return i
		}
		n++
	}
	return len(s)
}

// parseError turns the grammar's error into an Error. libpg_query does not
// pass the SQLSTATE on; nearly all of gram.y's and scan.l's errors are
// syntax errors, and the few that are not say so in their message.
func parseError(err error) *sqlerr.Error {
	var pe *parser.Error
	if !errors.As(err, &pe) {
		return &sqlerr.Error{Kind: sqlerr.SyntaxError, Msg: err.Error()}
	}
	kind := sqlerr.SyntaxError
	if strings.Contains(pe.Message, "not supported") || strings.Contains(pe.Message, "not yet implemented") ||
		strings.Contains(pe.Message, "no longer supported") || strings.Contains(pe.Message, "cannot be changed") {
		kind = sqlerr.FeatureNotSupported
	}
	return &sqlerr.Error{Kind: kind, Msg: pe.Message, Pos: pe.Cursorpos}
}

// parseCache maps query text to parse results. It holds at most
// cacheEntries queries of at most cacheText bytes, and at most cacheBytes
// of estimated memory (a parse tree in Go takes some 17 times its
// protobuf size: a deep 8 KB statement 1.5 MB); when full, arbitrary
// entries make room. It is safe for concurrent use.
type parseCache struct {
	mu    sync.RWMutex
	m     map[string]cached
	bytes int64
}

type cached struct {
	st   []Statement
	cost int64
}

const (
	cacheEntries = 4096
	cacheText    = 8192
	cacheBytes   = 64 << 20
	// treeFactor is how many bytes of Go memory a parse tree takes per
	// byte of its protobuf encoding (measured: 16-18).
	treeFactor = 20
)

var cache = parseCache{m: make(map[string]cached)}

func (c *parseCache) get(q string) ([]Statement, bool) {
	c.mu.RLock()
	e, ok := c.m[q]
	c.mu.RUnlock()
	return e.st, ok
}

// Cacheable reports whether the parse cache may keep query text q's
// statements (their trees are then shared by every repetition of q).
func Cacheable(q string) bool { return len(q) <= cacheText }

func (c *parseCache) put(q string, st []Statement) {
	if !Cacheable(q) {
		return
	}
	cost := int64(len(q)) + 256
	for i := range st {
		st[i].Cost = treeFactor * int64(proto.Size(st[i].Node))
		cost += st[i].Cost
	}
	if cost > cacheBytes/16 {
		return // one statement may not take a sixteenth of the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[q]; ok {
		return
	}
	for k, e := range c.m {
		if len(c.m) < cacheEntries && c.bytes+cost <= cacheBytes {
			break
		}
		delete(c.m, k)
		c.bytes -= e.cost
	}
	c.m[q] = cached{st: st, cost: cost}
	c.bytes += cost
}
