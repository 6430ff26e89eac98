package compat

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// ormServer is where an ORM on MariaDB's dialect connects: seqd's MySQL
// protocol or the test MariaDB 10.11.
type ormServer struct {
	name, host, port, user, password, db string
}

func (s ormServer) args() []string {
	return []string{s.host, s.port, s.user, s.password, s.db}
}

// ormServers starts seqd with a MySQL listener (logging in with a
// password) and makes a database of the test's own on MariaDB, dropped
// when the test ends.
func ormServers(t *testing.T) []ormServer {
	t.Helper()
	_, db := testenv.MariaDBConn(t, "seqd_orm")
	cfg, err := mysql.ParseDSN(testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	mhost, mport, _ := net.SplitHostPort(cfg.Addr)
	srv := seqdtest.Start(t, server.Config{MySQLListen: "127.0.0.1:0", Auth: "scram-sha-256", Password: "pw"})
	shost, sport, _ := net.SplitHostPort(srv.MySQLAddr().String())
	return []ormServer{
		{"seqd", shost, sport, "seqd", "pw", "public"},
		{"mariadb", mhost, mport, cfg.User, cfg.Passwd, db},
	}
}

// sameLines runs cmd for each server and checks that the lines of its
// output beginning with prefix are the same on seqd as on MariaDB.
func sameLines(t *testing.T, servers []ormServer, cmd func(ormServer) *exec.Cmd, prefix string) {
	t.Helper()
	got := map[string]string{}
	for _, s := range servers {
		out, err := cmd(s).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, out)
		}
		t.Logf("%s:\n%s", s.name, out)
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, prefix) {
				lines = append(lines, l)
			}
		}
		got[s.name] = strings.Join(lines, "\n")
	}
	if got["seqd"] == "" || got["seqd"] != got["mariadb"] {
		t.Fatalf("%q lines differ:\nseqd:    %s\nMariaDB: %s", prefix, got["seqd"], got["mariadb"])
	}
}

// TestSQLAlchemyMariaDB: SQLAlchemy 2's MariaDB dialect on PyMySQL
// (compat/testdata/mariadb_orm/python), with its defaults, on seqd and on
// MariaDB 10.11: Sequence.create, 200 values from four threads, all
// distinct, and an unknown sequence raising the same SQLAlchemy exception
// with the same MariaDB error number on both.
func TestSQLAlchemyMariaDB(t *testing.T) {
	py := testenv.Python(t)
	sameLines(t, ormServers(t), func(s ormServer) *exec.Cmd {
		return exec.Command(py, append([]string{"testdata/mariadb_orm/python/sqlalchemy_mariadb.py"}, s.args()...)...)
	}, "unknown:")
}

// TestJavaMariaDBORMs: Hibernate ORM 6 with MariaDBDialect and jOOQ with
// SQLDialect.MARIADB, over MariaDB Connector/J with their defaults
// (compat/testdata/mariadb_orm/java), compiled once, one JVM each for both
// servers. Hibernate: @SequenceGenerator at allocationSize 1 and 50, 200
// ids each from four threads with sessions of their own, all distinct
// (persisted on MariaDB; on seqd, which has no tables, from the entity's
// own identifier generator), an unknown sequence's SQLGrammarException.
// jOOQ: 200 values from four threads, an unknown sequence's
// DataAccessException. The programs check that the exception's class,
// SQLSTATE and error number are the same on both servers.
func TestJavaMariaDBORMs(t *testing.T) {
	lib := need(t, "SEQD_TEST_JAVA_ORM_LIB")
	javac, java := testenv.Command(t, "javac"), testenv.Command(t, "java")
	servers := ormServers(t)
	var args []string
	for _, s := range servers {
		args = append(append(args, s.name), s.args()...)
	}
	classes := t.TempDir()
	cp := filepath.Join(lib, "*")
	srcs, _ := filepath.Glob("testdata/mariadb_orm/java/src/main/java/seqd/orm/*.java")
	run(t, exec.Command(javac, append([]string{"-d", classes, "-cp", cp}, srcs...)...))
	for _, main := range []string{"HibernateMariaDB", "JooqMariaDB"} {
		t.Run(main, func(t *testing.T) {
			run(t, exec.Command(java, append([]string{"-Dorg.jooq.no-logo=true", "-Dorg.jooq.no-tips=true",
				"-cp", classes + string(os.PathListSeparator) + cp, "seqd.orm." + main}, args...)...))
		})
	}
}
