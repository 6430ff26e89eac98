// Package sql parses seqd's SQL dialect: PostgreSQL's sequence statements
// and functions, the MariaDB/TiDB spellings, and what drivers send around
// them. It does no I/O.
package sql

import (
	"fmt"
	"strings"
)

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tQuotedIdent
	tString
	tNumber
	tParam
	tPunct
)

type token struct {
	kind tokKind
	text string // identifiers lowercased; strings unescaped; punct as is
	pos  int    // byte offset in the query
}

// Error is a parse failure. Syntax is true for syntax errors (SQLSTATE
// 42601), false for valid SQL that seqd does not implement (0A000) or a
// bad value (Code says which).
type Error struct {
	Code string // PostgreSQL SQLSTATE
	Msg  string
	Pos  int // 1-based character position for syntax errors, 0 if none
}

func (e *Error) Error() string { return e.Msg }

func lex(q string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			depth, j := 1, i+2
			for j < len(q) && depth > 0 {
				switch {
				case strings.HasPrefix(q[j:], "/*"):
					depth, j = depth+1, j+2
				case strings.HasPrefix(q[j:], "*/"):
					depth, j = depth-1, j+2
				default:
					j++
				}
			}
			if depth > 0 {
				return nil, &Error{Code: "42601", Msg: "unterminated /* comment at or near \"" + trunc(q[i:]) + "\"", Pos: charPos(q, i)}
			}
			i = j
		case isIdentStart(c):
			j := i
			for j < len(q) && isIdentChar(q[j]) {
				j++
			}
			toks = append(toks, token{tIdent, strings.ToLower(q[i:j]), i})
			i = j
		case c == '"':
			text, end, ok := scanQuoted(q, i)
			if !ok {
				return nil, &Error{Code: "42601", Msg: "unterminated quoted identifier at or near \"" + trunc(q[i:]) + "\"", Pos: charPos(q, i)}
			}
			if text == "" {
				return nil, &Error{Code: "42601", Msg: "zero-length delimited identifier at or near \"\"\"\"", Pos: charPos(q, i)}
			}
			toks = append(toks, token{tQuotedIdent, text, i})
			i = end
		case c == '\'':
			text, end, ok := scanQuoted(q, i)
			if !ok {
				return nil, &Error{Code: "42601", Msg: "unterminated quoted string at or near \"" + trunc(q[i:]) + "\"", Pos: charPos(q, i)}
			}
			toks = append(toks, token{tString, text, i})
			i = end
		case c >= '0' && c <= '9':
			j := i
			for j < len(q) && (q[j] >= '0' && q[j] <= '9' || q[j] == '_') {
				j++
			}
			if j < len(q) && (q[j] == '.' || q[j] == 'e' || q[j] == 'E' || isIdentStart(q[j])) {
				return nil, &Error{Code: "0A000", Msg: fmt.Sprintf("seqd supports only integer literals, not %q", trunc(q[i:]))}
			}
			toks = append(toks, token{tNumber, strings.ReplaceAll(q[i:j], "_", ""), i})
			i = j
		case c == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			toks = append(toks, token{tParam, q[i+1 : j], i})
			i = j
		case c == ':' && i+1 < len(q) && q[i+1] == ':':
			toks = append(toks, token{tPunct, "::", i})
			i += 2
		case strings.IndexByte("(),;.*=-+", c) >= 0:
			toks = append(toks, token{tPunct, string(c), i})
			i++
		default:
			return nil, &Error{Code: "42601", Msg: fmt.Sprintf("syntax error at or near \"%s\"", string(c)), Pos: charPos(q, i)}
		}
	}
	toks = append(toks, token{tEOF, "", len(q)})
	return toks, nil
}

// scanQuoted reads the quoted text starting at q[i] (its quote character),
// where a doubled quote stands for one; end is just past the closing quote.
func scanQuoted(q string, i int) (text string, end int, ok bool) {
	quote := q[i]
	var b strings.Builder
	for j := i + 1; j < len(q); j++ {
		if q[j] != quote {
			b.WriteByte(q[j])
			continue
		}
		if j+1 < len(q) && q[j+1] == quote {
			b.WriteByte(quote)
			j++
			continue
		}
		return b.String(), j + 1, true
	}
	return "", len(q), false
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

// charPos converts a byte offset to PostgreSQL's 1-based character position.
func charPos(q string, off int) int { return len([]rune(q[:off])) + 1 }

func trunc(s string) string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}
