package server

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"time"
)

// A cluster's followers forward to the leader what only the leader
// serves (an ORDER sequence's values, DDL) when it comes over the
// driverless APIs: each node records in etcd where its HTTP API and gRPC
// service answer (prefix + "api/" + its name), and a follower that refuses
// a request as a standby (25006) sends it on to the addresses of the
// leader it last saw. The follower never serves such a value itself, so
// forwarding adds a hop, not a path by which a value could be handed out
// twice; a forwarded request is never forwarded again (the leader having
// just lost its term answers 503, and the client retries).

// apiAddrs is where a node's driverless APIs answer, as the others reach
// them.
type apiAddrs struct {
	HTTP string `json:"http,omitempty"` // base URL
	GRPC string `json:"grpc,omitempty"` // host:port
}

func apiKey(prefix, name string) string {
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return prefix + "api/" + name
}

// advertised is a listener's address as other nodes reach it: an
// unspecified host (0.0.0.0, ::) becomes the node name's.
func advertised(l net.Addr, nodeName string) string {
	host, port, err := net.SplitHostPort(l.String())
	if err != nil {
		return l.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		if h, _, err := net.SplitHostPort(nodeName); err == nil && h != "" {
			host = h
		}
	}
	return net.JoinHostPort(host, port)
}

// publishAPIs records where this node's APIs answer.
func (n *node) publishAPIs(a apiAddrs) error {
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.LeaseTTL)
	defer cancel()
	n.mu.Lock()
	name := n.cfg.NodeName
	n.mu.Unlock()
	_, err = n.cli.Put(ctx, apiKey(n.cfg.EtcdPrefix, name), string(b))
	return err
}

// leaderAPIs are the addresses of the leader this node last saw, while
// it follows; false when it leads, sees none, or cannot read them.
func (n *node) leaderAPIs() (apiAddrs, bool) {
	n.mu.Lock()
	name, standby := n.leader, n.standby
	n.mu.Unlock()
	// A node whose term has just ended may have seen itself lead last:
	// it refuses rather than forward to itself.
	if !standby || name == "" || name == n.cfg.NodeName {
		return apiAddrs{}, false
	}
	return n.apis.get(name, func() (apiAddrs, error) {
		ctx, cancel := context.WithTimeout(n.ctx, time.Second)
		defer cancel()
		r, err := n.cli.Get(ctx, apiKey(n.cfg.EtcdPrefix, name))
		if err != nil || len(r.Kvs) == 0 {
			return apiAddrs{}, err
		}
		var a apiAddrs
		err = json.Unmarshal(r.Kvs[0].Value, &a)
		return a, err
	})
}

// apiCache keeps the nodes' addresses read, for a few seconds each (a
// node restarted may listen elsewhere).
type apiCache struct {
	mu     sync.Mutex
	byName map[string]cachedAPIs
}

type cachedAPIs struct {
	a    apiAddrs
	read time.Time
}

func (c *apiCache) get(name string, read func() (apiAddrs, error)) (apiAddrs, bool) {
	c.mu.Lock()
	e, ok := c.byName[name]
	c.mu.Unlock()
	if ok && time.Since(e.read) < 5*time.Second {
		return e.a, e.a != apiAddrs{}
	}
	a, err := read()
	if err != nil {
		return apiAddrs{}, false
	}
	c.mu.Lock()
	if c.byName == nil {
		c.byName = map[string]cachedAPIs{}
	}
	c.byName[name] = cachedAPIs{a: a, read: time.Now()}
	c.mu.Unlock()
	return a, a != apiAddrs{}
}
