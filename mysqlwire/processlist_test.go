package mysqlwire

import (
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/testenv"
)

// TestProcesslistOracle compares SHOW [FULL] PROCESSLIST and
// information_schema.PROCESSLIST with MariaDB 10.11's: columns, their
// definitions, and the rows of the reading connection and of an idle
// one, in what does not depend on the server (IDs, ports and users
// differ: the oracle's users are not the same).
func TestProcesslistOracle(t *testing.T) {
	_, dbName, addr := sameDatabases(t, "seqd_processlist")
	mc, sc := tappedConn(t, testenv.MariaDBDSN(t), dbName), tappedConn(t, seqdDSN(addr, "root"), dbName)
	idle := map[*oracleConn]int64{}
	for c, dsn := range map[*oracleConn]string{mc: testenv.MariaDBDSN(t), sc: seqdDSN(addr, "root")} {
		var id int64
		if err := tappedConn(t, dsn, dbName).QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		idle[c] = id
	}
	statements := []string{
		"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()",
		"SELECT COMMAND, STATE, INFO, DB, TIME, STAGE, MAX_STAGE, PROGRESS, INFO_BINARY, EXAMINED_ROWS FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()",
		"SELECT HOST LIKE '127.0.0.1:%', TIME_MS < 60000 FROM information_schema.processlist WHERE id = CONNECTION_ID()",
		"SELECT COMMAND, STATE, INFO, DB FROM information_schema.PROCESSLIST WHERE ID = {idle}",
		"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN (CONNECTION_ID(), {idle})",
		"SELECT * FROM information_schema.PROCESSLIST WHERE ID = -1",
		"SELECT PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_STATUS, PLUGIN_TYPE, PLUGIN_LIBRARY, PLUGIN_LIBRARY_VERSION, PLUGIN_AUTHOR, PLUGIN_DESCRIPTION, " +
			"PLUGIN_LICENSE, LOAD_OPTION, PLUGIN_MATURITY, PLUGIN_TYPE_VERSION LIKE '1011%' FROM information_schema.PLUGINS " +
			"WHERE PLUGIN_NAME IN ('mysql_native_password', 'SQL_SEQUENCE', 'InnoDB') ORDER BY PLUGIN_NAME",
		"SELECT PLUGIN_NAME, PLUGIN_TYPE_VERSION, PLUGIN_AUTH_VERSION FROM information_schema.plugins WHERE plugin_name = 'mysql_native_password'",
		"SELECT IF(PLUGIN_NAME = 'mysql_native_password', PLUGIN_TYPE_VERSION, PLUGIN_TYPE_VERSION LIKE '1011__.0'), " +
			"IF(PLUGIN_NAME = 'InnoDB', PLUGIN_AUTH_VERSION LIKE '10.11.%', PLUGIN_AUTH_VERSION) FROM information_schema.plugins " +
			"WHERE plugin_name IN ('mysql_native_password', 'SQL_SEQUENCE', 'InnoDB') ORDER BY PLUGIN_NAME",
		"SELECT * FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'nope'",
		// ALL_PLUGINS: PLUGINS' rows, and those of the libraries in
		// plugin_dir, which seqd has none of.
		"SELECT PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_STATUS, PLUGIN_TYPE, PLUGIN_LIBRARY, PLUGIN_LIBRARY_VERSION, PLUGIN_AUTHOR, PLUGIN_DESCRIPTION, " +
			"PLUGIN_LICENSE, LOAD_OPTION, PLUGIN_MATURITY, PLUGIN_TYPE_VERSION LIKE '1011%' FROM information_schema.ALL_PLUGINS " +
			"WHERE PLUGIN_NAME IN ('mysql_native_password', 'SQL_SEQUENCE', 'InnoDB') ORDER BY PLUGIN_NAME",
		"SELECT * FROM information_schema.all_plugins WHERE PLUGIN_NAME = 'nope'",
		"SELECT COUNT(*) FROM information_schema.ALL_PLUGINS a JOIN information_schema.PLUGINS p USING (PLUGIN_NAME, PLUGIN_TYPE) " +
			"WHERE p.PLUGIN_NAME IN ('mysql_native_password', 'SQL_SEQUENCE', 'InnoDB')",
	}
	var diffs []string
	for _, q := range statements {
		for _, prepared := range []bool{false, true} {
			want := outcome(mc, strings.ReplaceAll(q, "{idle}", fmt.Sprint(idle[mc])), prepared)
			got := outcome(sc, strings.ReplaceAll(q, "{idle}", fmt.Sprint(idle[sc])), prepared)
			if want != got {
				diffs = append(diffs, fmt.Sprintf("%s (prepared %v)\n  MariaDB: %s\n  seqd:    %s", q, prepared, want, got))
			}
		}
	}
	// SHOW's rows name the servers' own IDs, users and ports: compared
	// are the columns, their definitions, and the reading connection's
	// row with those put aside.
	for _, q := range []string{"SHOW PROCESSLIST", "SHOW FULL PROCESSLIST", "show full processlist"} {
		for _, prepared := range []bool{false, true} {
			own := func(c *oracleConn) string {
				res := statementResult(c, q, prepared)
				var id int64
				if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(res, "\n")
				var kept []string
				for _, l := range lines {
					switch {
					case strings.HasPrefix(l, " types:"), !strings.HasPrefix(l, " "):
						kept = append(kept, l)
					case strings.HasPrefix(l, fmt.Sprintf(" %d | ", id)):
						f := strings.Split(l, " | ")
						f[0], f[1], f[2] = "<id>", "<user>", regexp.MustCompile(`:\d+$`).ReplaceAllString(f[2], ":<port>")
						kept = append(kept, strings.Join(f, " | "))
					}
				}
				return strings.Join(kept, "\n")
			}
			if want, got := own(mc), own(sc); want != got {
				diffs = append(diffs, fmt.Sprintf("%s (prepared %v)\n  MariaDB: %s\n  seqd:    %s", q, prepared, want, got))
			}
		}
	}
	// SHOW PLUGINS: the columns, their definitions, the rows of the
	// plugins both have.
	for _, prepared := range []bool{false, true} {
		both := func(c *oracleConn) string {
			var kept []string
			for _, l := range strings.Split(statementResult(c, "SHOW PLUGINS", prepared), "\n") {
				name, _, _ := strings.Cut(strings.TrimPrefix(l, " "), " | ")
				if !strings.HasPrefix(l, " ") || strings.HasPrefix(l, " types:") || name == "mysql_native_password" || name == "InnoDB" || name == "SQL_SEQUENCE" {
					kept = append(kept, l)
				}
			}
			return strings.Join(kept, "\n")
		}
		if want, got := both(mc), both(sc); want != got {
			diffs = append(diffs, fmt.Sprintf("SHOW PLUGINS (prepared %v)\n  MariaDB: %s\n  seqd:    %s", prepared, want, got))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("seqd differs from MariaDB 10.11 in %d statements:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

// TestProcesslist: a statement waiting for a lock shows as MariaDB shows
// one waiting for a table's metadata lock, its text cut to 100
// characters by SHOW PROCESSLIST, whole by SHOW FULL PROCESSLIST; a role
// sees only its own sessions, a superuser every one; USE and DROP
// DATABASE change the DB shown.
func TestProcesslist(t *testing.T) {
	addr, eng := startServer(t, Config{})
	root := open(t, addr, "root", "")
	for _, q := range []string{"CREATE SEQUENCE s", "CREATE DATABASE shown"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	pgExec(t, eng, "GRANT USAGE ON SEQUENCE public.s TO app")
	rootConn, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rootConn.Close()
	app, err := open(t, addr, "app", "public").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	var appID int64
	if err := app.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&appID); err != nil {
		t.Fatal(err)
	}

	hold := holdS(t, eng)
	long := "SELECT NEXTVAL(s) /* " + strings.Repeat("a", 200) + " */"
	done := make(chan error, 1)
	go func() { _, err := app.ExecContext(ctx, long); done <- err }()
	var state, info string
	for deadline := time.Now().Add(10 * time.Second); ; {
		var command string
		err := rootConn.QueryRowContext(ctx, "SELECT COMMAND, COALESCE(STATE, 'NULL'), COALESCE(INFO, 'NULL') FROM information_schema.PROCESSLIST WHERE ID = ?",
			appID).Scan(&command, &state, &info)
		if err != nil {
			t.Fatal(err)
		}
		if state == "Waiting for table metadata lock" {
			if command != "Query" || info != long {
				t.Errorf("the waiting statement shows as %s, %q", command, info)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the waiting statement never showed as waiting: %s, %q", state, info)
		}
		time.Sleep(10 * time.Millisecond)
	}
	showInfo := func(full bool) string {
		q := "SHOW PROCESSLIST"
		if full {
			q = "SHOW FULL PROCESSLIST"
		}
		rows, err := rootConn.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		_, vals, err := testenv.RowStrings(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range vals {
			if r[0] == fmt.Sprint(appID) {
				if r[1] != "app" || r[4] != "Query" || r[6] != "Waiting for table metadata lock" || r[3] != "public" {
					t.Errorf("%s: the waiting session's row is %q", q, r)
				}
				return r[7]
			}
		}
		t.Fatalf("%s: no row of session %d in %v", q, appID, vals)
		return ""
	}
	if got, want := showInfo(false), long[:100]; got != want {
		t.Errorf("SHOW PROCESSLIST's Info is %q, want %q", got, want)
	}
	if got := showInfo(true); got != long {
		t.Errorf("SHOW FULL PROCESSLIST's Info is %q, want %q", got, long)
	}
	hold.Rollback()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	users := func(c *sql.Conn) []string {
		var out []string
		rows, err := c.QueryContext(ctx, "SELECT USER FROM information_schema.PROCESSLIST ORDER BY ID")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				t.Fatal(err)
			}
			out = append(out, u)
		}
		return out
	}
	if got := users(app); strings.Join(got, ",") != "app" {
		t.Errorf("app sees the sessions of %v, want only its own", got)
	}
	if got := strings.Join(users(rootConn), ","); !strings.Contains(got, "root") || !strings.Contains(got, "app") {
		t.Errorf("a superuser sees the sessions of %s, want root's and app's", got)
	}

	dbOf := func() string {
		var db sql.NullString
		if err := rootConn.QueryRowContext(ctx, "SELECT DB FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()").Scan(&db); err != nil {
			t.Fatal(err)
		}
		if !db.Valid {
			return "NULL"
		}
		return db.String
	}
	if got := dbOf(); got != "NULL" {
		t.Errorf("a connection without a database shows DB %s", got)
	}
	for _, step := range []struct{ q, want string }{{"USE shown", "shown"}, {"DROP DATABASE shown", "NULL"}} {
		if _, err := rootConn.ExecContext(ctx, step.q); err != nil {
			t.Fatal(err)
		}
		if got := dbOf(); got != step.want {
			t.Errorf("after %s, DB is %s, want %s", step.q, got, step.want)
		}
	}
}
