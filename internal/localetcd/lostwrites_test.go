package localetcd

import (
	"fmt"
	"testing"
	"time"
)

// TestLostWrites: a follower whose data directory goes back to an
// earlier copy while it is down (the writes it acknowledged since, lost)
// is not taken for a lagging member: started again, it exits (raft
// panics: the leader's heartbeat commits an index past its log's end),
// while the other two go on committing. Renewed (removed, added back
// with no data) it serves on its old address and has every write.
func TestLostWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("three etcd members, one a process")
	}
	c, err := StartWith(t.TempDir(), 3, Options{PeerProxies: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := (max(c.Leader(), 0) + 1) % 3
	cli := memberClient(t, c, (f+1)%3)
	commits(t, cli, "k", "saved")
	c.Stop(f)
	if err := c.SaveData(f); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(f); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		commits(t, cli, "k", fmt.Sprint("lost ", i))
	}
	reads(t, memberClient(t, c, f), "k", "lost 99")
	c.Stop(f)
	if err := c.RestoreData(f); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartProcess(f); err == nil { // it may exit before it is ready, or soon after
		for deadline := time.Now().Add(10 * time.Second); !c.Exited(f); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("a member that lost the writes it acknowledged still runs after 10s")
			}
		}
	}
	commits(t, cli, "k", "after")
	if err := c.Renew(f); err != nil {
		t.Fatal(err)
	}
	reads(t, memberClient(t, c, f), "k", "after")
	commits(t, memberClient(t, c, f), "k", "renewed")
}
