package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/etcdstore"
)

var prefixes atomic.Int64

func freshPrefix() string { return fmt.Sprintf("/test%d/", prefixes.Add(1)) }

// TestOneLeaderAtATime: three nodes campaign for six terms; while one
// holds a valid term no other is elected, and every term's token is
// larger than the one before.
func TestOneLeaderAtATime(t *testing.T) {
	cl := etcdtest.Start(t, 3)
	prefix := freshPrefix()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu      sync.Mutex
		holder  string
		tokens  []int64
		overlap []string
	)
	var wg sync.WaitGroup
	for i := range 3 {
		name := fmt.Sprintf("node%d", i)
		cli := cl.Client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				enough := len(tokens) >= 6
				mu.Unlock()
				if enough {
					return
				}
				term, err := Campaign(ctx, Config{Client: cli, Prefix: prefix, Name: name, TTL: 2 * time.Second})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if holder != "" {
					overlap = append(overlap, fmt.Sprintf("%s elected while %s leads", name, holder))
				}
				holder = name
				tokens = append(tokens, term.Token)
				mu.Unlock()
				if l, tok, err := Leader(ctx, cli, prefix); err != nil || l != name || tok != term.Token {
					t.Errorf("Leader() = %q %d %v while %s leads term %d", l, tok, err, name, term.Token)
				}
				time.Sleep(100 * time.Millisecond)
				if !term.Valid() {
					t.Errorf("%s's term ended on its own: %v", name, term.Err())
				}
				mu.Lock()
				holder = ""
				mu.Unlock()
				if err := term.Resign(ctx); err != nil {
					t.Error(err)
				}
				if term.Valid() {
					t.Errorf("%s's term is valid after Resign", name)
				}
			}
		}()
	}
	wg.Wait()
	if len(overlap) > 0 {
		t.Fatal(overlap)
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i] <= tokens[i-1] {
			t.Fatalf("tokens do not grow: %v", tokens)
		}
	}
}

// TestLapsedLease is the zombie of PD #10671 and TiDB #46444: a leader
// whose store has stalled stops renewing its lease (Healthy says false).
// Its term ends by its own clock before etcd can expire the lease, so
// when another node is elected the first no longer takes itself for the
// leader, and its store's writes are fenced off.
func TestLapsedLease(t *testing.T) {
	cl := etcdtest.Start(t, 3)
	prefix := freshPrefix()
	ctx := context.Background()
	var healthy atomic.Bool
	healthy.Store(true)
	a, err := Campaign(ctx, Config{Client: cl.Client(t), Prefix: prefix, Name: "a", TTL: 2 * time.Second, Healthy: healthy.Load})
	if err != nil {
		t.Fatal(err)
	}
	storeA := openStore(t, cl.Client(t), prefix, a.Token)
	if _, err := storeA.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	healthy.Store(false)

	b, err := Campaign(ctx, Config{Client: cl.Client(t), Prefix: prefix, Name: "b", TTL: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Resign(ctx)
	if a.Valid() {
		t.Fatalf("b was elected while a's term was still valid (a's expiry %v)", time.Until(a.Expiry()))
	}
	select {
	case <-a.Done():
	default:
		t.Fatal("a's term is not done after it lapsed")
	}
	if !errors.Is(a.Err(), ErrLeaseLost) && !errors.Is(a.Err(), ErrDeposed) {
		t.Fatalf("a's term ended with %v", a.Err())
	}
	if b.Token <= a.Token {
		t.Fatalf("b's token %d is not above a's %d", b.Token, a.Token)
	}
	// a's store, still holding a's token, writes nothing any more.
	if _, err := storeA.Commit(ctx, storage.Token(a.Token), []storage.Op{{Key: "k", Value: []byte("v")}}); !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("a write in a lapsed term: %v", err)
	}
	if _, err := openStore(t, cl.Client(t), prefix, a.Token).Acquire(ctx); !errors.Is(err, storage.ErrFenced) {
		t.Fatalf("Acquire in a lapsed term: %v", err)
	}
}

// TestTermsServeWithoutRepeats runs the engine over the store in three
// terms in turn, each node handing out values until its term is over. The
// engines of ended terms are left running, as a zombie would be: they may
// serve their windows but never a value another term gave, and never
// write.
func TestTermsServeWithoutRepeats(t *testing.T) {
	cl := etcdtest.Start(t, 3)
	prefix := freshPrefix()
	ctx := context.Background()
	n, _ := engine.NewName("public", "ids")
	seen := map[int64]string{}
	var zombies []*engine.Engine
	for i := range 3 {
		name := fmt.Sprintf("node%d", i)
		term, err := Campaign(ctx, Config{Client: cl.Client(t), Prefix: prefix, Name: name, TTL: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		e, err := engine.Open(ctx, engine.Config{Store: openStore(t, cl.Client(t), prefix, term.Token), MaxBatch: etcdstore.MaxOps})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := e.Create(ctx, n, seqmath.Spec{Cache: ptr(int64(50))}, false); err != nil {
				t.Fatal(err)
			}
		}
		for range 120 {
			_, v, err := e.Nextval(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if prev, dup := seen[v]; dup {
				t.Fatalf("%s handed out %d, as %s did", name, v, prev)
			}
			seen[v] = name
		}
		// The zombies of earlier terms try too: whatever they hand out
		// is not a value handed out before, and they cannot write.
		for j, z := range zombies {
			for {
				_, v, err := z.Nextval(ctx, n)
				if err != nil {
					if !errors.Is(err, engine.ErrDeposed) {
						t.Fatalf("zombie %d: %v", j, err)
					}
					break
				}
				if prev, dup := seen[v]; dup {
					t.Fatalf("zombie %d handed out %d, as %s did", j, v, prev)
				}
				seen[v] = fmt.Sprintf("zombie %d", j)
			}
		}
		zombies = append(zombies, e)
		if err := term.Resign(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, z := range zombies {
		z.Close()
	}
	if len(seen) < 360 {
		t.Fatalf("%d values", len(seen))
	}
}

func openStore(t *testing.T, cli *clientv3.Client, prefix string, term int64) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.Open(etcdstore.Config{Client: cli, Prefix: prefix, Term: term})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// TestEngineStopsWithTerm: an engine given its term's validity serves
// while the term is valid, refuses the moment it is not (ErrDeposed, no
// value), and its Close then writes nothing back.
func TestEngineStopsWithTerm(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	cli := cl.Client(t)
	prefix := freshPrefix()
	ctx := context.Background()
	var healthy atomic.Bool
	healthy.Store(true)
	term, err := Campaign(ctx, Config{Client: cli, Prefix: prefix, Name: "a", TTL: 2 * time.Second, Healthy: healthy.Load})
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: openStore(t, cli, prefix, term.Token)}
	e, err := engine.Open(ctx, engine.Config{Store: st, MaxBatch: etcdstore.MaxOps, Leadership: term.Valid})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := engine.NewName("public", "ids")
	if _, err := e.Create(ctx, n, seqmath.Spec{Cache: ptr(int64(100))}, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Nextval(ctx, n); err != nil {
		t.Fatal(err)
	}
	healthy.Store(false) // the lease lapses
	<-term.Done()
	if _, v, err := e.Nextval(ctx, n); !errors.Is(err, engine.ErrDeposed) {
		t.Fatalf("nextval after the term: %d, %v", v, err)
	}
	// Not even a write etcd would refuse is tried.
	before := st.commits.Load()
	e.Close()
	if n := st.commits.Load() - before; n != 0 {
		t.Fatalf("Close after the term tried %d writes", n)
	}
}

// countingStore counts Commit calls.
type countingStore struct {
	storage.Store
	commits atomic.Int64
}

func (c *countingStore) Commit(ctx context.Context, tok storage.Token, ops []storage.Op) (storage.Rev, error) {
	c.commits.Add(1)
	return c.Store.Commit(ctx, tok, ops)
}
