package pgsql

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// Why a statement is measured before it is parsed.
//
// libpg_query parses on the calling thread's C stack. PostgreSQL's grammar
// is LALR (its own stack is bounded by YYMAXDEPTH and fails cleanly with
// "memory exhausted"), but the parse tree is then walked recursively to
// serialize it for Go, and that walk has no stack check: a left-deep chain
// such as 1+1+...+1 with ~22,000 terms overflows the 8 MiB thread stack and
// the whole process dies with SIGSEGV. Go's protobuf decoder then refuses
// trees deeper than 10,000 messages, so nothing deeper than a few thousand
// expression levels could be served anyway.
//
// The mechanism chosen: a bounded pre-scan with PostgreSQL's own scanner
// (scan.l, iterative and flat: no recursion however deep the text), which
// computes an upper bound on the parse tree's depth and refuses a
// statement above MaxDepth with PostgreSQL's own error for the same
// condition (54001 "stack depth limit exceeded"). The alternatives were
// worse: a parser thread with a larger stack needs C of our own calling
// into libpg_query's symbols, and only moves the cliff; libpg_query's
// check_stack_depth covers the grammar's semantic actions, not the walk
// that crashes. The scan runs only for statements long enough to reach
// the bound (every level costs at least one byte of text), so the common
// short statement pays nothing.
//
// The bound: brackets ((), [], CASE ... END) open a level; within a level,
// every token that is not an identifier, a constant or a separator may add
// one node above the previous ones (an operator, a cast, NOT, IS, ...).
// Separators (commas, AND and OR, which PostgreSQL's grammar flattens into
// one list, and the keywords that start a clause) end such a run. Set
// operations and joins nest what precedes them, so each adds a level that
// no separator ends. The estimate is the largest sum, over the open
// levels, of each level's nesting and run plus a fixed allowance per
// level: never below the real depth (the tests and the fuzz target check
// it against the parsed tree), and near it for the chains that matter.

// MaxDepth is the deepest parse tree (as estimated by the pre-scan) seqd
// parses. PostgreSQL with its default max_stack_depth (2 MB) refuses
// expressions some thousands of levels deep; 1,000 is far above anything a
// program or a person writes, and far below what overflows the parser.
const MaxDepth = 1000

// depthError is what a statement over MaxDepth fails with.
func depthError() *sqlerr.Error {
	return &sqlerr.Error{
		Kind: sqlerr.StatementTooComplex,
		Msg:  "stack depth limit exceeded",
		Hint: "seqd parses expressions nested at most 1000 levels deep; split the statement or simplify the expression.",
	}
}

// level is one open bracket of the pre-scan: what closes it, the depth
// of the levels around it, the set operations and joins it chains, and its
// current run of operator-like tokens.
type level struct {
	close pg.Token
	base  int
	nest  int
	run   int
}

// The pre-scan's allowances: bracketCost for the nodes a bracket may
// stand for (a subquery is a SubLink, a SelectStmt and a ResTarget), and
// levelCost for the nodes a level may add besides its runs (the
// statement, its target, an OR over ANDs, the leaf and its name).
const (
	bracketCost = 3
	levelCost   = 6
)

// estimateDepth is the upper bound on the tree depth of the scanned
// tokens described at the top of this file.
func estimateDepth(tokens []*pg.ScanToken) int {
	stack := []level{{}}
	deepest := 0
	for _, t := range tokens {
		top := &stack[len(stack)-1]
		switch t.Token {
		case pg.Token_ASCII_40, pg.Token_ASCII_91, pg.Token_CASE: // ( [ CASE
			closer := pg.Token_ASCII_41
			switch t.Token {
			case pg.Token_ASCII_91:
				closer = pg.Token_ASCII_93
			case pg.Token_CASE:
				closer = pg.Token_END_P
			}
			base := top.base + top.nest + top.run + bracketCost
			stack = append(stack, level{close: closer, base: base})
			deepest = max(deepest, base+levelCost)
			continue
		case pg.Token_ASCII_41, pg.Token_ASCII_93, pg.Token_END_P: // ) ] END
			if len(stack) > 1 && top.close == t.Token {
				stack = stack[:len(stack)-1]
				stack[len(stack)-1].run++
				continue
			}
		}
		switch {
		case t.Token == pg.Token_SQL_COMMENT || t.Token == pg.Token_C_COMMENT:
			continue // no node
		case chains(t):
			top.nest++
			top.run = 0
		case separates(t):
			top.run = 0
		case operand(t):
		default:
			top.run++
		}
		deepest = max(deepest, top.base+top.nest+top.run+levelCost)
	}
	return deepest
}

// chains reports whether t joins what precedes it into a left-deep tree
// of statements or relations: UNION, INTERSECT, EXCEPT and JOIN each add a
// node above everything before them at their level.
func chains(t *pg.ScanToken) bool {
	switch t.Token {
	case pg.Token_UNION, pg.Token_INTERSECT, pg.Token_EXCEPT, pg.Token_JOIN:
		return true
	}
	return false
}

// operand reports whether t is a leaf of an expression: a name or a
// constant.
func operand(t *pg.ScanToken) bool {
	switch t.Token {
	case pg.Token_IDENT, pg.Token_UIDENT, pg.Token_FCONST, pg.Token_SCONST, pg.Token_USCONST,
		pg.Token_BCONST, pg.Token_XCONST, pg.Token_ICONST, pg.Token_PARAM, pg.Token_ASCII_46: // .
		return true
	}
	// Unreserved and column-name keywords are names where they stand as
	// operands; counting them is merely less tight.
	return false
}

// separates reports whether t ends a run: list and statement separators,
// the boolean connectives the grammar flattens, and the keywords that
// begin a clause or a CASE branch.
func separates(t *pg.ScanToken) bool {
	switch t.Token {
	case pg.Token_ASCII_44, pg.Token_ASCII_59, // , ;
		pg.Token_AND, pg.Token_OR,
		pg.Token_SELECT, pg.Token_FROM, pg.Token_WHERE, pg.Token_GROUP_P, pg.Token_HAVING,
		pg.Token_ORDER, pg.Token_LIMIT, pg.Token_OFFSET, pg.Token_VALUES, pg.Token_ON, pg.Token_SET, pg.Token_AS,
		pg.Token_WHEN, pg.Token_THEN, pg.Token_ELSE, pg.Token_RETURNING, pg.Token_WITH:
		return true
	}
	return false
}
