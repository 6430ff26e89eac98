package mysqlwire

import (
	"strings"
	"testing"
)

// An ordinary login's attacks on the MySQL dialect's surfaces: each test
// here failed before the change it names.

// TestTooManyPlaceholders: a statement of more ? markers than a prepared
// statement's 16-bit parameter count holds is refused as MariaDB 10.11
// refuses it (1390), where it was prepared (several times, seconds of CPU
// for 300000 markers) and answered with PostgreSQL's words, 1105 "there
// is no parameter $65536".
func TestTooManyPlaceholders(t *testing.T) {
	addr, _ := startServer(t, Config{MaxMessage: 4 << 20})
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	for _, q := range []string{
		"SELECT " + strings.TrimSuffix(strings.Repeat("?, ", 65536), ", "),
		"SELECT 1 WHERE 1 IN (" + strings.TrimSuffix(strings.Repeat("?, ", 65536), ", ") + ")",
	} {
		if p := c.tryPrepare(q); !isError(p, 1390, "HY000", "Prepared statement contains too many placeholders") {
			t.Errorf("prepare %.40q... of 65537 markers: %s, want 1390 (HY000) Prepared statement contains too many placeholders", q, describe(p))
		}
	}
	if p := c.ping(); p[0] != 0 {
		t.Fatalf("COM_PING after: %s", describe(p))
	}
}
