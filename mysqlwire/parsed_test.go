package mysqlwire

import (
	"slices"
	"strings"
	"testing"
)

// stillParsed are the corpus's statements that reach PostgreSQL's parser
// (pgsql.Parse) when they run, as text or prepared: what the builder does
// not convert yet (a SELECT from a sequence or from information_schema,
// SHOW FULL TABLES) and the answers made here of SQL text (SHOW CREATE
// SEQUENCE, USE). A statement converted since is taken off the list.
var stillParsed = []string{
	"SELECT * FROM s5",
	"SELECT * FROM s6",
	"SELECT next_not_cached_value, CYCLE_OPTION AS c FROM s5",
	"SELECT * FROM nope",
	"SHOW FULL TABLES",
	"SELECT table_name, TABLE_TYPE, engine, table_rows, temporary FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name",
	"SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 's5' AND TABLE_TYPE = 'SEQUENCE'",
	"SELECT schema_name, catalog_name FROM information_schema.schemata WHERE schema_name = DATABASE()",
	"SELECT start_value, increment, cache_size FROM s1",
	// Answered here with statements of SQL text: SHOW CREATE SEQUENCE
	// reads pg_sequences, a rename runs ALTER SEQUENCE RENAME and SET
	// SCHEMA.
	"SHOW CREATE SEQUENCE s5", "SHOW CREATE SEQUENCE s6", "SHOW CREATE SEQUENCE nope", "SHOW CREATE SEQUENCE s1",
	"RENAME TABLE s5 TO s7", "RENAME TABLE nope TO x", "RENAME TABLE s7 TO s6", "RENAME TABLE s7 TO s8, nope TO y",
	"RENAME TABLE s7 TO s8, s8 TO s10", "ALTER TABLE s10 RENAME TO s9", "RENAME TABLE s9 TO s9",
}

// TestParsedOnce: running the corpus, as text and prepared, only the
// statements of stillParsed have seqd parse PostgreSQL text; every other
// one runs the tree built of TiDB's (or is answered here), so a statement
// built once that is parsed again fails the test.
func TestParsedOnce(t *testing.T) {
	var current string
	parsed := map[string]bool{}
	parseHook = func(string) {
		if current != "" {
			parsed[current] = true
		}
	}
	defer func() { parseHook = nil }()
	for _, prepared := range []bool{false, true} {
		addr, _ := startServer(t, Config{})
		if _, err := open(t, addr, "root", "").Exec("CREATE DATABASE seqd_parsed"); err != nil {
			t.Fatal(err)
		}
		c, err := open(t, addr, "root", "seqd_parsed").Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range corpus {
			current = q
			outcome(c, q, prepared)
			current = ""
		}
		c.Close()
	}
	var got []string
	for _, q := range corpus {
		if parsed[q] && !slices.Contains(got, q) {
			got = append(got, q)
		}
	}
	for _, q := range got {
		if !slices.Contains(stillParsed, q) {
			t.Errorf("parsed as PostgreSQL text, but built before: %s", q)
		}
	}
	for _, q := range stillParsed {
		if !slices.Contains(got, q) {
			t.Errorf("no longer parsed (take it off stillParsed): %s", q)
		}
	}
	t.Logf("still parsed (%d):\n%s", len(got), strings.Join(got, "\n"))
}
