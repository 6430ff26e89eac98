// The nemeses of one etcd member's links, process and disk: its peer
// links slow or lossy, its process stopped (SIGSTOP), and its last
// writes lost.

package torture

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/seqd/seqd/internal/localetcd"
)

// The member nemeses, besides clustered_nemesis.go's.
const (
	EtcdPeersSlow  = "slow links between the etcd leader member and its peers"
	EtcdPeersLossy = "lossy links between the etcd leader member and its peers"
	EtcdMemberStop = "etcd member process stopped (SIGSTOP), then continued"
	EtcdLostWrites = "etcd follower member lost its last writes, then renewed"
)

// The peer links the nemeses set: 150 ms each way with up to 50 ms of
// jitter (a round trip of 300-400 ms, against etcd's 100 ms heartbeat
// and 1 s election timeout), and 20 % of chunks lost, each stalling its
// stream for a retransmission timeout or more.
var (
	slowPeers  = localetcd.Impairment{Delay: 150 * time.Millisecond, Jitter: 50 * time.Millisecond}
	lossyPeers = localetcd.Impairment{Loss: 0.2}
)

// memberFault applies one of this file's faults, measured as nemesis
// measures; false if fault is none of them.
func (r *clusterRun) memberFault(fault string) (time.Duration, bool, error) {
	switch fault {
	case EtcdPeersSlow, EtcdPeersLossy:
		return r.held(fault, r.impairPeers(fault))
	case EtcdMemberStop:
		d, err := r.stopMember()
		return d, true, err
	case EtcdLostWrites:
		d, err := r.loseWrites()
		return d, true, err
	}
	return 0, false, nil
}

// held measures the fault just applied (undo undoes it): the wait for a
// value from its start, held for hold, undone. A fault of one member
// under which no node serves for 30 s is undone then, and the run goes
// on: the report lists it over the bound.
func (r *clusterRun) held(fault string, undo func()) (time.Duration, bool, error) {
	began, from := time.Now(), r.h.Now()
	r.epoch.Add(1)
	err := r.firstValue()
	d := time.Since(began)
	if errors.Is(err, errNoValue) && singleMember[fault] {
		// An availability finding, not the run's end: the fault is
		// undone, and its window runs until a value comes again (the
		// report holds its ORDER gap to the bound).
		undo()
		err = r.firstValue()
		r.window(fault, -1, from)
		return d, true, err
	}
	time.Sleep(time.Until(began.Add(r.hold())))
	r.window(fault, -1, from)
	undo()
	return d, true, err
}

// impairPeers makes the etcd leader member's links to its peers slow or
// lossy, both ways; it returns the undoing.
func (r *clusterRun) impairPeers(fault string) func() {
	c := r.cfg.Nemeses
	lead := max(c.Leader(), 0)
	imp := slowPeers
	if fault == EtcdPeersLossy {
		imp = lossyPeers
	}
	for j := range c.Members {
		if j != lead {
			c.ImpairLink(lead, j, imp)
		}
	}
	// The requests its peers send it without naming themselves (a lease
	// renewal a follower forwards) come over the same links.
	c.ImpairUnnamed(lead, imp)
	return func() {
		for j := range c.Members {
			c.ImpairLink(lead, j, localetcd.Impairment{})
		}
		c.ImpairUnnamed(lead, localetcd.Impairment{})
	}
}

// stopMember stops one etcd member's process (SIGSTOP), whichever it is,
// leader or follower: its timers and disk stop with it, which the
// in-process pause (EtcdFollowerPause) cannot do. The member is first
// moved to a process of its own (stopped here, started there on its
// data) before the fault's window, and back after it. The window runs a
// second past the continue: a leader member continued in a term that
// has ended must step down, not disturb its successor.
func (r *clusterRun) stopMember() (time.Duration, error) {
	c := r.cfg.Nemeses
	i := rand.IntN(len(c.Members))
	c.Stop(i)
	if err := c.RestartProcess(i); err != nil {
		return 0, fmt.Errorf("etcd member %d as a process: %w", i, err)
	}
	defer r.backInProcess(i)
	if err := r.etcdLeader(); err != nil {
		return 0, err
	}
	began, from := time.Now(), r.h.Now()
	r.epoch.Add(1)
	if err := c.Pause(i); err != nil {
		return 0, err
	}
	err := r.firstValue()
	d := time.Since(began)
	time.Sleep(time.Until(began.Add(r.hold())))
	if cerr := c.Resume(i); cerr != nil && err == nil {
		err = cerr
	}
	time.Sleep(time.Second)
	r.window(EtcdMemberStop, -1, from)
	return d, err
}

// backInProcess moves member i, run as a process, back into this one.
func (r *clusterRun) backInProcess(i int) {
	c := r.cfg.Nemeses
	c.Stop(i)
	if err := c.Restart(i); err != nil {
		r.violation(fmt.Sprintf("etcd member %d back in process: %v", i, err))
	}
}

// loseWrites plays a follower member that loses the writes it made since
// a moment it was stopped, as a power loss under a write-back cache that
// acknowledged fsyncs would: stopped, its data copied, restarted; a
// while under load (it acknowledges the leader's entries); then crashed,
// its data put back to the copy, and started again (as a process). etcd
// assumes fsync works: such a member is no lagging follower but one
// whose raft log lost entries it acknowledged, and raft exits on it
// (localetcd's TestLostWrites). The operator's recovery follows: the
// member removed and added back with no data (Renew). The window runs
// from the crash to the renewed member serving.
func (r *clusterRun) loseWrites() (time.Duration, error) {
	c := r.cfg.Nemeses
	i := r.follower()
	c.Stop(i)
	if err := c.SaveData(i); err != nil {
		return 0, err
	}
	if err := c.Restart(i); err != nil {
		return 0, err
	}
	time.Sleep(r.hold())
	began, from := time.Now(), r.h.Now()
	r.epoch.Add(1)
	stopped := make(chan struct{})
	go func() { c.Stop(i); close(stopped) }()
	err := r.firstValue()
	d := time.Since(began)
	<-stopped
	renewed, rerr := r.restoreAndRenew(i)
	if rerr != nil {
		return 0, rerr
	}
	r.window(EtcdLostWrites, -1, from)
	if err != nil || !renewed {
		return d, err
	}
	// The nodes may have followed the membership, while the member was
	// out of it, to the members' own addresses, past the run's proxies
	// (as after EtcdReplace): restarted, they reach etcd through them
	// again.
	return d, r.restartNodes()
}

// restoreAndRenew puts member i's data back to its copy, starts it as a
// process, and renews it once it exits (true); if it does not within
// 10 s (it lost nothing it had acknowledged), it is moved back into this
// process.
func (r *clusterRun) restoreAndRenew(i int) (bool, error) {
	c := r.cfg.Nemeses
	if err := c.RestoreData(i); err != nil {
		return false, err
	}
	if err := c.RestartProcess(i); err == nil {
		for deadline := time.Now().Add(10 * time.Second); !c.Exited(i); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				r.countLostWrites("ran on")
				r.backInProcess(i)
				return false, nil
			}
		}
	}
	r.countLostWrites("exited")
	if err := c.Renew(i); err != nil {
		return false, errors.Join(errors.New("renewing the member that lost its writes"), err)
	}
	return true, nil
}

func (r *clusterRun) countLostWrites(outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lostWrites == nil {
		r.lostWrites = map[string]int{}
	}
	r.lostWrites[outcome]++
}
