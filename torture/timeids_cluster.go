package torture

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/timeid"
)

// The clock torture of a cluster: the same generators, clients and
// checkers as RunTimeIDs, on seqd nodes on etcd whose clocks differ.
// Each node starts on a clock of its own (the run's, or that stepped
// back or ahead by up to 8 s); the run's clock
// faults move every node's together during load; each cycle then fails
// the leader over (kill -9 or a clean shutdown) and starts that node
// again on a newly drawn clock: so a leader's successor may read its
// clock up to 16 s behind or ahead of it. Checked as on one node:
// no id twice across the cluster, ids in real-time order across every
// failover (one leader at a time serves each generator), each id's time
// within the bounds of the clocks the nodes had, a refusal (55000) only
// where the ids could have run more than MaxBehind ahead of a clock.

// ClusterTimeConfig is one clock torture run of a cluster.
type ClusterTimeConfig struct {
	TimeConfig
	Etcd         []string // the etcd cluster's client endpoints
	EtcdSecurity server.EtcdSecurity
	Nodes        int // default 3
}

// RunTimeIDsCluster runs the clock torture on a cluster and checks its
// history; TimeConfig.Cycles counts its failovers.
func RunTimeIDsCluster(cfg ClusterTimeConfig) (*TimeReport, error) {
	if cfg.Nodes == 0 {
		cfg.Nodes = 3
	}
	cli, err := server.EtcdClient(cfg.Etcd, cfg.EtcdSecurity)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	logf, err := os.Create(filepath.Join(cfg.Dir, "seqd.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	r := &timeRun{cfg: cfg.TimeConfig, start: time.Now(), faults: map[string]int{}, skew: make([]time.Duration, cfg.Nodes), cluster: true}
	c := &timeCluster{r: r, cfg: cfg, cli: cli, log: logf, prefix: fmt.Sprintf("/timeids%d/", cfg.Seed%1_000_000), nodes: make([]*proc, cfg.Nodes)}
	defer c.stopAll()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x72))
	if err := c.startAll(rng); err != nil {
		return nil, err
	}
	if err := c.setup(); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range cfg.Clients {
		wg.Add(1)
		seed := rng.Uint64()
		go func() { defer wg.Done(); r.worker(i, seed, stop) }()
	}
	err = c.cycles(rng)
	close(stop)
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("%w (log in %s)", err, logf.Name())
	}
	return r.check(), nil
}

// timeCluster is a cluster clock torture's nodes.
type timeCluster struct {
	r      *timeRun
	cfg    ClusterTimeConfig
	cli    *clientv3.Client
	log    *os.File
	prefix string
	addrs  []string
	nodes  []*proc
}

// startAll starts every node, each on a clock of its own, and the
// clients' multi-host connection string.
func (c *timeCluster) startAll(rng *rand.Rand) error {
	var hosts, ports []string
	for i := range c.cfg.Nodes {
		addr, err := loopback.FreeAddr()
		if err != nil {
			return err
		}
		c.addrs = append(c.addrs, addr)
		h, p, _ := strings.Cut(addr, ":")
		hosts, ports = append(hosts, h), append(ports, p)
		if err := c.start(i, c.drawSkew(rng, i)); err != nil {
			return err
		}
	}
	c.r.dsn = fmt.Sprintf("host=%s port=%s user=torture dbname=torture target_session_attrs=read-write connect_timeout=2",
		strings.Join(hosts, ","), strings.Join(ports, ","))
	return nil
}

// drawSkew sets node i's clock apart from the run's: back or ahead by
// up to 8 s, or not at all; it gives the node's offset. (Nodes whose
// clocks lie further apart work as well, but a leader's successor whose
// clock is minutes behind refuses every id for those minutes: the
// steps forward move every node's clock together.)
func (c *timeCluster) drawSkew(rng *rand.Rand, i int) time.Duration {
	var skew time.Duration
	switch rng.IntN(3) {
	case 0:
		skew = -time.Duration(rng.Int64N(int64(8 * time.Second)))
	case 1:
		skew = time.Duration(rng.Int64N(int64(8 * time.Second)))
	}
	r := c.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.moveLocked(func() { r.skew[i] = skew }, 0)
	if skew != 0 {
		r.faults["node started on a clock apart"]++
	}
	return r.offset + skew
}

// start runs node i on a clock off from real time.
func (c *timeCluster) start(i int, off time.Duration) error {
	args := []string{"-etcd", strings.Join(c.cfg.Etcd, ","), "-etcd-prefix", c.prefix, "-name", fmt.Sprintf("node%d", i),
		"-lease-ttl", "2s", "-idle-timeout", "0", "-fault-clock", "-fault-clock-offset", off.String()}
	args = append(args, EtcdFlags(c.cfg.EtcdSecurity)...)
	p, err := startProc(c.cfg.Binary, filepath.Join(c.cfg.Dir, fmt.Sprintf("node%d", i)), c.addrs[i], false, 0, nil, c.log, args...)
	if err != nil {
		return fmt.Errorf("node %d: %w", i, err)
	}
	c.nodes[i] = p
	return nil
}

func (c *timeCluster) stopAll() {
	for _, p := range c.nodes {
		if p != nil && p.running() {
			p.kill()
		}
	}
}

// setup makes the generators' sequences on the first leader.
func (c *timeCluster) setup() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := c.r.setup()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("setup: %w", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// send gives every node that runs a clock command: the run's clock
// faults move every node's clock together.
func (c *timeCluster) send(cmd string) error {
	for i, p := range c.nodes {
		if p.running() {
			if err := p.fault(cmd); err != nil {
				return fmt.Errorf("node %d: %w", i, err)
			}
		}
	}
	return nil
}

// cycles runs the load with clock faults, then fails the leader over,
// Cycles times.
func (c *timeCluster) cycles(rng *rand.Rand) error {
	r := c.r
	var term int64
	for cycle := range r.cfg.Cycles {
		// The next term's leader (the last one's key lasts until its
		// lease lapses, after a kill -9) serves the cycle's load.
		i, t, err := c.leader(term)
		if err != nil {
			return fmt.Errorf("cycle %d: %w", cycle, err)
		}
		term = t
		load := r.cfg.Load/10 + time.Duration(rng.Int64N(int64(r.cfg.Load)))
		if err := r.clockFaults(c.send, rng, load); err != nil {
			return fmt.Errorf("cycle %d: %w", cycle, err)
		}
		end := []string{"leader kill -9", "leader clean shutdown"}[rng.IntN(2)]
		fmt.Fprintf(c.log, "--- cycle %d at %v: %s (node%d)\n", cycle, r.now(), end, i)
		// The next leader starts above the mark, which may lie a Window
		// ahead of the clock the ids were handed out on.
		r.mu.Lock()
		_, hi := r.rangeLocked()
		r.frontier = max(r.frontier, r.now()+hi) + timeid.DefaultWindow + 100*time.Millisecond
		r.mu.Unlock()
		p := c.nodes[i]
		if end == "leader kill -9" {
			p.kill()
		} else {
			p.signal(syscall.SIGTERM)
			if code, err := p.wait(30 * time.Second); err != nil || code != 0 {
				return fmt.Errorf("cycle %d: node%d's clean shutdown: exit %d, %v", cycle, i, code, err)
			}
		}
		r.faults[end]++
		if err := c.start(i, c.drawSkew(rng, i)); err != nil {
			return err
		}
		if r.cfg.Progress != nil {
			r.mu.Lock() // the clients append to ops meanwhile
			ops := len(r.ops)
			r.mu.Unlock()
			r.cfg.Progress(fmt.Sprintf("cycle %d: %s (node%d), %d operations so far", cycle, end, i, ops))
		}
	}
	if _, _, err := c.leader(term); err != nil { // the last leader's ids too
		return err
	}
	time.Sleep(r.cfg.Load)
	return nil
}

// leader is the index of the node that leads in a term after term, and
// its term, once there is one.
func (c *timeCluster) leader(term int64) (int, int64, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		name, token, err := cluster.Leader(ctx, c.cli, c.prefix)
		cancel()
		var i int
		if err == nil && name != "" && token > term {
			if _, err := fmt.Sscanf(name, "node%d", &i); err != nil || i >= len(c.nodes) {
				return 0, 0, fmt.Errorf("leader %q is no node", name)
			}
			return i, token, nil
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("no leader after term %d for 30 s: %q %d %v", term, name, token, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
