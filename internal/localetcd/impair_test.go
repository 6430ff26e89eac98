package localetcd

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestImpairmentDue: a chunk leaves no sooner than its delay, no later
// than delay and jitter on a link without loss, never before the chunk
// read ahead of it, and a lost one stalls for its retransmissions, but
// not one read while the stream is stalled already.
func TestImpairmentDue(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, tc := range []struct {
		name     string
		imp      Impairment
		last     time.Time
		min, max time.Duration // from now
	}{
		{"clean", Impairment{}, time.Time{}, 0, 0},
		{"delay", Impairment{Delay: 50 * time.Millisecond}, time.Time{}, 50 * time.Millisecond, 50 * time.Millisecond},
		{"jitter", Impairment{Delay: 50 * time.Millisecond, Jitter: 20 * time.Millisecond}, time.Time{},
			50 * time.Millisecond, 70 * time.Millisecond},
		{"behind a later chunk", Impairment{Delay: 10 * time.Millisecond}, now.Add(time.Second), time.Second, time.Second},
		{"half lost", Impairment{Loss: 0.5}, time.Time{}, 0, 1 << 62},
		// Behind a stall, a chunk's own loss is repaired while it waits.
		{"half lost, behind a stall", Impairment{Loss: 0.5}, now.Add(time.Second), time.Second, time.Second},
		{"slow, half lost, behind a stall", Impairment{Delay: 100 * time.Millisecond, Loss: 0.5}, now.Add(time.Second),
			time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 200 {
				d := tc.imp.due(now, tc.last).Sub(now)
				if d < tc.min || d > tc.max {
					t.Fatalf("due in %v, want %v to %v", d, tc.min, tc.max)
				}
				if tc.imp.Loss > 0 && d != 0 && (d%RTO != 0 || d < RTO) {
					t.Fatalf("stalled %v, not whole retransmission timeouts", d)
				}
			}
		})
	}
}

// TestImpairmentLossStalls: about the share Loss says of the chunks
// stall, each for at least a retransmission timeout.
func TestImpairmentLossStalls(t *testing.T) {
	imp := Impairment{Loss: 0.2}
	stalled := 0
	for range 10000 {
		if imp.Hold() >= RTO {
			stalled++
		}
	}
	if stalled < 1700 || stalled > 2300 {
		t.Fatalf("%d of 10000 chunks stalled, want about 2000", stalled)
	}
}

// TestProxyImpair: through a slow proxy a round trip takes both ways'
// delay; with jitter and loss the stream arrives whole and in order; a
// clean link again is fast.
func TestProxyImpair(t *testing.T) {
	p, err := NewProxy(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.Impair(Impairment{Delay: 100 * time.Millisecond})
	began := time.Now()
	roundTrip(t, c, "slow", 5*time.Second)
	if d := time.Since(began); d < 200*time.Millisecond {
		t.Fatalf("round trip through a link of 100 ms each way took %v", d)
	}

	p.Impair(Impairment{Delay: time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.1})
	var sent []byte
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(c, 200*100))
		got <- b
	}()
	for i := range 200 {
		piece := bytes.Repeat([]byte{byte(i)}, 100)
		sent = append(sent, piece...)
		if _, err := c.Write(piece); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // apart, so that they are chunks of their own
	}
	if b := <-got; !bytes.Equal(b, sent) {
		t.Fatalf("the stream came back reordered or cut: %d bytes of %d", len(b), len(sent))
	}

	p.Impair(Impairment{})
	began = time.Now()
	roundTrip(t, c, "fast", 5*time.Second)
	if d := time.Since(began); d > 100*time.Millisecond {
		t.Fatalf("round trip through a clean link took %v", d)
	}
}

// TestProxyImpairs: a link's impairment is set on the proxies of both
// its members, for the connections from the other.
func TestProxyImpairs(t *testing.T) {
	ids := []string{"a", "b", "c"}
	slow := Impairment{Delay: time.Second}
	k := cuts{impaired: map[link]Impairment{newLink(2, 0): slow}}
	want := []map[string]Impairment{{"c": slow}, {}, {"a": slow}}
	for j := range ids {
		got := k.proxyImpairs(j, ids)
		if len(got) != len(want[j]) || got["a"] != want[j]["a"] || got["c"] != want[j]["c"] {
			t.Errorf("proxy of %s impairs %v, want %v", ids[j], got, want[j])
		}
	}
}

// TestImpairLink: with every link of the etcd leader slow (150 ms each
// way, jittered) and lossy, writes still commit, slower than on clean
// links; healed, fast again.
func TestImpairLink(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	c, err := StartWith(t.TempDir(), 3, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lead := c.Leader()
	if lead < 0 {
		t.Fatal("no etcd leader")
	}
	cli := memberClient(t, c, lead)
	commits(t, cli, "k", "clean")
	slow := Impairment{Delay: 150 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05}
	for _, j := range []int{(lead + 1) % 3, (lead + 2) % 3} {
		c.ImpairLink(lead, j, slow)
	}
	if d := timedPut(t, cli, "slow"); d < 300*time.Millisecond {
		t.Fatalf("a commit over links of 150 ms each way took %v", d)
	}
	reads(t, memberClient(t, c, (lead+1)%3), "k", "slow")
	c.HealAll()
	var d time.Duration
	for range 20 { // the held chunks drain first
		if d = timedPut(t, cli, "healed"); d < 100*time.Millisecond {
			return
		}
	}
	t.Fatalf("a commit on healed links took %v", d)
}

// timedPut commits k=value through cli and returns how long it took.
func timedPut(t *testing.T, cli *clientv3.Client, value string) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	began := time.Now()
	if _, err := cli.Put(ctx, "k", value); err != nil {
		t.Fatal(err)
	}
	return time.Since(began)
}

// TestImpairUnnamed: a lease renewal a follower forwards to the etcd
// leader member names no sender, so the leader member's links impaired
// (ImpairLink) leave it fast; ImpairUnnamed slows it (a round trip on
// the link: twice the delay), and HealAll ends that.
func TestImpairUnnamed(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members")
	}
	c, err := StartWith(t.TempDir(), 3, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	lead := c.Leader()
	if lead < 0 {
		t.Fatal("no etcd leader")
	}
	cli := memberClient(t, c, (lead+1)%3)
	ctx := context.Background()
	g, err := cli.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	renew := func() time.Duration {
		t.Helper()
		began := time.Now()
		if _, err := cli.KeepAliveOnce(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		return time.Since(began)
	}
	slow := Impairment{Delay: 200 * time.Millisecond}
	for _, j := range []int{(lead + 1) % 3, (lead + 2) % 3} {
		c.ImpairLink(lead, j, slow)
	}
	if d := renew(); d >= 200*time.Millisecond {
		t.Fatalf("a renewal through a follower took %v with the links impaired alone: it names its sender?", d)
	}
	c.ImpairUnnamed(lead, slow)
	if d := renew(); d < 400*time.Millisecond {
		t.Fatalf("a renewal through a follower took %v with the requests naming no sender impaired by 200 ms each way", d)
	}
	c.HealAll()
	var d time.Duration
	for range 20 { // the held chunks drain first
		if d = renew(); d < 100*time.Millisecond {
			return
		}
	}
	t.Fatalf("a renewal through a follower still took %v once healed", d)
}
