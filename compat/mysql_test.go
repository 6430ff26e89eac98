package compat

import (
	"net"
	"os/exec"
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
