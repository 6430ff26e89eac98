package mysqlwire

import (
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestGrantsOracle compares SHOW GRANTS and information_schema's
// USER_PRIVILEGES, SCHEMA_PRIVILEGES and TABLE_PRIVILEGES with MariaDB
// 10.11's, for an account granted a role, CREATE on one database, every
// privilege on another and SELECT and INSERT on a sequence (seqd's role:
// the role, CREATE on one schema, the other's ownership, SELECT and
// USAGE on the sequence), read by a superuser; and, read by an account
// that is none, its own grants, another's refused (1044), and an account
// that is not there (1141). SHOW GRANTS' lines are compared as a set
// (MariaDB lists databases in its own order), with the password MariaDB
// writes of an account that has one left out (seqd never shows one).
func TestGrantsOracle(t *testing.T) {
	_, db := testenv.MariaDBConn(t, "seqd_grants")
	n := os.Getpid()
	gu, gp, gr, a, b := fmt.Sprintf("gu_%d", n), fmt.Sprintf("gp_%d", n), fmt.Sprintf("gr_%d", n), db+"_a", db+"_b"
	admin, err := sql.Open("mysql", testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	drop := func() {
		for _, q := range []string{"DROP USER IF EXISTS " + gu, "DROP USER IF EXISTS " + gp, "DROP ROLE IF EXISTS " + gr,
			"DROP DATABASE IF EXISTS " + a, "DROP DATABASE IF EXISTS " + b} {
			admin.Exec(q)
		}
	}
	drop()
	defer drop()
	for _, q := range []string{"CREATE DATABASE " + a, "CREATE DATABASE " + b, "CREATE SEQUENCE " + a + ".s",
		"CREATE USER " + gu + "@'%'", "CREATE USER " + gp + "@'%' IDENTIFIED BY 'gp pw'", "CREATE ROLE " + gr,
		"GRANT " + gr + " TO " + gu + "@'%'", "GRANT CREATE ON " + a + ".* TO " + gu + "@'%'", "GRANT ALL ON " + b + ".* TO " + gu + "@'%'",
		"GRANT SELECT, INSERT ON " + a + ".s TO " + gu + "@'%'"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("MariaDB: %s: %v", q, err)
		}
	}
	addr, eng := startServer(t, Config{})
	root := open(t, addr, "root", "")
	for _, q := range []string{"CREATE DATABASE " + a, "CREATE DATABASE " + b, "CREATE SEQUENCE " + a + ".s"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("seqd: %s: %v", q, err)
		}
	}
	for _, q := range []string{"CREATE ROLE " + gu, "CREATE ROLE " + gp + " LOGIN PASSWORD 'gp pw'", "CREATE ROLE " + gr,
		"GRANT " + gr + " TO " + gu, "GRANT CREATE ON SCHEMA " + a + " TO " + gu, "ALTER SCHEMA " + b + " OWNER TO " + gu,
		"GRANT SELECT, USAGE ON SEQUENCE " + a + ".s TO " + gu} {
		pgExec(t, eng, q)
	}
	password := regexp.MustCompile(` IDENTIFIED BY PASSWORD '[^']*'`)
	// result is q's outcome, a SHOW GRANTS' lines sorted.
	result := func(c *oracleConn, q string) string {
		out := strings.Split(password.ReplaceAllString(statementResult(c, q, false), ""), "\n")
		if strings.HasPrefix(q, "SHOW GRANTS") && len(out) > 2 {
			slices.Sort(out[1 : len(out)-1]) // the lines between the header and the types
		}
		return strings.Join(out, "\n")
	}
	grantee := `"'` + gu + `'@'%'"`
	var diffs []string
	compare := func(mc, sc *oracleConn, qs ...string) {
		for _, q := range qs {
			if want, got := result(mc, q), result(sc, q); want != got {
				diffs = append(diffs, fmt.Sprintf("%s\n  MariaDB: %s\n  seqd:    %s", q, want, got))
			}
		}
	}
	sc := tappedConn(t, seqdDSN(addr, "root"), "")
	if got := result(sc, "SHOW GRANTS FOR "+gu); !strings.Contains(got, "GRANT SELECT, INSERT ON `"+a+"`.`s` TO `"+gu+"`@`%`") ||
		!strings.Contains(got, "GRANT ALL PRIVILEGES ON `"+b+"`.* TO") {
		t.Fatalf("SHOW GRANTS FOR %s: %s", gu, got)
	}
	compare(tappedConn(t, testenv.MariaDBDSN(t), db), sc,
		"SHOW GRANTS FOR "+gu, "SHOW GRANTS FOR '"+gu+"'@'%'", "SHOW GRANTS FOR nope_grants",
		"SELECT * FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = "+grantee,
		"SELECT * FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = "+grantee+" ORDER BY TABLE_SCHEMA, PRIVILEGE_TYPE",
		"SELECT * FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = "+grantee+" ORDER BY PRIVILEGE_TYPE",
		"SELECT COUNT(*) FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = "+grantee+" AND TABLE_SCHEMA = '"+a+"'")
	mdsn := strings.Replace(testenv.MariaDBDSN(t), "seqd:seqd@", gp+":gp pw@", 1)
	compare(tappedConn(t, mdsn, ""), tappedConn(t, fmt.Sprintf("%s:gp pw@tcp(%s)/", gp, addr), ""),
		"SHOW GRANTS", "SHOW GRANTS FOR CURRENT_USER", "SHOW GRANTS FOR "+gu, "SHOW GRANTS FOR nope_grants",
		"SELECT * FROM information_schema.USER_PRIVILEGES", "SELECT COUNT(*) FROM information_schema.SCHEMA_PRIVILEGES",
		"SELECT COUNT(*) FROM information_schema.TABLE_PRIVILEGES")
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}
