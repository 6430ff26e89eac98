package pgsql

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/seqd/seqd/sqlerr"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// QName is a possibly schema-qualified relation name; Schema is empty when
// none was given. Catalog is the database part of a three-part name.
type QName struct{ Catalog, Schema, Rel string }

// SplitIdentifiers splits a list of identifiers separated by sep, as
// PostgreSQL's SplitIdentifierString does: spaces around names allowed,
// names lowercased unless double-quoted ("" stands for a quote), each
// truncated to MaxIdentifierLength. ok is false for a malformed list.
func SplitIdentifiers(text string, sep byte) (parts []string, ok bool) {
	i := 0
	for {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i == len(text) {
			return parts, false
		}
		var part string
		if text[i] == '"' {
			var b strings.Builder
			i++
			for {
				j := strings.IndexByte(text[i:], '"')
				if j < 0 {
					return parts, false
				}
				b.WriteString(text[i : i+j])
				i += j + 1
				if i < len(text) && text[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			part = b.String()
			if part == "" {
				return parts, false
			}
		} else {
			j := i
			for j < len(text) && text[j] != sep && !isSpace(text[j]) && text[j] != '"' {
				j++
			}
			if j == i {
				return parts, false
			}
			part = strings.ToLower(text[i:j])
			i = j
		}
		parts = append(parts, TruncateIdentifier(part))
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i == len(text) {
			return parts, true
		}
		if text[i] != sep {
			return parts, false
		}
		i++
	}
}

// ParseQualifiedName parses the text form of a relation name, as
// regclass's input function does (nextval('s'), 'public."S"'::regclass):
// dot-separated identifiers.
func ParseQualifiedName(text string) (QName, error) {
	parts, ok := SplitIdentifiers(text, '.')
	if !ok {
		return QName{}, sqlerr.Errorf(sqlerr.InvalidName, "invalid name syntax")
	}
	switch len(parts) {
	case 1:
		return QName{Rel: parts[0]}, nil
	case 2:
		return QName{Schema: parts[0], Rel: parts[1]}, nil
	case 3:
		return QName{Catalog: parts[0], Schema: parts[1], Rel: parts[2]}, nil
	}
	return QName{}, sqlerr.Errorf(sqlerr.SyntaxError, "improper relation name (too many dotted names): %s", strings.Join(parts, "."))
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// QuoteIdent quotes an identifier when PostgreSQL's quote_ident would.
func QuoteIdent(s string) string {
	safe := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe && !IsReservedKeyword(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteLiteral is s as a standard string literal (standard_conforming_strings
// on: quotes doubled, backslashes as they are).
func QuoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// MaxIdentifierLength is PostgreSQL's NAMEDATALEN-1: longer identifiers are
// truncated to it.
const MaxIdentifierLength = 63

// TruncateIdentifier cuts an identifier to MaxIdentifierLength bytes,
// never inside a character.
func TruncateIdentifier(s string) string {
	if len(s) <= MaxIdentifierLength {
		return s
	}
	n := MaxIdentifierLength
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncationNotices are PostgreSQL's NOTICEs for the identifiers of the
// query string longer than MaxIdentifierLength, which its scanner (and so
// the parse tree) truncates.
func truncationNotices(sc *scanner) []Notice {
	q := sc.q
	if !hasLongWord(q) {
		return nil
	}
	toks, ok := sc.tokens()
	if !ok {
		return nil
	}
	var out []Notice
	for _, t := range toks {
		if t.Token != pg.Token_IDENT || int(t.End-t.Start) <= MaxIdentifierLength {
			continue
		}
		word := q[t.Start:t.End]
		if strings.HasPrefix(word, `"`) {
			word = strings.ReplaceAll(word[1:len(word)-1], `""`, `"`)
		} else {
			word = strings.ToLower(word)
		}
		if len(word) > MaxIdentifierLength {
			out = append(out, Notice{Kind: sqlerr.NameTooLong, Msg: fmt.Sprintf("identifier \"%s\" will be truncated to \"%s\"", word, TruncateIdentifier(word))})
		}
	}
	return out
}

// hasLongWord is a quick test that q may hold an identifier longer than
// the limit: a run of more than MaxIdentifierLength bytes without a
// space, comma or parenthesis.
func hasLongWord(q string) bool {
	run := 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case ' ', '\t', '\n', '\r', ',', '(', ')', ';', '.':
			run = 0
		default:
			run++
			if run > MaxIdentifierLength {
				return true
			}
		}
	}
	return false
}
