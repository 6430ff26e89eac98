// The clustered run's nemeses of etcd itself and of the links to it,
// after Jepsen's: etcd members killed, paused, isolated and replaced,
// partial partitions of etcd's peers (a bridge, a majorities ring, random
// halves), slow and lossy links, and etcd's quota exceeded. Each is held a while
// under the clients' load, measured, and undone.

package torture

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/internal/localetcd"
)

// The nemeses, in addition to the failover faults (clustered.go).
const (
	EtcdFollowerKill    = "etcd follower member killed, then restarted"
	EtcdFollowerPause   = "etcd follower member paused, then resumed"
	EtcdIsolateLeader   = "etcd leader member isolated from its peers"
	EtcdIsolateFollower = "etcd follower member isolated from its peers"
	EtcdMinority        = "etcd minority isolated, each member alone"
	EtcdBridge          = "etcd bridge: two halves joined by one member"
	EtcdRing            = "etcd majorities ring: each member sees its neighbours"
	EtcdHalves          = "etcd random halves"
	LinkSlow            = "slow links between the leader and etcd"
	LinkLossy           = "lossy links between the leader and etcd"
	EtcdNoSpace         = "etcd quota exceeded (NOSPACE), then cleared"
	EtcdReplace         = "etcd leader member replaced while serving"
)

// singleMember are the faults of one etcd member, of a minority of them,
// and the partial partitions (bridge, ring, halves), in each of which a
// majority of the members still see one another: a quorum stays, so
// ORDER values must flow again within the lease and 2 s
// (docs/cluster.md), which the report checks.
var singleMember = map[string]bool{EtcdKill: true, EtcdFollowerKill: true, EtcdFollowerPause: true, EtcdIsolateLeader: true,
	EtcdIsolateFollower: true, EtcdMinority: true, EtcdReplace: true, EtcdBridge: true, EtcdRing: true, EtcdHalves: true,
	EtcdPeersSlow: true, EtcdPeersLossy: true, EtcdMemberStop: true, EtcdLostWrites: true}

// faultKinds are the kinds the run draws its rounds from: the failover
// faults, and the nemeses the configuration allows, of those in
// cfg.Kinds if it names any. With three members the ring is left out
// (each member's two neighbours are all its peers: no cut), and so are
// the halves (one member and two: EtcdIsolateLeader or
// EtcdIsolateFollower); the minority, ring and halves need five.
func (r *clusterRun) faultKinds() []string {
	kinds := r.allowedKinds()
	if len(r.cfg.Kinds) == 0 {
		return kinds
	}
	return slices.DeleteFunc(kinds, func(k string) bool { return !slices.Contains(r.cfg.Kinds, k) })
}

// KindsMatching are the fault kinds of a run on members etcd members
// whose names expr matches (seqtorture -cluster-kinds): a soak of one
// kind, or a few, to measure them alone.
func KindsMatching(expr string, members int) ([]string, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	r := &clusterRun{cfg: ClusteredConfig{Members: &localetcd.Cluster{}, Nemeses: &localetcd.Cluster{Members: make([]*embed.Etcd, members)}}}
	kinds := slices.DeleteFunc(r.allowedKinds(), func(k string) bool { return !re.MatchString(k) })
	if len(kinds) == 0 {
		return nil, fmt.Errorf("torture: no fault kind of a run on %d etcd members matches %q", members, expr)
	}
	return kinds, nil
}

// allowedKinds are the kinds the configuration allows.
func (r *clusterRun) allowedKinds() []string {
	kinds := []string{LeaderKill, LeaderStop, LeaderTerm, LeaderCut, LinkSlow, LinkLossy}
	if r.cfg.Members != nil {
		kinds = append(kinds, EtcdKill)
	}
	if c := r.cfg.Nemeses; c != nil {
		kinds = append(kinds, EtcdFollowerKill, EtcdFollowerPause, EtcdIsolateLeader, EtcdIsolateFollower, EtcdBridge, EtcdNoSpace, EtcdReplace,
			EtcdPeersSlow, EtcdPeersLossy, EtcdMemberStop, EtcdLostWrites)
		if len(c.Members) >= 5 {
			kinds = append(kinds, EtcdMinority, EtcdRing, EtcdHalves)
		}
	}
	return kinds
}

// nemesis applies fault if it is one of this file's, holds it for hold
// and undoes it; it returns how long a multi-host client waited for a
// value from its start (from its end for EtcdNoSpace, during which no
// write can succeed), and false if fault is no nemesis.
func (r *clusterRun) nemesis(fault string) (time.Duration, bool, error) {
	c := r.cfg.Nemeses
	var undo func() error
	node := -1
	// The last fault's aftermath may still be settling: etcd electing.
	if err := r.etcdLeader(); err != nil {
		return 0, true, err
	}
	if d, ok, err := r.memberFault(fault); ok {
		return d, true, err
	}
	var err error
	began, from := time.Now(), r.h.Now()
	r.epoch.Add(1)
	switch fault {
	case LinkSlow, LinkLossy:
		node, undo, err = r.impairLeader(fault)
	case EtcdFollowerKill:
		// An embedded member's Close drains its clients' streams for
		// seconds: the cluster is measured meanwhile, as a crash
		// would leave it.
		i := r.follower()
		stopped := make(chan struct{})
		go func() { c.Stop(i); close(stopped) }()
		undo = func() error { <-stopped; return c.Restart(i) }
	case EtcdFollowerPause:
		undo = r.pause(r.follower())
	case EtcdIsolateLeader, EtcdIsolateFollower:
		i := c.Leader()
		if fault == EtcdIsolateFollower {
			i = r.follower()
		}
		c.Isolate(i)
		undo = func() error { c.Rejoin(i); return nil }
	case EtcdMinority:
		undo = r.isolateMinority()
	case EtcdBridge, EtcdRing, EtcdHalves:
		undo = r.cutLinks(partialPartition(fault, rand.Perm(len(c.Members))))
	case EtcdNoSpace:
		return r.noSpace(began, from)
	case EtcdReplace:
		d, err := r.replace(from)
		return d, true, err
	default:
		return 0, false, nil
	}
	if err != nil {
		return 0, true, err
	}
	err = r.firstValue()
	d := time.Since(began)
	time.Sleep(time.Until(began.Add(r.hold())))
	r.window(fault, node, from)
	if uerr := undo(); uerr != nil && err == nil {
		err = fmt.Errorf("undoing: %w", uerr)
	}
	return d, true, err
}

// hold is how long a nemesis lasts: past a lease, so that a node that
// cannot renew its term loses it while the fault holds.
func (r *clusterRun) hold() time.Duration { return r.cfg.LeaseTTL + time.Second }

// follower is a running etcd member that does not lead.
func (r *clusterRun) follower() int {
	c := r.cfg.Nemeses
	return (max(c.Leader(), 0) + 1 + rand.IntN(len(c.Members)-1)) % len(c.Members)
}

// impairLeader makes the links between the seqd leader and every etcd
// member slow or lossy; it returns the leader and the undoing.
func (r *clusterRun) impairLeader(fault string) (int, func() error, error) {
	i, err := r.leaderNode()
	if err != nil {
		return 0, nil, err
	}
	l := slowLink
	if fault == LinkLossy {
		l = lossyLink
	}
	for _, p := range r.proxies[i] {
		p.setLink(l)
	}
	return i, func() error {
		for _, p := range r.proxies[i] {
			p.setLink(localetcd.Impairment{})
		}
		return nil
	}, nil
}

// pause plays a paused member: the members run in this process, so no
// SIGSTOP; instead its peers' and its clients' bytes are held both ways,
// which is what a stopped process shows the network, and flow on (to
// peers) when resumed. Its own timers run on, unlike a stopped
// process's: resumed, it may campaign (etcd's pre-vote keeps that from
// deposing the leader).
func (r *clusterRun) pause(i int) func() error {
	c := r.cfg.Nemeses
	c.Isolate(i)
	for _, ps := range r.proxies {
		ps[i].partition()
	}
	return func() error {
		c.Rejoin(i)
		for _, ps := range r.proxies {
			ps[i].heal()
		}
		return nil
	}
}

// isolateMinority isolates the etcd leader member and as many others as
// still leave a quorum, each alone.
func (r *clusterRun) isolateMinority() func() error {
	c := r.cfg.Nemeses
	n := len(c.Members)
	lead := max(c.Leader(), 0)
	var cut []int
	for k := range (n - 1) / 2 {
		cut = append(cut, (lead+k)%n)
	}
	for _, i := range cut {
		c.Isolate(i)
	}
	return func() error {
		for _, i := range cut {
			c.Rejoin(i)
		}
		return nil
	}
}

// partialPartition lists the links between etcd members that fault cuts,
// the members laid out in the order perm (random: the etcd leader may be
// anywhere in the layout), as Jepsen's partition nemeses draw them:
//   - EtcdBridge: two halves joined by the middle member, which sees
//     both; every link across is cut. With 3, {a} - b - {c}: the link
//     a-c alone; with 5, {a,b} - c - {d,e}.
//   - EtcdRing: the members in a ring, each seeing only its two
//     neighbours: with 5, each sees a majority (itself and two), no two
//     the same one.
//   - EtcdHalves: the first n/2 members apart from the others (2 and 3
//     of 5).
//
// In each, a majority of the members still see one another.
func partialPartition(fault string, perm []int) [][2]int {
	n := len(perm)
	pos := make([]int, n) // each member's place in the layout
	for k, m := range perm {
		pos[m] = k
	}
	cut := func(i, j int) bool {
		a, b := min(pos[i], pos[j]), max(pos[i], pos[j])
		switch fault {
		case EtcdBridge:
			return a < n/2 && b > n/2
		case EtcdRing:
			return b-a != 1 && b-a != n-1
		default: // EtcdHalves
			return a < n/2 && b >= n/2
		}
	}
	var links [][2]int
	for i := range n {
		for j := i + 1; j < n; j++ {
			if cut(i, j) {
				links = append(links, [2]int{i, j})
			}
		}
	}
	return links
}

// cutLinks cuts the peer traffic of each link between two etcd members,
// both ways; it returns the undoing.
func (r *clusterRun) cutLinks(links [][2]int) func() error {
	c := r.cfg.Nemeses
	for _, l := range links {
		c.CutLink(l[0], l[1])
	}
	return func() error {
		for _, l := range links {
			c.HealLink(l[0], l[1])
		}
		return nil
	}
}

// replace replaces the etcd leader member while the clients take values
// (localetcd's Replace: member remove, then member add of a new one on
// new ports), measured to the first value from its start. The nodes then
// follow the membership to the new member's own address, past the run's
// proxies; so the proxies are pointed at it and the nodes restarted
// cleanly one by one, the leader last (a LeaderTerm failover), to reach
// etcd through them again.
func (r *clusterRun) replace(from int64) (time.Duration, error) {
	c := r.cfg.Nemeses
	i := c.Leader()
	if i < 0 {
		return 0, errors.New("no etcd member leads")
	}
	began := time.Now()
	replaced := make(chan error, 1)
	go func() { replaced <- c.Replace(i) }()
	err := r.firstValue()
	d := time.Since(began)
	if rerr := <-replaced; rerr != nil {
		return 0, rerr
	}
	r.window(EtcdReplace, -1, from)
	if err != nil {
		return d, err
	}
	_, hostPort, _ := strings.Cut(c.Endpoints[i], "://")
	for _, ps := range r.proxies {
		ps[i].retarget(hostPort)
	}
	return d, r.restartNodes()
}

// restartNodes shuts every node down cleanly and starts it again, the
// followers first, then the leader as a LeaderTerm failover.
func (r *clusterRun) restartNodes() error {
	lead, err := r.leaderNode()
	if err != nil {
		return err
	}
	for j, p := range r.nodes {
		if j == lead {
			continue
		}
		p.signal(syscall.SIGTERM)
		if code, err := p.wait(30 * time.Second); err != nil || code != 0 {
			r.violation(fmt.Sprintf("restarting node%d after a replacement: exit status %d %v", j, code, err))
		}
		np, err := r.start(j)
		if err != nil {
			return fmt.Errorf("restarting node%d: %w", j, err)
		}
		r.nodes[j] = np
	}
	_, err = r.failover(LeaderTerm)
	return err
}

// noSpace raises etcd's NOSPACE alarm, as a member whose database
// reached its quota does (--quota-backend-bytes), checks that etcd then
// refuses a write, holds it, and clears it as an operator does:
// compaction, defragmentation of every member, the alarm disarmed.
// localetcd's members take the default quota (2 GiB), which a run
// cannot fill, so the alarm is raised through etcd's maintenance API,
// as etcd's own tests raise it; what the nodes see is the same: every
// write refused with "etcdserver: mvcc: database space exceeded".
func (r *clusterRun) noSpace(began time.Time, from int64) (time.Duration, bool, error) {
	if err := r.raiseNoSpace(); err != nil {
		return 0, true, err
	}
	time.Sleep(time.Until(began.Add(r.hold())))
	if err := r.clearNoSpace(); err != nil {
		return 0, true, err
	}
	cleared := time.Now()
	err := r.firstValue()
	d := time.Since(cleared)
	r.window(EtcdNoSpace, -1, from)
	return d, true, err
}

// etcdLeader waits until an etcd member leads.
func (r *clusterRun) etcdLeader() error {
	for asked := time.Now(); time.Since(asked) < time.Minute; time.Sleep(50 * time.Millisecond) {
		if r.cfg.Nemeses.Leader() >= 0 {
			return nil
		}
	}
	return errors.New("no etcd member led for a minute")
}

// leaderNode waits until etcd names a seqd leader, and returns it.
func (r *clusterRun) leaderNode() (int, error) {
	var name string
	var err error
	for asked := time.Now(); time.Since(asked) < time.Minute; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		name, _, err = cluster.Leader(ctx, r.cli, r.prefix)
		cancel()
		var i int
		if _, serr := fmt.Sscanf(name, "node%d", &i); err == nil && serr == nil && i < len(r.nodes) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no seqd leader for a minute: %q %v", name, err)
}
