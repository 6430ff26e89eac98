package main

import (
	"context"
	"flag"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
)

// TestConfigReload: settings come from -config (the command line wins);
// SIGHUP applies a changed auth and log-level to new connections, keeps
// the ones already in, and logs a change it cannot apply without a
// restart, as PostgreSQL does.
func TestConfigReload(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir, addr := t.TempDir(), testenv.FreeAddr(t)
	conf := dir + "/seqd.conf"
	write := func(s string) {
		if err := os.WriteFile(conf, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("# seqd's settings\nauth = trust\nlog-level = 'info'\nmax-bulk-rows = 5  # comment\n")
	var logs testenv.LogBuffer
	cmd := exec.Command(bin, "-data", dir+"/data", "-listen", addr, "-config", conf, "-max-bulk-rows", "7")
	cmd.Env = append(os.Environ(), "SEQD_PASSWORD=pw-one")
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i == 300 {
			t.Fatalf("seqd did not start:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx := context.Background()
	dial := func(user, password string) (*pgx.Conn, error) {
		return pgx.Connect(ctx, "postgres://"+user+":"+password+"@"+addr+"/db?sslmode=disable")
	}
	old, err := dial("seqd", "")
	if err != nil {
		t.Fatalf("trust from the file: %v", err)
	}
	defer old.Close(ctx)
	// The command line's -max-bulk-rows 7 wins over the file's 5.
	var n int
	if err := old.QueryRow(ctx, "select count(*) from generate_series(1, 7)").Scan(&n); err != nil || n != 7 {
		t.Fatalf("max-bulk-rows: %d, %v", n, err)
	}
	hup := func(want string) {
		t.Helper()
		cmd.Process.Signal(syscall.SIGHUP)
		for i := 0; !strings.Contains(logs.String(), want); i++ {
			if i == 250 {
				t.Fatalf("no %q in the log after SIGHUP:\n%s", want, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	write("auth = 'scram-sha-256'\nlog-level = debug\nmax-connections = 5\nlisten = '127.0.0.1:1'\n")
	hup(`parameter "auth" changed to "scram-sha-256"`)
	for _, want := range []string{`parameter "log-level" changed to "debug"`, `parameter "max-connections" cannot be changed without restarting the server`, `created the superuser "seqd"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no %q in the log", want)
		}
	}
	if _, err := dial("seqd", "wrong"); err == nil || !strings.Contains(err.Error(), "28P01") {
		t.Fatalf("a wrong password after the reload: %v", err)
	}
	c, err := dial("seqd", "pw-one")
	if err != nil {
		t.Fatalf("the superuser's password after the reload: %v", err)
	}
	c.Close(ctx)
	// A connection from before the reload goes on.
	if err := old.QueryRow(ctx, "select 1").Scan(&n); err != nil {
		t.Fatalf("a connection from before the reload: %v", err)
	}
	// An unknown setting is refused whole; the rest stays as it was.
	write("auth = trust\nbogus = 1\n")
	hup(`unrecognized configuration parameter "bogus"`)
	if _, err := dial("seqd", ""); err == nil {
		t.Fatal("a file with an unknown setting was applied")
	}
	write("auth = trust\n")
	hup(`parameter "auth" changed to "trust"`)
	if c, err := dial("anyone", ""); err != nil {
		t.Fatalf("trust again: %v", err)
	} else {
		c.Close(ctx)
	}
}

// TestNoLibraryFlags: the packages seqd is built from define no flags of
// their own (the MySQL protocol library's static authentication did),
// so -h and -config know only seqd's.
func TestNoLibraryFlags(t *testing.T) {
	flag.VisitAll(func(f *flag.Flag) {
		if !strings.HasPrefix(f.Name, "test.") {
			t.Errorf("a flag seqd did not define: -%s (%s)", f.Name, f.Usage)
		}
	})
}
