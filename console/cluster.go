package console

import (
	"net/http"
	"time"
)

// Cluster is what the server tells of itself: the node, in cluster mode
// its role and leader, and the connections against their budget.
type Cluster struct {
	Mode string `json:"mode"` // "single" or "cluster"
	Node string `json:"node,omitempty"`
	// Role is "leader" or "standby" in cluster mode.
	Role   string `json:"role,omitempty"`
	Leader string `json:"leader,omitempty"`
	// Ready is what /readyz answers ("" when ready is an error: Error).
	Ready string `json:"ready"`
	Error string `json:"error,omitempty"`
	// EtcdContactSeconds is how long ago the node last heard from etcd.
	EtcdContactSeconds float64 `json:"etcd_contact_seconds,omitempty"`
	// Term is the leader's term (its leader key's revision), on the
	// leader; LeaderSince when it won it.
	Term        int64      `json:"term,omitempty"`
	LeaderSince *time.Time `json:"leader_since,omitempty"`
	// Members are etcd's members and their health, as this node reaches
	// them; Failovers the changes of leader this node saw, newest first.
	Members        []Member   `json:"members,omitempty"`
	Failovers      []Failover `json:"failovers,omitempty"`
	Connections    int        `json:"connections"`
	MaxConnections int        `json:"max_connections"`
	// ByProtocol are the connections open by protocol (postgresql,
	// mysql, http: the HTTP API, grpc).
	ByProtocol map[string]int `json:"by_protocol,omitempty"`
	Sequences  int            `json:"sequences"`
}

// cluster describes the server.
func (c *Console) cluster(_ *viewer, _ *http.Request) (any, error) {
	out := Cluster{Mode: "single"}
	if c.cfg.Cluster != nil {
		out = c.cfg.Cluster()
	}
	out.Sequences = c.cfg.Engine().Count()
	return out, nil
}

// Member is one etcd member: its name, client URLs, and what its status
// answered (Error when it did not).
type Member struct {
	Name      string   `json:"name"`
	URLs      []string `json:"urls"`
	Leader    bool     `json:"leader"`
	RaftTerm  uint64   `json:"raft_term,omitempty"`
	DBSize    int64    `json:"db_size,omitempty"`
	Error     string   `json:"error,omitempty"`
	IsLearner bool     `json:"learner,omitempty"`
}

// Failover is a change of seqd's leader as one node saw it: from whom,
// to whom, and how long it saw no leader in between (to within its view
// of the store's leader key, every few seconds).
type Failover struct {
	At      time.Time `json:"at"`
	From    string    `json:"from"`
	To      string    `json:"to"`
	Seconds float64   `json:"seconds"`
}
