package torture

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/internal/testenv"
)

// TestBackupUnderLoad: an online backup taken while clients take values;
// the original serves on after it and is then killed (-9); `seqd restore`
// with its default bound (twice the advance rate the backup recorded, for
// the time since the backup) makes a store that serves on. No value is
// handed out twice across both lifetimes, checked over every value
// returned, under a steady and a bursty load. A backup taken before the
// server has watched for a whole rate window knows no rate, and restoring
// it without a bound is refused.
func TestBackupUnderLoad(t *testing.T) {
	bin := testenv.SeqdBinary(t)
	for _, load := range []string{"steady", "bursty"} {
		t.Run(load, func(t *testing.T) {
			t.Parallel()
			backupUnderLoad(t, bin, load == "bursty")
		})
	}
}

// backupSeqs cover the engine's cache regimes and both directions.
var backupSeqs = []string{
	"create sequence b_nocache",
	"create sequence b_c50 cache 50",
	"create sequence b_c1000 increment by 3 cache 1000",
	"create sequence b_desc increment by -1 cache 20",
}

// valueLog holds every value returned, by sequence, and finds repeats.
type valueLog struct {
	mu      sync.Mutex
	seen    map[string]map[int64]int // value -> lifetime that returned it
	repeats []string
	count   [2]int
}

func (l *valueLog) add(seq string, v int64, life int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[seq] == nil {
		l.seen[seq] = map[int64]int{}
	}
	if prev, ok := l.seen[seq][v]; ok && len(l.repeats) < 20 {
		l.repeats = append(l.repeats, fmt.Sprintf("%s: %d handed out in lifetime %d and again in lifetime %d", seq, v, prev, life))
	}
	l.seen[seq][v] = life
	l.count[life]++
}

// clients runs n clients taking values from addr until stop; bursty ones
// alternate a second at full speed with a second of rest, steady ones
// pause a millisecond between requests.
func (l *valueLog) clients(t *testing.T, addr string, n, life int, bursty bool, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			c, err := pgx.Connect(ctx, "postgres://seqd@"+addr+"/seqd?sslmode=disable")
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			defer c.Close(ctx)
			rng := rand.New(rand.NewPCG(uint64(i), uint64(life)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if bursty {
					if time.Now().UnixMilli()/1000%2 == 1 {
						time.Sleep(20 * time.Millisecond)
						continue
					}
				} else {
					time.Sleep(time.Millisecond)
				}
				seq := strings.Fields(backupSeqs[rng.IntN(len(backupSeqs))])[2]
				var v int64
				if err := c.QueryRow(ctx, "select nextval($1)", seq).Scan(&v); err != nil {
					// The original is killed under load: its clients see
					// their connections go; the values they had are in.
					return
				}
				l.add(seq, v, life)
			}
		}()
	}
	return &wg
}

func backupUnderLoad(t *testing.T, bin string, bursty bool) {
	dir := t.TempDir()
	orig, backup, early, restored := filepath.Join(dir, "orig"), filepath.Join(dir, "backup"), filepath.Join(dir, "early"), filepath.Join(dir, "restored")
	logf, err := os.Create(filepath.Join(dir, "seqd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	addr, err := loopback.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	p, err := startProc(bin, orig, addr, false, 0, nil, logf)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	// exec runs statements on a connection of its own (the harness's
	// seqd ends connections idle for 5 s).
	exec1 := func(qs ...string) {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, "postgres://seqd@"+addr+"/seqd?sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		for _, q := range qs {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	exec1(backupSeqs...)
	// Too early: the server has not watched a whole window.
	exec1(fmt.Sprintf("select seqd_backup('%s')", early))
	log := &valueLog{seen: map[string]map[int64]int{}}
	stop := make(chan struct{})
	wg := log.clients(t, addr, 4, 0, bursty, stop)
	time.Sleep(engine.RateWindow + 2*time.Second) // the server watches a whole window, and more
	exec1(fmt.Sprintf("select seqd_backup('%s')", backup))
	time.Sleep(3 * time.Second) // serving on after the backup, at the same rate
	p.kill()
	close(stop)
	wg.Wait()

	out, err := exec.Command(bin, "restore", "-from", early, "-data", filepath.Join(dir, "refused")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the advance rate is unknown") || !strings.Contains(string(out), "give -bound") {
		t.Fatalf("restoring a backup that knows no rate, without a bound: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "restore", "-from", backup, "-data", restored).CombinedOutput()
	if err != nil {
		t.Fatalf("restore with the default bound: %v\n%s", err, out)
	}
	t.Logf("%s", out)

	// serve starts seqd on a restored store and has clients take values
	// from it into l for d.
	serve := func(data string, l *valueLog, clients int, d time.Duration) {
		addr, err := loopback.FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		p, err := startProc(bin, data, addr, false, 0, nil, logf)
		if err != nil {
			t.Fatal(err)
		}
		defer p.kill()
		stop := make(chan struct{})
		wg := l.clients(t, addr, clients, 1, false, stop)
		time.Sleep(d)
		close(stop)
		wg.Wait()
	}
	serve(restored, log, 4, 2*time.Second)

	// The check can fail: a restore whose bound is too small for what
	// the original handed out after the backup repeats values, and this
	// log finds them.
	small := &valueLog{seen: map[string]map[int64]int{}}
	log.mu.Lock()
	for seq, vs := range log.seen {
		small.seen[seq] = map[int64]int{}
		for v, life := range vs {
			if life == 0 {
				small.seen[seq][v] = 0
			}
		}
	}
	log.mu.Unlock()
	tooSmall := filepath.Join(dir, "too-small")
	if out, err := exec.Command(bin, "restore", "-from", backup, "-data", tooSmall, "-bound", "1").CombinedOutput(); err != nil {
		t.Fatalf("restore with -bound 1: %v\n%s", err, out)
	}
	serve(tooSmall, small, 2, time.Second)
	if len(small.repeats) == 0 {
		t.Fatalf("a restore with -bound 1 repeated none of the original's values in %d requests: the check proves nothing", small.count[1])
	}

	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.repeats) > 0 {
		t.Fatalf("values handed out twice:\n%s", strings.Join(log.repeats, "\n"))
	}
	// Enough work in both lifetimes for the check to mean something.
	if log.count[0] < 2000 || log.count[1] < 200 {
		t.Fatalf("too little checked: %d values from the original, %d from the restored store", log.count[0], log.count[1])
	}
	t.Logf("%d values from the original, %d from the restored store, none twice", log.count[0], log.count[1])
}
