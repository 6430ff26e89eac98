package mysqlwire

import "testing"

// TestDivOfDoubleTyped: DIV of a DOUBLE is as long as the DOUBLE's
// characters, as MariaDB types it: a product's 22, LONGLONG, where it
// was a LONG of the integer digits a DOUBLE does not have, so that a
// prepared statement's quotient past LONG's range was refused (1690)
// where MariaDB answers; a literal's the length of its text.
func TestDivOfDoubleTyped(t *testing.T) {
	oracleScript(t, "seqd_a67_div_typed", []string{
		"CREATE SEQUENCE d2 START WITH 5",
		"SELECT (start_value * 1e9) DIV 1, (start_value * 1e0) DIV 2, CAST(start_value AS DOUBLE) DIV 1 FROM d2",
		"SELECT -'5.5' DIV 2, (1e0/3) DIV 1e-10, 1e1 DIV 3, -1.5e0 DIV 1, 123456789e0 DIV 1, 1234567890e0 DIV 1",
	})
}
