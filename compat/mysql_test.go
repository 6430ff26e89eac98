package compat

import (
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// TestPythonMySQL: PyMySQL, mysqlclient and mysql-connector-python, with their
// defaults, against seqd's MySQL protocol (compat/python/mysql_drivers.py),
// logging in with the superuser's password.
func TestPythonMySQL(t *testing.T) {
	srv := seqdtest.Start(t, server.Config{MySQLListen: "127.0.0.1:0", Auth: "scram-sha-256", Password: "pw"})
	host, port, _ := net.SplitHostPort(srv.MySQLAddr().String())
	run(t, exec.Command(testenv.Python(t), "python/mysql_drivers.py", host, port))
}

// TestJavaMySQL: MySQL Connector/J, MariaDB Connector/J and MariaDB
// Connector/J under HikariCP, with their defaults, over MySQL's protocol
// (compat/java/.../MySQLDrivers.java), logging in with a password.
func TestJavaMySQL(t *testing.T) {
	lib := need(t, "SEQD_TEST_JAVA_LIB")
	javac, java := testenv.Command(t, "javac"), testenv.Command(t, "java")
	srv := seqdtest.Start(t, server.Config{MySQLListen: "127.0.0.1:0", Auth: "scram-sha-256", Password: "pw"})
	host, port, _ := net.SplitHostPort(srv.MySQLAddr().String())
	classes := t.TempDir()
	cp := filepath.Join(lib, "*")
	run(t, exec.Command(javac, "-d", classes, "-cp", cp, "java/src/main/java/seqd/compat/MySQLDrivers.java"))
	run(t, exec.Command(java, "-cp", classes+string(os.PathListSeparator)+cp, "seqd.compat.MySQLDrivers", host, port))
}

// TestSysbenchMySQL: sysbench's MySQL driver (libmariadb) with its
// defaults runs compat/sysbench/nextval.lua against seqd: prepare checks
// the sequence statements on one connection; run takes 200 values as
// text from four threads, all distinct, and 200 more with a server-side
// prepared statement, which the sequence's next value shows.
func TestSysbenchMySQL(t *testing.T) {
	sb := testenv.Command(t, "sysbench")
	srv := seqdtest.Start(t, server.Config{MySQLListen: "127.0.0.1:0", Auth: "scram-sha-256", Password: "pw"})
	host, port, _ := net.SplitHostPort(srv.MySQLAddr().String())
	args := []string{"sysbench/nextval.lua", "--db-driver=mysql", "--mysql-host=" + host, "--mysql-port=" + port,
		"--mysql-user=seqd", "--mysql-password=pw", "--mysql-db=public"}
	run(t, exec.Command(sb, append(args, "prepare")...))
	out, err := exec.Command(sb, append(args, "--threads=4", "--events=200", "run")...).CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench run: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "value "); ok {
			if seen[v] {
				t.Fatalf("value %s twice:\n%s", v, out)
			}
			seen[v] = true
		}
	}
	if len(seen) != 200 {
		t.Fatalf("%d values, want 200:\n%s", len(seen), out)
	}
	db, err := sql.Open("mysql", "seqd:pw@tcp("+srv.MySQLAddr().String()+")/public")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var next int64
	if err := db.QueryRow("SELECT NEXT VALUE FOR sb_seq").Scan(&next); err != nil || next != 401 {
		t.Fatalf("after 200 text and 200 prepared values: %d, %v; want 401", next, err)
	}
}
