package mysqlwire

import (
	"database/sql"
	"encoding/binary"
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
		"SELECT COUNT(*) FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = "+grantee+" AND TABLE_SCHEMA = '"+a+"'",
		// MariaDB's grammar has no USING here (MySQL's has): 1064 near it.
		"SHOW GRANTS FOR "+gu+" USING "+gr, "show grants for '"+gu+"'@'%' using '"+gr+"', nope_grants",
		"SHOW GRANTS FOR CURRENT_USER USING "+gr, "SHOW GRANTS FOR CURRENT_USER() USING "+gr, "SHOW GRANTS FOR `using` USING "+gr,
		"SHOW GRANTS FOR 'using'@'using' USING "+gr, "SHOW GRANTS FOR "+gu+" /* USING x */ USING "+gr+" -- USING\n",
		"SHOW GRANTS FOR "+gu+"\n  USING "+gr+" /* end */;\n", "SHOW GRANTS FOR "+gu+" /*!USING "+gr+"*/", "SHOW GRANTS USING "+gr, "SHOW GRANTS FOR "+gu+" # USING\nUSING "+gr+", "+gu,
		// What follows USING is never read, nor what the parser would
		// refuse there; what precedes it is.
		"SHOW GRANTS FOR "+gu+" USING", "SHOW GRANTS FOR CURRENT_USER USING;", "SHOW GRANTS FOR "+gu+" USING "+gr+", "+gu+", USING",
		"SHOW GRANTS FOR "+gu+" USING 1", "SHOW GRANTS FOR "+gu+" USING "+gr+" /* end", "SHOW GRANTS FOR 1 USING "+gr,
		"SHOW GRANTS FOR "+gu+" USING "+gr+" 'x", "SHOW GRANTS FOR "+gu+" USING "+gr+" ; SHOW GRANTS FOR "+gu+" USING "+gr)
	mdsn := strings.Replace(testenv.MariaDBDSN(t), "seqd:seqd@", gp+":gp pw@", 1)
	compare(tappedConn(t, mdsn, ""), tappedConn(t, fmt.Sprintf("%s:gp pw@tcp(%s)/", gp, addr), ""),
		"SHOW GRANTS", "SHOW GRANTS FOR CURRENT_USER", "SHOW GRANTS FOR "+gu, "SHOW GRANTS FOR nope_grants",
		"SELECT * FROM information_schema.USER_PRIVILEGES", "SELECT COUNT(*) FROM information_schema.SCHEMA_PRIVILEGES",
		"SELECT COUNT(*) FROM information_schema.TABLE_PRIVILEGES")
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// TestGrantsOracleRoles compares information_schema's APPLICABLE_ROLES,
// ENABLED_ROLES and COLUMN_PRIVILEGES with MariaDB 10.11's, read by an
// account granted a role (WITH ADMIN OPTION) that holds another (WITH
// ADMIN OPTION) that holds a third, and by one granted none: their rows,
// and their columns' definitions, lengths in characters too. The
// MariaDB account has no default role and sets none, as SHOW GRANTS
// shows a seqd role's.
func TestGrantsOracleRoles(t *testing.T) {
	n := os.Getpid()
	u, none, r1, r2, r3 := fmt.Sprintf("ru_%d", n), fmt.Sprintf("rn_%d", n), fmt.Sprintf("r1_%d", n), fmt.Sprintf("r2_%d", n), fmt.Sprintf("r3_%d", n)
	admin, err := sql.Open("mysql", testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	drop := func() {
		for _, q := range []string{"DROP USER IF EXISTS " + u, "DROP USER IF EXISTS " + none, "DROP ROLE IF EXISTS " + r1,
			"DROP ROLE IF EXISTS " + r2, "DROP ROLE IF EXISTS " + r3} {
			admin.Exec(q)
		}
	}
	drop()
	defer drop()
	for _, q := range []string{"CREATE USER " + u + "@'%' IDENTIFIED BY 'u pw'", "CREATE USER " + none + "@'%' IDENTIFIED BY 'n pw'",
		"CREATE ROLE " + r1, "CREATE ROLE " + r2, "CREATE ROLE " + r3, "GRANT " + r3 + " TO " + r2,
		"GRANT " + r2 + " TO " + r1 + " WITH ADMIN OPTION", "GRANT " + r1 + " TO " + u + "@'%' WITH ADMIN OPTION"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("MariaDB: %s: %v", q, err)
		}
	}
	addr, eng := startServer(t, Config{})
	for _, q := range []string{"CREATE ROLE " + u + " LOGIN PASSWORD 'u pw'", "CREATE ROLE " + none + " LOGIN PASSWORD 'n pw'",
		"CREATE ROLE " + r1, "CREATE ROLE " + r2, "CREATE ROLE " + r3, "GRANT " + r3 + " TO " + r2,
		"GRANT " + r2 + " TO " + r1 + " WITH ADMIN OPTION", "GRANT " + r1 + " TO " + u + " WITH ADMIN OPTION"} {
		pgExec(t, eng, q)
	}
	mdsn := func(user, pw string) string {
		return strings.Replace(testenv.MariaDBDSN(t), "seqd:seqd@", user+":"+pw+"@", 1)
	}
	var diffs []string
	for _, c := range []struct{ user, pw string }{{u, "u pw"}, {none, "n pw"}} {
		mc, sc := tappedConn(t, mdsn(c.user, c.pw), ""), tappedConn(t, fmt.Sprintf("%s:%s@tcp(%s)/", c.user, c.pw, addr), "")
		for _, q := range []string{"SELECT * FROM information_schema.APPLICABLE_ROLES ORDER BY GRANTEE, ROLE_NAME",
			"SELECT * FROM information_schema.ENABLED_ROLES ORDER BY ROLE_NAME",
			"SELECT ROLE_NAME, IS_DEFAULT FROM information_schema.applicable_roles WHERE GRANTEE = '" + c.user + "@%'",
			"SELECT COUNT(*) FROM information_schema.ENABLED_ROLES WHERE ROLE_NAME IS NULL",
			"SELECT * FROM information_schema.COLUMN_PRIVILEGES", "SELECT COUNT(*) FROM information_schema.column_privileges"} {
			for _, prepared := range []bool{false, true} {
				want, got := statementResult(mc, q, prepared), statementResult(sc, q, prepared)
				if !prepared {
					want += "\n lengths: " + characterLengths(mc.wire.take())
					got += "\n lengths: " + characterLengths(sc.wire.take())
				}
				if want != got {
					diffs = append(diffs, fmt.Sprintf("%s as %s (prepared %v)\n  MariaDB: %s\n  seqd:    %s", q, c.user, prepared, want, got))
				}
			}
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// characterLengths are the lengths in characters of the columns of a
// text query's result in stream (what the server sent for it): each
// column definition's length over its character set's bytes for a
// character (MariaDB's information_schema is utf8mb3, seqd's utf8mb4).
func characterLengths(stream []byte) string {
	var packets [][]byte
	for len(stream) >= 4 {
		n := int(stream[0]) | int(stream[1])<<8 | int(stream[2])<<16
		if len(stream) < 4+n {
			break
		}
		packets, stream = append(packets, stream[4:4+n]), stream[4+n:]
	}
	if len(packets) == 0 || len(packets[0]) == 0 || packets[0][0] == 0 || packets[0][0] == 0xff {
		return "" // no result set
	}
	count, _ := lenEnc(packets[0])
	var out []string
	for _, p := range packets[1:min(len(packets), 1+int(count))] {
		var name string
		for i := range 6 { // catalog, schema, table, org_table, name, org_name
			l, size := lenEnc(p)
			if i == 4 {
				name = string(p[size : size+int(l)])
			}
			p = p[size+int(l):]
		}
		charset, length := binary.LittleEndian.Uint16(p[1:]), binary.LittleEndian.Uint32(p[3:])
		if perChar := map[uint16]uint32{33: 3, 45: 4, 63: 1}[charset]; perChar > 0 {
			out = append(out, fmt.Sprintf("%s %d", name, length/perChar))
		} else {
			out = append(out, fmt.Sprintf("%s %d bytes of charset %d", name, length, charset))
		}
	}
	return strings.Join(out, ", ")
}

// TestShowGrantsUsingNear: SHOW GRANTS ... USING's 1064 is near the
// USING of its own statement among several, at its line counted from
// the statement's first word, whatever the strings, names and comments
// before it hold, as MariaDB 10.11 words it (SHOW PLUGINS SONAME's
// too).
func TestShowGrantsUsingNear(t *testing.T) {
	for _, c := range []struct {
		q, near string
		line    int
	}{
		{"SELECT 'USING'; SHOW GRANTS FOR u USING r", "USING r", 1},
		{"SHOW GRANTS FOR u; SHOW GRANTS FOR `using` USING r; SELECT 1", "USING r; SELECT 1", 1},
		{"SELECT 1 /* USING */;\nSHOW GRANTS FOR 'a\\'USING' using r", "using r", 1},
		{"SHOW GRANTS FOR \"using\"@'%' /* using */ -- using\n  USING r1, r2", "USING r1, r2", 2},
		{"SELECT 1;\n\n  SHOW\nGRANTS FOR zu USING r;\n", "USING r", 2},
		{"SELECT 1;\nSHOW PLUGINS SONAME 'a'\n 'b' ;  ", "'b'", 2},
		{"SHOW GRANTS FOR u USING r; SELECT 1;", "USING r; SELECT 1", 1},
		{"SELECT 1;\nSHOW GRANTS FOR u USING;", "USING", 1},
		{"SELECT 1; SHOW GRANTS FOR u USING r; SHOW GRANTS FOR v USING s, USING", "USING r; SHOW GRANTS FOR v USING s, USING", 1},
		{"SHOW GRANTS FOR u; SHOW GRANTS FOR v USING r, USING", "USING r, USING", 1},
		{"SELECT t.show grants FROM t JOIN u USING (x) WHERE", "", 1}, // a column show, and the parser's error at the end
	} {
		_, err := translate(newParser(), c.q, stmtEnv{})
		want := fmt.Sprintf("near '%s' at line %d", c.near, c.line)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%q: %v, want an error %s", c.q, err, want)
		}
	}
}
