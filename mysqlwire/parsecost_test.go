package mysqlwire

import (
	"runtime"
	"strings"
	"testing"

	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgsql"
)

// TestParseCostBound holds frontend.ParseCostPerByte to what parsing and
// building costs: over the shapes of statement that cost most per byte
// of text, what MySQL's parser and the translation after it allocate,
// and what PostgreSQL's parser allocates, is at most ParseCostPerByte
// bytes per byte (measured at about 730 and 400). Were a change to cost
// more, the room long statements share (-max-parse-memory) would count
// them short.
func TestParseCostBound(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations of long statements")
	}
	const n = 20000
	list := func(item string) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	shapes := map[string]string{
		"integers":   "SELECT " + list("1"),
		"names":      "SELECT " + list("a") + " FROM t",
		"strings":    "SELECT " + list("''"),
		"negatives":  "SELECT " + list("-1"),
		"brackets":   "SELECT " + list("(1)"),
		"in list":    "SELECT 1 IN (" + list("1") + ")",
		"arguments":  "SELECT concat(" + list("1") + ")",
		"markers":    "SELECT " + list("?"),
		"calls":      "SELECT " + list("nextval(s)"),
		"rows":       "SELECT 1 FROM t WHERE (a, b) IN (" + list("(1,1)") + ")",
		"case":       "SELECT CASE " + strings.Repeat("WHEN 1 THEN 1 ", n) + "END",
		"statements": strings.Repeat("SELECT 1;", n),
		"sums":       "SELECT " + strings.Repeat("1+", 4000) + "1",
		"unary":      "SELECT " + strings.Repeat("~", 4000) + "1",
		"bits":       "SELECT " + strings.Repeat("1&", 4000) + "1",
		"nots":       "SELECT " + strings.Repeat("!", 4000) + "1",
		"tests":      "SELECT " + list("1 IS NULL"),
		"variables":  "SET " + list("@a=1"),
		"unions":     strings.Repeat("SELECT 1 UNION ", 2000) + "SELECT 1",
	}
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	p := newParser()
	for name, q := range shapes {
		my := allocated(func() { _, _ = translate(p, q, stmtEnv{db: "db", user: "u@h"}) })
		pg := allocated(func() { _, _ = pgsql.Parse(q) })
		for _, c := range []struct {
			front string
			bytes uint64
		}{{"MySQL", my}, {"PostgreSQL", pg}} {
			if per := float64(c.bytes) / float64(len(q)); per > frontend.ParseCostPerByte {
				t.Errorf("%s, %d bytes, over %s's protocol: %.0f bytes allocated per byte of text, more than ParseCostPerByte (%d)",
					name, len(q), c.front, per, frontend.ParseCostPerByte)
			}
		}
	}
}
