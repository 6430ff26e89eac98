// Package pgsql is PostgreSQL's SQL text: it parses what clients send
// with PostgreSQL's own grammar, and knows its names (qualified names,
// quoting, truncation, reserved keywords). Its failures are package
// sqlerr's errors, positioned in the statement.
//
// The grammar is PostgreSQL's parser itself, through
// github.com/pganalyze/pg_query_go (libpg_query: the server's scan.l and
// gram.y compiled as a library). A hand-written grammar meets a wall at
// every construct a new tool sends; this one accepts exactly what
// PostgreSQL accepts and reports a syntax error with PostgreSQL's message
// and position. The module proxy offers pg_query_go v6 (PostgreSQL 17's
// grammar); statements PostgreSQL 15 accepts parse the same, and the
// executor, not the grammar, decides what seqd runs.
//
// On top of it sit the MariaDB and TiDB spellings of sequence functions
// and options (NEXT VALUE FOR s, NEXTVAL(s), NOCACHE, ...) and seqd's own
// sequence clauses (the shapes', ORDER, NOORDER), rewritten into
// PostgreSQL's grammar from one scan of the text, with one map back to the
// text as sent for error positions (rewrite.go); the clauses reach the
// executor as data (Statement.Clauses). A cache of parse results by
// statement text parses a repeated statement once.
package pgsql
