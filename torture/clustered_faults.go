// The clustered run's faults: the leader killed, stopped, shut down or
// partitioned, etcd members killed, and the wait for the next leader.

package torture

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/seqd/seqd/cluster"
)

// failover applies fault to the current leader and returns how long a
// multi-host client then waited for a value from the next.
func (r *clusterRun) failover(fault string) (time.Duration, error) {
	if fault == EtcdKill {
		return r.etcdKill()
	}
	if d, ok, err := r.nemesis(fault); ok {
		return d, err
	}
	// The last fault's aftermath may still be settling (etcd electing,
	// a lease lapsing): wait for a leader, and report how long it took.
	var name string
	var err error
	for asked := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		name, _, err = cluster.Leader(ctx, r.cli, r.prefix)
		cancel()
		if err == nil && name != "" {
			if waited := time.Since(asked); waited > time.Second {
				r.mu.Lock()
				r.leaderless = append(r.leaderless, waited)
				r.mu.Unlock()
			}
			break
		}
		if time.Since(asked) > time.Minute {
			return 0, fmt.Errorf("no leader to fail over for a minute: %q %v", name, err)
		}
	}
	var i int
	if _, err := fmt.Sscanf(name, "node%d", &i); err != nil || i >= len(r.nodes) {
		return 0, fmt.Errorf("leader %q is no node", name)
	}
	p := r.nodes[i]
	r.epoch.Add(1)
	began := time.Now()
	from := r.h.Now()
	defer func() { r.window(fault, i, from) }()
	switch fault {
	case LeaderKill:
		p.kill()
	case LeaderTerm:
		p.signal(syscall.SIGTERM)
		if code, err := p.wait(30 * time.Second); err != nil || code != 0 {
			r.violation(fmt.Sprintf("%s: exit status %d %v", fault, code, err))
		}
	case LeaderStop:
		// Stopped past its lease, as a zombie is; continued only once
		// another node serves: its clients' requests must then be
		// refused, never answered from its old window.
		p.signal(syscall.SIGSTOP)
	case LeaderCut:
		// Partitioned from etcd, reachable by its clients: it must stop
		// serving before another node can be elected. Measured to the
		// first value after etcd names another leader.
		for _, px := range r.proxies[i] {
			px.partition()
		}
		err = r.awaitLeaderOtherThan(name)
	}
	if err == nil {
		err = r.firstValue()
	}
	d := time.Since(began)
	switch fault {
	case LeaderStop:
		p.signal(syscall.SIGCONT)
	case LeaderCut:
		for _, px := range r.proxies[i] {
			px.heal()
		}
	}
	if err != nil || fault == LeaderStop || fault == LeaderCut {
		return d, err
	}
	np, err := r.start(i)
	if err != nil {
		return 0, fmt.Errorf("restarting %s: %w", name, err)
	}
	r.nodes[i] = np
	return d, nil
}

// window records a fault on node (-1: etcd) from from until now.
func (r *clusterRun) window(fault string, node int, from int64) {
	r.mu.Lock()
	r.windows = append(r.windows, faultWindow{fault: fault, node: node, from: from, to: r.h.Now()})
	r.mu.Unlock()
}

// awaitLeaderOtherThan waits until etcd names a leader other than name.
func (r *clusterRun) awaitLeaderOtherThan(name string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		now, _, err := cluster.Leader(ctx, r.cli, r.prefix)
		cancel()
		if err == nil && now != "" && now != name {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s still leads 30s after its partition from etcd", name)
}

// etcdKill stops the etcd member that leads, waits for a value to be
// served (the seqd leader may keep its term through etcd's election, or
// lose it and another take over), then restarts the member.
func (r *clusterRun) etcdKill() (time.Duration, error) {
	m := r.cfg.Members
	i := m.Leader()
	if i < 0 {
		return 0, errors.New("no etcd member leads")
	}
	r.epoch.Add(1)
	began := time.Now()
	from := r.h.Now()
	defer func() { r.window(EtcdKill, -1, from) }()
	// An embedded member's Close drains its clients' streams for seconds;
	// the cluster is measured meanwhile, as a crash would leave it.
	stopped := make(chan struct{})
	go func() { m.Stop(i); close(stopped) }()
	err := r.firstValue()
	d := time.Since(began)
	<-stopped
	if rerr := m.Restart(i); rerr != nil {
		return 0, fmt.Errorf("restarting etcd member %d: %w", i, rerr)
	}
	return d, err
}
