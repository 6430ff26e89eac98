package pgsql

import pg "github.com/pganalyze/pg_query_go/v6"

// IsReservedKeyword reports whether quote_ident must quote word: any
// keyword but an unreserved one, as PostgreSQL decides.
func IsReservedKeyword(word string) bool {
	r, err := pg.Scan(word)
	if err != nil || len(r.Tokens) != 1 || int(r.Tokens[0].End) != len(word) {
		return false
	}
	return r.Tokens[0].KeywordKind > pg.KeywordKind_UNRESERVED_KEYWORD
}
