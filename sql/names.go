package sql

import "strings"

// QName is a possibly schema-qualified relation name; Schema is empty when
// none was given. Catalog is the database part of a three-part name.
type QName struct{ Catalog, Schema, Rel string }

// ParseQualifiedName parses the text form of a relation name, as
// regclass's input function does (nextval('s'), 'public."S"'::regclass):
// dot-separated identifiers, lowercased unless double-quoted, with spaces
// around them allowed.
func ParseQualifiedName(text string) (QName, error) {
	var parts []string
	i := 0
	bad := func() (QName, error) { return QName{}, Errorf(InvalidName, "invalid name syntax") }
	for {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i == len(text) {
			return bad()
		}
		var part string
		if text[i] == '"' {
			var b strings.Builder
			i++
			for {
				j := strings.IndexByte(text[i:], '"')
				if j < 0 {
					return bad()
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
				return bad()
			}
		} else {
			j := i
			for j < len(text) && text[j] != '.' && !isSpace(text[j]) && text[j] != '"' {
				j++
			}
			if j == i {
				return bad()
			}
			part = strings.ToLower(text[i:j])
			i = j
		}
		parts = append(parts, part)
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i == len(text) {
			break
		}
		if text[i] != '.' {
			return bad()
		}
		i++
	}
	switch len(parts) {
	case 1:
		return QName{Rel: parts[0]}, nil
	case 2:
		return QName{Schema: parts[0], Rel: parts[1]}, nil
	case 3:
		return QName{Catalog: parts[0], Schema: parts[1], Rel: parts[2]}, nil
	}
	return QName{}, Errorf(SyntaxError, "improper relation name (too many dotted names): %s", strings.Join(parts, "."))
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
