package compat

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
)

// psqlCommands are psql's catalog commands a user types; each must print
// on seqd what it prints on PostgreSQL 15 for the same sequences.
var psqlCommands = []string{`\ds`, `\d`, `\d s1`, `\d s2`, `\d other.s3`, `\dn`, `\l seqd_psql`, `\conninfo`, `\dt`, `\ds *.s*`,
	`\dp`, `\dp other.*`, `\dn+`, `\ds+`, `\d+ s1`, `\du seqd_psql*`, `\dg seqd_psql*`, `\df nextval`, `\dconfig datestyle`, `\l+ seqd_psql`}

// TestPsqlCatalog runs psql's catalog commands against PostgreSQL 15 and
// seqd holding the same sequences, as the same user and database, and
// compares the transcripts (ports and sizes aside).
func TestPsqlCatalog(t *testing.T) {
	psql := testenv.Command(t, "psql")
	ctx := context.Background()
	setup := []string{
		"create schema other",
		"create sequence s1",
		"create sequence s2 as integer increment 5 minvalue -10 maxvalue 1000 start 7 cache 10 cycle",
		"create sequence other.s3 increment -1",
		"drop role if exists seqd_psql_reader",
		"create role seqd_psql_reader",
		// seqd lists grantees after the owner in name order (PUBLIC
		// first); PostgreSQL in the order granted: granted so here.
		"grant select on sequence s1 to public, seqd_psql_reader",
		"grant usage, select on sequence other.s3 to seqd_psql_reader",
		"grant usage on schema other to seqd_psql_reader",
	}
	pg, sd, cfg, host, sdPort := connectBoth(t, "seqd_psql")
	for _, q := range setup {
		for _, c := range []*pgx.Conn{pg, sd} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(q, err)
			}
		}
	}
	transcript := func(h string, p uint16) string {
		var b strings.Builder
		for _, c := range psqlCommands {
			cmd := exec.Command(psql, "-X", "-h", h, "-p", fmt.Sprint(p), "-U", cfg.User, "-d", "seqd_psql", "-c", c)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", c, err, out)
			}
			fmt.Fprintf(&b, "%s\n%s", c, out)
		}
		out := regexp.MustCompile(`port "\d+"`).ReplaceAllString(b.String(), `port "N"`)
		// Sizes are seqd's own (a sequence's record, not a page of 8 kB):
		// compared as present, the columns' widths aside.
		out = regexp.MustCompile(`\d+ (bytes|kB|MB|GB)`).ReplaceAllString(out, "SIZE")
		return regexp.MustCompile(`-{2,}`).ReplaceAllString(regexp.MustCompile(` {2,}`).ReplaceAllString(out, " "), "-")
	}
	want, got := transcript(cfg.Host, cfg.Port), transcript(host, sdPort)
	if want != got {
		t.Errorf("psql on seqd differs from PostgreSQL 15:\n%s", testenv.LineDiff(want, got))
	}
}
