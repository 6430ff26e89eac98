package mysqlwire

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/internal/testenv"
)

// dumpScript makes the sequences the dump tests back up, on seqd and on
// MariaDB alike: MariaDB's defaults, every option, a comment, a
// descending one, CACHE 1, INCREMENT BY 0, a name to quote, one run
// out; some of them moved on.
const dumpScript = `CREATE SEQUENCE a;
CREATE SEQUENCE b START WITH 100 INCREMENT BY 5 MINVALUE 10 MAXVALUE 10000 CACHE 20 CYCLE COMMENT='it''s';
CREATE SEQUENCE c INCREMENT BY -1 NOCACHE;
CREATE SEQUENCE d CACHE 1;
CREATE SEQUENCE e START WITH 5 INCREMENT BY 0 NOCACHE;
CREATE SEQUENCE ` + "`we``ird`" + ` START 3;
CREATE SEQUENCE spent MAXVALUE 2 NOCACHE;
SELECT NEXTVAL(b), NEXTVAL(b), NEXTVAL(c), NEXTVAL(e), NEXTVAL(spent), NEXTVAL(spent);
`

// mariadbClient runs the mariadb client or mariadb-dump (bin) against
// addr with args, stdin in, and returns its output; a failure fails t.
func mariadbClient(t *testing.T, bin, addr, user, password, in string, args ...string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, append([]string{"-h", host, "-P", port, "-u", user, "-p" + password, "--skip-ssl"}, args...)...)
	cmd.Stdin = strings.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return out.String()
}

// sequencesOf is every sequence of database db as SHOW CREATE SEQUENCE
// and its row show it, and what NEXT VALUE FOR gives next (a value or
// an error number) where next is set: what a restore must recreate.
func sequencesOf(t *testing.T, pool *sql.DB, db string, next bool) string {
	t.Helper()
	names := table(t, pool, "SHOW FULL TABLES FROM "+quoteName(db))
	var out []string
	for _, line := range strings.Split(names, "\n")[1:] {
		name, _, _ := strings.Cut(line, ",")
		q := quoteName(db) + "." + quoteName(name)
		var create, position string
		if err := pool.QueryRow("SHOW CREATE SEQUENCE "+q).Scan(new(string), &create); err != nil {
			t.Fatalf("SHOW CREATE SEQUENCE %s: %v", q, err)
		}
		if err := pool.QueryRow("SELECT next_not_cached_value FROM " + q).Scan(&position); err != nil {
			t.Fatalf("%s's row: %v", q, err)
		}
		s := fmt.Sprintf("%s\n  next_not_cached_value %s", create, position)
		if next {
			var v string
			if err := pool.QueryRow("SELECT NEXTVAL(" + q + ")").Scan(&v); err != nil {
				v = fmt.Sprintf("ERROR %d", number(err))
			}
			s += "\n  NEXTVAL " + v
		}
		out = append(out, s)
	}
	if len(out) != 7 {
		t.Fatalf("%s holds %d sequences, not 7:\n%s", db, len(out), names)
	}
	return strings.Join(out, "\n")
}

// TestMariaDBDump: the real mariadb-dump (MariaDB 10.11's) backs up a
// database of sequences from seqd, with its default options,
// --single-transaction, --lock-all-tables, --no-data, --routines
// --events (their sections empty: seqd has neither), --databases and
// --all-databases, and the dump, fed to the real mariadb client,
// recreates every sequence in another database, or another seqd: its
// definition as SHOW CREATE SEQUENCE shows it, its position, and the
// value NEXT VALUE FOR gives next (4084 for the one run out), which is
// the value the original gives next. --master-data fails as it does on
// MariaDB without a binary log (masterData).
func TestMariaDBDump(t *testing.T) {
	dump, cli := testenv.Command(t, "mariadb-dump"), testenv.Command(t, "mariadb")
	addr, _ := startServer(t, Config{})
	root := open(t, addr, "root", "")
	if _, err := root.Exec("CREATE DATABASE src"); err != nil {
		t.Fatal(err)
	}
	mariadbClient(t, cli, addr, "root", "root pw", dumpScript, "src")
	want := sequencesOf(t, root, "src", false)
	var restored []string // their NEXTVALs, compared with the original's at the end
	for i, opts := range [][]string{nil, {"--single-transaction"}, {"--lock-all-tables"}, {"--no-data"}, {"--routines", "--events"},
		{"--single-transaction", "--routines", "--events"}} {
		out := mariadbClient(t, dump, addr, "root", "root pw", "", append(opts, "src")...)
		for _, s := range []string{"DROP SEQUENCE IF EXISTS `b`;", "DO SETVAL(`b`, 110, 0);", "CREATE SEQUENCE `we``ird` start with 3 "} {
			if !strings.Contains(out, s) {
				t.Errorf("mariadb-dump %v: no %q in\n%s", opts, s, out)
			}
		}
		if len(opts) > 0 && opts[len(opts)-1] == "--events" {
			// No routines nor events: the sections are there, empty.
			for _, s := range []string{"-- Dumping events for database 'src'\n--\n\n--\n-- Dumping routines for database 'src'\n--\n"} {
				if !strings.Contains(out, s) {
					t.Errorf("mariadb-dump %v: no %q in\n%s", opts, s, out)
				}
			}
		}
		db := fmt.Sprintf("restored%d", i)
		if _, err := root.Exec("CREATE DATABASE " + db); err != nil {
			t.Fatal(err)
		}
		mariadbClient(t, cli, addr, "root", "root pw", out, db)
		if got := sequencesOf(t, root, db, false); got != want {
			t.Errorf("restored from mariadb-dump %v:\n%s\nwant\n%s", opts, got, want)
		}
		restored = append(restored, sequencesOf(t, root, db, true))
	}
	// A whole server's dump, into a seqd of its own.
	for _, opts := range [][]string{{"--databases", "src"}, {"--all-databases"}} {
		out := mariadbClient(t, dump, addr, "root", "root pw", "", opts...)
		other, _ := startServer(t, Config{})
		mariadbClient(t, cli, other, "root", "root pw", out)
		if got := sequencesOf(t, open(t, other, "root", ""), "src", false); got != want {
			t.Errorf("restored from mariadb-dump %v into another seqd:\n%s\nwant\n%s", opts, got, want)
		}
	}
	for _, m := range masterData {
		if code, stderr := mariadbDumpFails(t, dump, addr, "root", "root pw", append(m.opts, "src")...); code != 2 || stderr != m.stderr {
			t.Errorf("mariadb-dump %v: exit %d, %q; want 2, %q (as on MariaDB without a binary log)", m.opts, code, stderr, m.stderr)
		}
	}
	next := sequencesOf(t, root, "src", true)
	for i, got := range restored {
		if got != next {
			t.Errorf("restore %d's next values:\n%s\nthe original's:\n%s", i, got, next)
		}
	}
}

// masterData are mariadb-dump's --master-data, alone and with
// --single-transaction, and what it says, exiting 2, on a server
// without a binary log (MariaDB's, and seqd): SHOW MASTER STATUS is
// empty; Binlog_snapshot_file is ”, and BINLOG_GTID_POS 1381.
var masterData = []struct {
	opts   []string
	stderr string
}{
	{[]string{"--master-data"}, "mariadb-dump: Error: Binlogging on server not active\n"},
	{[]string{"--single-transaction", "--master-data=2"},
		"mariadb-dump: Couldn't execute 'SELECT BINLOG_GTID_POS('', '0')': You are not using binary logging (1381)\n"},
}

// mariadbDumpFails runs mariadb-dump (bin) against addr with args, where
// it is to fail, and returns its exit code and what it wrote on stderr.
func mariadbDumpFails(t *testing.T, bin, addr, user, password string, args ...string) (int, string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, append([]string{"-h", host, "-P", port, "-u", user, "-p" + password, "--skip-ssl"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("%s %s: %v, want it to fail", bin, strings.Join(args, " "), err)
	}
	return exit.ExitCode(), stderr.String()
}

// dumpText is a dump without the lines that name the server's version
// and the time it was written.
func dumpText(dump string) string {
	var out []string
	for _, line := range strings.Split(dump, "\n") {
		if !strings.HasPrefix(line, "-- Server version") && !strings.HasPrefix(line, "-- Dump completed on") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestMariaDBDumpFromMariaDB: a dump mariadb-dump writes from MariaDB
// 10.11 itself, fed to seqd with the real mariadb client, recreates
// every sequence as MariaDB shows it (SHOW CREATE SEQUENCE, the same
// words) at the position the dump holds: MariaDB's next_not_cached_value,
// the end of its cache, where seqd's NEXT VALUE FOR continues; dumped
// again with --routines --events, from seqd and from MariaDB, the two
// dumps are the same, and --master-data fails the same way on both.
func TestMariaDBDumpFromMariaDB(t *testing.T) {
	dump, cli := testenv.Command(t, "mariadb-dump"), testenv.Command(t, "mariadb")
	_, name := testenv.MariaDBConn(t, "seqd_dump")
	cfg, err := gomysql.ParseDSN(testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	mariadbClient(t, cli, cfg.Addr, cfg.User, cfg.Passwd, dumpScript, name)
	cfg.DBName = ""
	mdb, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer mdb.Close()
	want := sequencesOf(t, mdb, name, false)
	out := mariadbClient(t, dump, cfg.Addr, cfg.User, cfg.Passwd, "", name)

	addr, _ := startServer(t, Config{})
	root := open(t, addr, "root", "")
	if _, err := root.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	mariadbClient(t, cli, addr, "root", "root pw", out, name)
	if got := sequencesOf(t, root, name, false); got != want {
		t.Errorf("MariaDB's dump restored into seqd:\n%s\nMariaDB:\n%s", got, want)
	}
	// mariadb-dump --routines --events writes the same dump of the
	// restored sequences from seqd as from MariaDB (empty sections of
	// routines and events), and --master-data fails the same way on both.
	for _, opts := range [][]string{{"--routines", "--events"}, {"--single-transaction", "--routines", "--events"}} {
		fromMariaDB := mariadbClient(t, dump, cfg.Addr, cfg.User, cfg.Passwd, "", append(opts, name)...)
		fromSeqd := mariadbClient(t, dump, addr, "root", "root pw", "", append(opts, name)...)
		if dumpText(fromSeqd) != dumpText(fromMariaDB) {
			t.Errorf("mariadb-dump %v from seqd:\n%s\nfrom MariaDB:\n%s", opts, fromSeqd, fromMariaDB)
		}
	}
	for _, server := range []struct{ addr, user, password string }{{cfg.Addr, cfg.User, cfg.Passwd}, {addr, "root", "root pw"}} {
		for _, m := range masterData {
			if code, stderr := mariadbDumpFails(t, dump, server.addr, server.user, server.password, append(m.opts, name)...); code != 2 || stderr != m.stderr {
				t.Errorf("mariadb-dump %v on %s: exit %d, %q; want 2, %q", m.opts, server.addr, code, stderr, m.stderr)
			}
		}
	}
	var b, spent string
	if err := root.QueryRow("SELECT NEXTVAL(" + name + ".b)").Scan(&b); err != nil || b != "200" {
		t.Errorf("NEXTVAL of b after the restore: %s, %v; want 200, MariaDB's next_not_cached_value", b, err)
	}
	if err := root.QueryRow("SELECT NEXTVAL(" + name + ".spent)").Scan(&spent); number(err) != 4084 {
		t.Errorf("NEXTVAL of the sequence run out after the restore: %s, %v; want 4084", spent, err)
	}
}

// TestShowTableStatus: SHOW TABLE STATUS, with LIKE or WHERE on its own
// columns, shows each sequence the role sees with MariaDB's values where
// seqd has them (the oracle compares its columns with MariaDB's; their
// sizes and times are MariaDB's storage's).
func TestShowTableStatus(t *testing.T) {
	addr, _ := startServer(t, Config{})
	root := open(t, addr, "root", "")
	for _, q := range []string{"CREATE DATABASE d", "CREATE SEQUENCE d.s1 COMMENT='one'", "CREATE SEQUENCE d.s2"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db := open(t, addr, "root", "d")
	const s1 = "s1,InnoDB,10,Fixed,1,0,0,0,0,0,NULL,NULL,NULL,NULL,utf8mb4_general_ci,NULL,,one,0,N"
	const s2 = "s2,InnoDB,10,Fixed,1,0,0,0,0,0,NULL,NULL,NULL,NULL,utf8mb4_general_ci,NULL,,,0,N"
	const head = "Name,Engine,Version,Row_format,Rows,Avg_row_length,Data_length,Max_data_length,Index_length,Data_free," +
		"Auto_increment,Create_time,Update_time,Check_time,Collation,Checksum,Create_options,Comment,Max_index_length,Temporary"
	for q, want := range map[string]string{
		"SHOW TABLE STATUS":                                   head + "\n" + s1 + "\n" + s2,
		"SHOW TABLE STATUS FROM d LIKE 's2'":                  head + "\n" + s2,
		"SHOW TABLE STATUS WHERE Comment = 'one'":             head + "\n" + s1,
		"SHOW TABLE STATUS WHERE name <> 's1' AND `Rows` = 1": head + "\n" + s2,
	} {
		if got := table(t, db, q); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", q, got, want)
		}
	}
}
