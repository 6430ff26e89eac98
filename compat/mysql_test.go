package compat

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// TestPythonMySQL: PyMySQL and mysql-connector-python, with their
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
