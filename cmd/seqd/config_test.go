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

// TestLimitsRefused: a limit out of its range, on the command line or in
// the configuration file, is refused before anything is opened, naming
// the flag and its range, with exit status 2 as for a value the flag
// package cannot parse. Each would have broken a listener (a negative
// idle timeout ended every MySQL read at once), been taken for another
// value (a 0 for the default, a negative authentication timeout for none
// on MySQL's protocol but 10 s on PostgreSQL's), or left a server nobody,
// or no ordinary role, could use.
func TestLimitsRefused(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	for _, tc := range []struct {
		args []string
		file string // the configuration file, if any
		want string
	}{
		{args: []string{"-idle-timeout", "-1s"}, want: `invalid value "-1s" for flag -idle-timeout: must be positive, or 0 for none`},
		{args: []string{"-authentication-timeout", "-1s"}, want: `invalid value "-1s" for flag -authentication-timeout: must be positive`},
		{args: []string{"-authentication-timeout", "0"}, want: `invalid value "0s" for flag -authentication-timeout: must be positive`},
		{args: []string{"-max-connections", "0"}, want: `invalid value "0" for flag -max-connections: must be at least 2`},
		{args: []string{"-max-connections", "-5"}, want: `invalid value "-5" for flag -max-connections: must be at least 2`},
		{args: []string{"-max-connections", "1", "-superuser-reserved-connections", "0"}, want: `invalid value "1" for flag -max-connections: must be at least 2`},
		{args: []string{"-max-connections", "3"}, want: `invalid value "3" for flag -superuser-reserved-connections: must be less than -max-connections (3)`},
		{args: []string{"-superuser-reserved-connections", "-1"}, want: `invalid value "-1" for flag -superuser-reserved-connections: must be 0 (none) or more`},
		{args: []string{"-max-statement-bytes", "0"}, want: `invalid value "0" for flag -max-statement-bytes: must be at least 1024`},
		{args: []string{"-max-statement-bytes", "100"}, want: `invalid value "100" for flag -max-statement-bytes: must be at least 1024`},
		{args: []string{"-max-bulk-rows", "-1"}, want: `invalid value "-1" for flag -max-bulk-rows: must be at least 1`},
		{args: []string{"-max-statement-memory", "0"}, want: `invalid value "0" for flag -max-statement-memory: must be at least 1, or negative for no limit`},
		{args: []string{"-max-parse-memory", "0"}, want: `invalid value "0" for flag -max-parse-memory: must be at least 1, or negative for no limit`},
		{file: "max-parse-memory = 0\n", want: `invalid value "0" for flag -max-parse-memory: must be at least 1, or negative for no limit`},
		{args: []string{"-max-transaction-locks", "0"}, want: `invalid value "0" for flag -max-transaction-locks: must be at least 1, or negative for no limit`},
		{args: []string{"-min-free-space", "0"}, want: `invalid value "0" for flag -min-free-space: must be at least 1, or negative for no reserve`},
		{args: []string{"-exhaustion-horizon", "0"}, want: `invalid value "0s" for flag -exhaustion-horizon: must be positive`},
		{file: "max-connections = 0\n", want: `invalid value "0" for flag -max-connections: must be at least 2`},
		{file: "max-connections = 1e4\n", want: `-config: invalid value for parameter "max-connections": "1e4"`},
		{file: "idle-timeout = 5\n", want: `-config: invalid value for parameter "idle-timeout": "5"`},
	} {
		name := strings.Join(tc.args, " ")
		if tc.file != "" {
			name = "file " + strings.TrimSpace(tc.file)
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"-data", dir + "/data", "-listen", testenv.FreeAddr(t)}, tc.args...)
			if tc.file != "" {
				if err := os.WriteFile(dir+"/seqd.conf", []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "-config", dir+"/seqd.conf")
			}
			cmd, _, out := runUntilListening(t, bin, args...)
			if cmd != nil {
				t.Fatalf("seqd started:\n%s", out)
			}
			if !strings.Contains(out, tc.want) || !strings.HasSuffix(out, "exit: exit status 2") {
				t.Fatalf("want %q and exit status 2:\n%s", tc.want, out)
			}
			if _, err := os.Stat(dir + "/data"); err == nil {
				t.Error("the store was created before the refusal")
			}
		})
	}
}

// TestConfigFileLimits: the configuration file's limits apply at start
// (they were read, then dropped: a copy of the flags' values was taken
// before the file set them), and -superuser-reserved-connections 0 leaves
// no slot reserved (server.Config's 0 is its default of 3).
func TestConfigFileLimits(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir, addr := t.TempDir(), testenv.FreeAddr(t)
	conf := dir + "/seqd.conf"
	if err := os.WriteFile(conf, []byte("max-bulk-rows = 5\nmax-connections = 3\nsuperuser-reserved-connections = 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, lt, out := runUntilListening(t, bin, "-data", dir+"/data", "-listen", addr, "-config", conf)
	if cmd == nil {
		t.Fatalf("seqd did not start:\n%s", out)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); lt.rest(); cmd.Wait() }()
	ctx := context.Background()
	c := connect(t, addr)
	var n int
	if err := c.QueryRow(ctx, "select count(*) from generate_series(1, 6)").Scan(&n); err == nil || !strings.Contains(err.Error(), "54000") {
		t.Errorf("6 rows past the file's max-bulk-rows 5: %d, %v", n, err)
	}
	if _, err := c.Exec(ctx, "create role app login"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	// Every one of the 3 connections is an ordinary role's. The server
	// gives c's slot back once it has read c's Terminate, after c's Close
	// returns (as a PostgreSQL backend exits after its client's): a
	// refusal for too many clients is tried again until then.
	for i := range 3 {
		var app *pgx.Conn
		var err error
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			app, err = pgx.Connect(ctx, "postgres://app@"+addr+"/db?sslmode=disable")
			if err == nil || !strings.Contains(err.Error(), "53300") || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Fatalf("app's session %d of 3 with no slot reserved: %v", i+1, err)
		}
		defer app.Close(ctx)
	}
}
