package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/selfsigned"
	"github.com/seqd/seqd/internal/testenv"
)

// TestSignals: SIGHUP (a reload request, or the terminal closing) never
// stops seqd; SIGTERM stops it cleanly with status 0 and the next start
// continues at exactly the next value.
func TestSignals(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir, addr := t.TempDir(), testenv.FreeAddr(t)
	cmd, lt, out := runUntilListening(t, bin, "-data", dir, "-listen", addr)
	if cmd == nil {
		t.Fatalf("seqd did not start:\n%s", out)
	}
	c := connect(t, addr)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create sequence s cache 100"); err != nil {
		t.Fatal(err)
	}
	next := func() int64 {
		var v int64
		if err := c.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	next()
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// Handled (and so not the default action, which ends the process):
	// the server says so, and goes on serving.
	lt.waitFor(t, "SIGHUP: configuration reloaded; still serving", 10*time.Second)
	if v := next(); v != 2 {
		t.Fatalf("after SIGHUP: %d, want 2", v)
	}
	c.Close(ctx)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	lt.waitFor(t, "clean shutdown", 30*time.Second)
	lt.rest()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGTERM: %v, want exit status 0", err)
	}
	p := start(t, bin, dir, addr)
	defer func() { p.cmd.Process.Signal(syscall.SIGTERM); p.cmd.Wait() }()
	c = connect(t, addr)
	defer c.Close(ctx)
	if v := next(); v != 3 {
		t.Fatalf("after a clean restart: %d, want 3", v)
	}
}

// TestSighupUnderLoad: SIGHUPs sent while clients take values over TLS,
// some after the certificate and key were replaced, lose no connection
// and skip no value; connections made after each reload succeed.
func TestSighupUnderLoad(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir, addr := t.TempDir(), testenv.FreeAddr(t)
	cert, key, err := selfsigned.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, lt, out := runUntilListening(t, bin, "-data", dir, "-listen", addr, "-tls-cert", cert, "-tls-key", key)
	if p == nil {
		t.Fatalf("seqd did not start:\n%s", out)
	}
	defer func() { p.Process.Signal(syscall.SIGTERM); lt.rest(); p.Wait() }()
	ctx := context.Background()
	dsn := "postgres://u@" + addr + "/db?sslmode=require"
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "create sequence s"); err != nil {
		t.Fatal(err)
	}

	const workers = 8
	stop := make(chan struct{})
	got := make([][]int64, workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var v int64
				if err := c.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil {
					errs <- fmt.Errorf("worker %d after %d values: %w", w, len(got[w]), err)
					return
				}
				got[w] = append(got[w], v)
			}
		}()
	}
	for i := range 10 {
		if i%2 == 1 {
			if _, _, err := selfsigned.Write(filepath.Dir(cert)); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		lt.waitFor(t, "SIGHUP: configuration reloaded; still serving", 10*time.Second)
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connecting after SIGHUP %d: %v", i+1, err)
		}
		c.Close(ctx)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var all []int64
	for _, vs := range got {
		all = append(all, vs...)
	}
	slices.Sort(all)
	for i, v := range all {
		if v != int64(i+1) {
			t.Fatalf("values taken under SIGHUPs: the %dth is %d, want %d (a value repeated or skipped)", i+1, v, i+1)
		}
	}
	var last int64
	if err := admin.QueryRow(ctx, "select nextval('s')").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if last != int64(len(all)+1) {
		t.Fatalf("after %d values, nextval = %d", len(all), last)
	}
	t.Logf("%d values by %d connections through 10 SIGHUPs (5 with a new certificate)", len(all), workers)
}

// TestDataDir: without -data the store is under the user's data
// directory whatever the working directory, the log says where and
// whether it was created or recovered, and a store the former default
// (./seqd-data) left behind is not silently replaced by a new one.
func TestDataDir(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	home, work := t.TempDir(), t.TempDir()
	run := func(home, dir string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"-listen", testenv.FreeAddr(t)}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Ready or refused: stop it once it logged its address.
		var out strings.Builder
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "listening") {
				cmd.Process.Signal(syscall.SIGTERM)
			}
		}
		err = cmd.Wait()
		if strings.Contains(out.String(), "listening") && err != nil {
			t.Fatalf("SIGTERM: %v\n%s", err, out.String())
		}
		return out.String() + "exit: " + errString(err)
	}
	store := filepath.Join(home, ".local", "share", "seqd")
	if out := run(home, work); !strings.Contains(out, "created a new store in "+store) {
		t.Fatalf("first start:\n%s", out)
	}
	if out := run(home, t.TempDir()); !strings.Contains(out, "recovered 0 sequences in 1 schemas from "+store) {
		t.Fatalf("from another directory:\n%s", out)
	}
	legacy, newHome := t.TempDir(), t.TempDir()
	if out := run(home, legacy, "-data", "seqd-data"); !strings.Contains(out, "created a new store in "+filepath.Join(legacy, "seqd-data")) {
		t.Fatalf("explicit -data:\n%s", out)
	}
	if out := run(newHome, legacy); !strings.Contains(out, "./seqd-data holds a store from an earlier seqd") || !strings.Contains(out, "exit: exit status 1") {
		t.Fatalf("beside a store of the former default:\n%s", out)
	}
}

func errString(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.Error()
	}
	if err == nil {
		return "status 0"
	}
	return err.Error()
}
