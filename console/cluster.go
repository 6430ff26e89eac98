package console

import "net/http"

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
	Connections        int     `json:"connections"`
	MaxConnections     int     `json:"max_connections"`
	Sequences          int     `json:"sequences"`
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
