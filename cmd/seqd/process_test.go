package main

import (
	"context"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/testenv"
)

type proc struct {
	cmd  *exec.Cmd
	addr string
}

func start(t *testing.T, bin, dir, addr string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-data", dir, "-listen", addr}, args...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, addr: addr}
	for range 300 {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("seqd did not start")
	return nil
}

func connect(t *testing.T, addr string) *pgx.Conn {
	c, err := pgx.Connect(context.Background(), "postgres://u@"+addr+"/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKillRestart runs seqd as a process under concurrent load, kills it
// with SIGKILL at random moments, restarts it, and checks that no value is
// ever returned twice and every sequence resumes beyond every value
// returned. Then a SIGTERM (clean) stop and restart continues at exactly
// the next value.
func TestKillRestart(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	dir := t.TempDir()
	addr := testenv.FreeAddr(t)
	cycles := 12
	if testing.Short() {
		cycles = 4
	}
	seqs := []string{"nocache", "c10", "c100000"}
	p := start(t, bin, dir, addr)
	admin := connect(t, addr)
	for _, q := range []string{"create sequence nocache", "create sequence c10 cache 10", "create sequence c100000 cache 100000"} {
		if _, err := admin.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	admin.Close(context.Background())
	seen := map[string]map[int64]bool{}
	maxSeen := map[string]int64{}
	for _, s := range seqs {
		seen[s] = map[int64]bool{}
	}
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, 2))
	total := 0
	for cycle := range cycles {
		inCycle := 0
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := pgx.Connect(context.Background(), "postgres://u@"+addr+"/db?sslmode=disable")
				if err != nil {
					return
				}
				defer c.Close(context.Background())
				for i := 0; ; i++ {
					s := seqs[(g+i)%len(seqs)]
					var v int64
					if err := c.QueryRow(context.Background(), "select nextval($1)", s).Scan(&v); err != nil {
						return // the server died: the value, if any, never arrived
					}
					mu.Lock()
					if seen[s][v] {
						t.Errorf("cycle %d: %s returned %d twice", cycle, s, v)
					}
					seen[s][v] = true
					maxSeen[s] = max(maxSeen[s], v)
					inCycle++
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(50+rng.IntN(300)) * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		// The kill must have come under load, or the cycle checked
		// nothing.
		if inCycle < 10 {
			t.Fatalf("cycle %d: %d values before the kill, want at least 10", cycle, inCycle)
		}
		total += inCycle
		p = start(t, bin, dir, addr)
		c := connect(t, addr)
		for _, s := range seqs {
			var v int64
			if err := c.QueryRow(context.Background(), "select nextval($1)", s).Scan(&v); err != nil {
				t.Fatal(err)
			}
			if v <= maxSeen[s] {
				t.Fatalf("cycle %d: %s resumed at %d, but %d was returned", cycle, s, v, maxSeen[s])
			}
			seen[s][v] = true
			maxSeen[s] = v
		}
		c.Close(context.Background())
	}
	// A clean stop skips nothing.
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	p = start(t, bin, dir, addr)
	defer func() { p.cmd.Process.Signal(syscall.SIGTERM); p.cmd.Wait() }()
	c := connect(t, addr)
	defer c.Close(context.Background())
	for _, s := range seqs {
		var v int64
		if err := c.QueryRow(context.Background(), "select nextval($1)", s).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != maxSeen[s]+1 {
			t.Fatalf("%s after a clean restart: %d, want %d", s, v, maxSeen[s]+1)
		}
	}
	t.Logf("%d cycles, %d values checked under load", cycles, total)
}
