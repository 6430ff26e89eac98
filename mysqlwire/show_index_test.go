package mysqlwire

import (
	"testing"
)

// TestShowIndexOracle: SHOW INDEX, INDEXES and KEYS of a sequence and of
// information_schema's tables, no rows in MariaDB's columns; a table not
// there, a WHERE over the result's columns (an unknown one), a LIKE
// MariaDB's grammar refuses: on MariaDB 10.11 and on seqd, as text and
// prepared.
func TestShowIndexOracle(t *testing.T) {
	script := []string{
		"CREATE SEQUENCE s1",
		"SHOW INDEX FROM s1", "SHOW INDEXES FROM s1", "SHOW KEYS IN s1", "SHOW INDEX FROM s1 FROM %db", "SHOW INDEX FROM %db.s1",
		"SHOW INDEX FROM nope", "SHOW INDEX FROM nodb.s1", "SHOW INDEX FROM information_schema.tables",
		"SHOW INDEX FROM information_schema.nope", "SHOW INDEX FROM s1 WHERE Key_name = 'PRIMARY'", "SHOW INDEX FROM s1 WHERE nope = 1",
		"SHOW INDEX FROM s1 LIKE 'x'", "SHOW INDEX FROM nope WHERE Key_name = 'x'",
	}
	oracleScript(t, "seqd_show_index", script)
}
