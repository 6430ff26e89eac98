package mysqlwire

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/internal/testenv"
)

// cliScript is run by the mariadb command-line client on MariaDB and on
// seqd.
const cliScript = `CREATE DATABASE seqd_cli;
USE seqd_cli;
SELECT DATABASE();
CREATE SEQUENCE s START WITH 10 INCREMENT BY 10;
SELECT NEXT VALUE FOR s;
SELECT NEXTVAL(s), PREVIOUS VALUE FOR s, lastval(seqd_cli.s);
SHOW FULL TABLES;
SELECT SETVAL(s, 5);
SELECT SETVAL(s, 500), NEXTVAL(s);
CREATE SEQUENCE s;
DROP SEQUENCE s;
SELECT NEXT VALUE FOR s;
SELEC 1;
`

// cliDB is the script's database, this run's own so that runs at once
// do not meet.
var cliDB = fmt.Sprintf("seqd_cli_%d", os.Getpid())

// errorLine is the client's line for an error; the message is seqd's own
// wording, so only the number and SQLSTATE are compared.
var errorLine = regexp.MustCompile(`(?m)^(ERROR \d+ \([0-9A-Z]{5}\)) at line \d+: .*$`)

// runCLI runs the script with the mariadb client, with --force so that
// it goes on past errors, and returns its output.
func runCLI(t *testing.T, bin, addr, user, password string) string {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "-h", host, "-P", port, "-u", user, "-p"+password, "--skip-ssl", "--force", "--table")
	cmd.Stdin = strings.NewReader(strings.ReplaceAll(cliScript, "seqd_cli", cliDB))
	out, _ := cmd.CombinedOutput()
	return errorLine.ReplaceAllString(string(out), "$1")
}

// TestMariaDBClient: the mariadb command-line client, with its defaults,
// prints the same on seqd as on MariaDB 10.11 (error numbers and
// SQLSTATEs, not messages).
func TestMariaDBClient(t *testing.T) {
	bin := testenv.Command(t, "mariadb")
	cfg, err := gomysql.ParseDSN(testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-h", strings.Split(cfg.Addr, ":")[0], "-P", strings.Split(cfg.Addr, ":")[1], "-u", cfg.User, "-p"+cfg.Passwd,
		"--skip-ssl", "-e", "DROP DATABASE IF EXISTS "+cliDB)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	defer exec.Command(bin, "-h", strings.Split(cfg.Addr, ":")[0], "-P", strings.Split(cfg.Addr, ":")[1], "-u", cfg.User, "-p"+cfg.Passwd,
		"--skip-ssl", "-e", "DROP DATABASE IF EXISTS "+cliDB).Run()
	want := runCLI(t, bin, cfg.Addr, cfg.User, cfg.Passwd)
	addr, _ := startServer(t, Config{})
	got := runCLI(t, bin, addr, "root", "root pw")
	if want != got {
		t.Errorf("the mariadb client's output differs:\n%s\nMariaDB:\n%s\nseqd:\n%s", testenv.LineDiff(want, got), want, got)
	}
	if !strings.Contains(got, "ERROR 1064 (42000)") {
		t.Errorf("the script's last error is missing:\n%s", got)
	}
}

// TestMariaDBClientTLS: the mariadb command-line client over TLS,
// verifying seqd's certificate, to a server that requires TLS; without
// TLS it is refused.
func TestMariaDBClientTLS(t *testing.T) {
	bin := testenv.Command(t, "mariadb")
	tc, cert := serverTLS(t)
	addr, _ := startServer(t, Config{TLS: tc, TLSRequired: true})
	host, port, _ := net.SplitHostPort(addr)
	cli := func(tlsArgs ...string) (string, error) {
		args := append([]string{"-h", host, "-P", port, "-u", "root", "-proot pw", "-N", "-e", "CREATE SEQUENCE s; SELECT NEXT VALUE FOR s"}, tlsArgs...)
		out, err := exec.Command(bin, args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := cli("--ssl", "--ssl-ca="+cert, "--ssl-verify-server-cert"); err != nil || out != "1" {
		t.Fatalf("over TLS: %v\n%s", err, out)
	}
	if out, err := cli("--skip-ssl"); err == nil {
		t.Fatalf("without TLS to a server requiring it: no error\n%s", out)
	}
}

// TestMariaDBClientRSA: the mariadb command-line client to a server
// announcing caching_sha2_password, without TLS: it asks for the
// server's public key and sends the password encrypted with it (the full
// authentication, seen as the role in the fast path's cache after).
func TestMariaDBClientRSA(t *testing.T) {
	bin := testenv.Command(t, "mariadb")
	s := serve(t, testenv.MemEngine(t), Config{DefaultAuth: "caching_sha2_password"})
	host, port, _ := net.SplitHostPort(s.Addr().String())
	cli := func(password string) (string, error) {
		out, err := exec.Command(bin, "-h", host, "-P", port, "-u", "app", "-p"+password, "--skip-ssl", "-N", "-e", "SELECT CURRENT_USER()").CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := cli("wrong"); err == nil || !strings.Contains(out, "1045") {
		t.Fatalf("a wrong password: %v\n%s", err, out)
	}
	if out, err := cli("app pw"); err != nil || !strings.HasPrefix(out, "app@") {
		t.Fatalf("caching_sha2_password without TLS: %v\n%s", err, out)
	}
	s.mu.Lock()
	_, cached := s.fast["app"]
	s.mu.Unlock()
	if !cached {
		t.Fatal("no full authentication: the role is not in the fast path's cache")
	}
}
