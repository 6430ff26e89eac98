package localetcd

import (
	"context"
	"testing"
	"time"
)

// TestPauseProcess: a member run as a process and stopped (SIGSTOP)
// answers no one; the others commit; continued, it has their writes.
// Killed, it restarts in this process on the same data.
func TestPauseProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members, one a process")
	}
	c, err := StartWith(t.TempDir(), 3, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := (max(c.Leader(), 0) + 1) % 3
	c.Stop(f)
	if err := c.RestartProcess(f); err != nil {
		t.Fatal(err)
	}
	if c.Members[f] != nil {
		t.Fatal("a member run as a process is still in Members")
	}
	paused := memberClient(t, c, f)
	commits(t, paused, "k", "before")
	if err := c.Pause(f); err != nil {
		t.Fatal(err)
	}
	other := (f + 1) % 3
	commits(t, memberClient(t, c, other), "k", "while paused")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err = paused.Get(ctx, "k")
	cancel()
	if err == nil {
		t.Fatal("a stopped member answered")
	}
	if err := c.Resume(f); err != nil {
		t.Fatal(err)
	}
	reads(t, paused, "k", "while paused")
	if l := c.Leader(); l < 0 {
		t.Fatal("no etcd leader")
	}
	c.Stop(f)
	if err := c.Restart(f); err != nil {
		t.Fatal(err)
	}
	reads(t, memberClient(t, c, f), "k", "while paused")
}
