package server

import (
	"context"
	"sync"
	"time"

	"github.com/seqd/seqd/console"
)

// clusterView is what the console keeps of the cluster: the failovers
// this node saw and etcd's members as last asked. nil in single-node
// mode.
type clusterView struct {
	failovers failovers
	members   memberCache
}

// consoleCluster is what the console shows of the server.
func (s *Server) consoleCluster(v *clusterView) console.Cluster {
	c := console.Cluster{Mode: "single", Connections: s.admitted(), MaxConnections: s.cfg.maxConns(), Ready: "ok"}
	c.ByProtocol = map[string]int{}
	for _, pl := range protocolListeners {
		c.ByProtocol[pl[0]] = s.pg.Registry().AdmittedBy(pl[1])
	}
	if err := s.engine().Healthy(); err != nil {
		c.Ready, c.Error = "", err.Error()
	}
	if n := s.node; n != nil {
		c.Mode, c.Node = "cluster", n.cfg.NodeName
		ready, err := n.ready()
		c.Ready, c.Error = ready, ""
		if err != nil {
			c.Ready, c.Error = "", err.Error()
		}
		c.EtcdContactSeconds = n.etcdContactAge().Seconds()
		n.mu.Lock()
		c.Role, c.Leader = "leader", n.cfg.NodeName
		if n.standby {
			c.Role, c.Leader = "standby", n.leader
		} else if n.term != nil {
			won := n.term.Won.UTC()
			c.Term, c.LeaderSince = n.term.Token, &won
		}
		n.mu.Unlock()
		c.Members = v.members.get(n)
		c.Failovers = v.failovers.recent()
	}
	return c
}

// leaderSeen is the leader as n sees it: itself while it leads, else
// the leader key's holder at its last look ("": none).
func (n *node) leaderSeen() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.standby {
		return n.cfg.NodeName
	}
	return n.leader
}

// failoverCheck is how often a node looks for a change of leader.
const failoverCheck = time.Second

// watchFailovers records the changes of leader the node sees, until the
// server stops.
func (s *Server) watchFailovers(f *failovers) {
	t := time.NewTicker(failoverCheck)
	defer t.Stop()
	last, gap := s.node.leaderSeen(), time.Time{}
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			seen := s.node.leaderSeen()
			switch {
			case seen == last:
			case seen == "":
				gap = now
			default:
				d := 0.0
				if !gap.IsZero() {
					d = now.Sub(gap).Seconds()
				}
				if last != "" || !gap.IsZero() {
					f.add(console.Failover{At: now.UTC(), From: last, To: seen, Seconds: d})
				}
				gap = time.Time{}
			}
			if seen != "" {
				last = seen
			}
		}
	}
}

// failovers are the last maxFailovers changes of leader a node saw. It
// is safe for concurrent use.
type failovers struct {
	mu   sync.Mutex
	list []console.Failover // newest last
}

const maxFailovers = 50

func (f *failovers) add(fo console.Failover) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = append(f.list, fo)
	if len(f.list) > maxFailovers {
		f.list = f.list[len(f.list)-maxFailovers:]
	}
}

func (f *failovers) recent() []console.Failover {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]console.Failover, 0, len(f.list))
	for i := len(f.list) - 1; i >= 0; i-- {
		out = append(out, f.list[i])
	}
	return out
}

// memberCache is etcd's members and their status as last asked, kept
// for memberTTL: the console's readers ask etcd at most that often. It
// is safe for concurrent use.
type memberCache struct {
	mu      sync.Mutex
	at      time.Time
	members []console.Member
}

const (
	memberTTL     = 5 * time.Second
	memberTimeout = 2 * time.Second
)

// get is the members, asked again once memberTTL passed.
func (m *memberCache) get(n *node) []console.Member {
	m.mu.Lock()
	defer m.mu.Unlock()
	if time.Since(m.at) < memberTTL {
		return m.members
	}
	ctx, cancel := context.WithTimeout(n.ctx, memberTimeout)
	defer cancel()
	m.at, m.members = time.Now(), askMembers(ctx, n)
	return m.members
}

// askMembers lists etcd's members and asks each for its status.
func askMembers(ctx context.Context, n *node) []console.Member {
	resp, err := n.cli.MemberList(ctx)
	if err != nil {
		return []console.Member{{Name: "etcd", Error: err.Error()}}
	}
	out := make([]console.Member, len(resp.Members))
	var wg sync.WaitGroup
	for i, mb := range resp.Members {
		out[i] = console.Member{Name: mb.Name, URLs: mb.ClientURLs, IsLearner: mb.IsLearner}
		if len(mb.ClientURLs) == 0 {
			out[i].Error = "not started"
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Through a client of the member's own (etcdstore's
			// MemberClient): the node's dials it racing SetEndpoints.
			mc, err := n.eps.MemberClient(ctx, mb.ClientURLs[0])
			if err != nil {
				out[i].Error = err.Error()
				return
			}
			defer mc.Close()
			st, err := mc.Status(ctx, mb.ClientURLs[0])
			if err != nil {
				out[i].Error = err.Error()
				return
			}
			out[i].Leader, out[i].RaftTerm, out[i].DBSize = st.Leader == mb.ID, st.RaftTerm, st.DbSize
		}()
	}
	wg.Wait()
	return out
}
