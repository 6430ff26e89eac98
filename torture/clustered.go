package torture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/server"
)

// Failover faults of the clustered run, each applied to the leader.
const (
	LeaderKill = "leader kill -9"
	LeaderStop = "leader SIGSTOP past its lease, then SIGCONT"
	LeaderTerm = "leader clean shutdown"
	EtcdKill   = "etcd leader member killed, then restarted"
	LeaderCut  = "leader cut off from etcd, its clients still reaching it"
)

// EtcdMembers is the etcd cluster under a clustered run, when the run may
// kill and restart its members (localetcd.Cluster).
type EtcdMembers interface {
	Leader() int
	Stop(i int)
	Restart(i int) error
}

// ClusteredConfig configures RunClustered.
type ClusteredConfig struct {
	Binary string   // seqd
	Etcd   []string // the etcd cluster's client endpoints
	// EtcdSecurity is how the nodes and the harness reach a secured etcd
	// (the test members require TLS client certificates).
	EtcdSecurity server.EtcdSecurity
	// Members, when set, adds the fault EtcdKill: the etcd leader member
	// is stopped and, once a value was served again, restarted.
	Members EtcdMembers
	// Nemeses, when set (a cluster started with PeerProxies), adds the
	// etcd nemeses (clustered_nemesis.go): members killed, paused,
	// isolated and replaced, etcd's quota exceeded.
	Nemeses *localetcd.Cluster
	// Kinds, when set, are the only fault kinds drawn (of those the
	// configuration allows); default every one.
	Kinds     []string
	Dir       string // scratch: the nodes' logs
	Nodes     int    // default 3
	Failovers int    // faults, drawn in shuffled rounds of the three kinds
	Clients   int    // default 6
	// MySQLClients take values of the ORDER sequences over MySQL's
	// protocol, trying the nodes in order (default 2; negative: none).
	MySQLClients int
	// HTTPClients take values of the ORDER sequences over the HTTP API,
	// GRPCClients ranges of them over gRPC streams, each moving to the
	// next node when one refuses or fails (default 1 each; negative:
	// none).
	HTTPClients int
	GRPCClients int
	// NoOrderClients take values of a NOORDER sequence from each node,
	// connected to it alone (default 1 per node; negative: none).
	NoOrderClients int
	Load           time.Duration
	// Ballast is how many sequences besides the run's own the store
	// holds (made first, a thousand to a transaction block): followers
	// read, watch and take over a store of that size (default 10,000;
	// negative: none).
	Ballast  int
	LeaseTTL time.Duration // default 2 s
	// ConnectTimeout is the clients' connect_timeout, per host (whole
	// seconds, default 2): how long a client waits on a node that accepts
	// a connection and never answers (a stopped one) before the next.
	ConnectTimeout time.Duration
	Seed           uint64
	Progress       func(string)
}

// EtcdFlags are the seqd flags for sec (the password goes by
// environment, as seqd takes it).
func EtcdFlags(sec server.EtcdSecurity) []string {
	var out []string
	for _, f := range []struct{ name, v string }{{"-etcd-ca", sec.CA}, {"-etcd-cert", sec.Cert}, {"-etcd-key", sec.Key}, {"-etcd-user", sec.User}} {
		if f.v != "" {
			out = append(out, f.name, f.v)
		}
	}
	return out
}

// ClusteredReport is what RunClustered found.
type ClusteredReport struct {
	Sequences int // in the store: the ballast and the run's own
	Failovers map[string]int
	Ops       int
	Outcomes  map[string]int
	Values    int
	Porcupine int
	// PorcupineTime is how long porcupine took to decide (or to give up,
	// which is a violation).
	PorcupineTime time.Duration
	// Unavailable is, per failover, the time from the fault to the first
	// nextval a multi-host client got from the next leader.
	Unavailable []time.Duration
	// ByKind is, per fault kind, each fault's Unavailable; OrderGap the
	// longest any ORDER sequence went without a value while it held
	// (clustered_kinds.go); OverBound the faults of one etcd member or a
	// minority whose OrderGap passed the lease and 2 s.
	ByKind, OrderGap map[string][]time.Duration
	OverBound        []string
	// MaxGap is, per sequence, the most values skipped at one point of
	// its history (burned by a failover).
	MaxGap map[string]int64
	// NoOrderValues is how many values of the NOORDER sequence the nodes
	// handed out; NoOrderWait is, per failover, the longest a node that
	// the fault was not applied to went without handing one out.
	NoOrderValues int
	NoOrderWait   []time.Duration
	// NoOrderWaitMax is the longest of NoOrderWait by fault.
	NoOrderWaitMax map[string]time.Duration
	// NoOrderBurned counts the NOORDER values below the largest handed
	// out that no node handed out.
	NoOrderBurned int64
	// MySQLValues is how many values the MySQL clients got;
	// MySQLUnavailable is, per failover, the time from the fault to the
	// first value a MySQL client asked for after it got (sorted).
	MySQLValues      int
	MySQLUnavailable []time.Duration
	// HTTPValues and GRPCValues, HTTPUnavailable and GRPCUnavailable:
	// the same for the HTTP and gRPC clients.
	HTTPValues, GRPCValues           int
	HTTPUnavailable, GRPCUnavailable []time.Duration
	// Leaderless are the waits of over a second, before a failover, for
	// the cluster to have a leader to fail over (after the last one).
	Leaderless []time.Duration
	// LostWrites counts what the etcd members that lost their last
	// writes did when started again: "exited" (raft refused the log) or
	// "ran on".
	LostWrites map[string]int
	// Takeovers counts the terms the nodes began, by how (their log
	// lines): "snapshot" from the node's own snapshot, "store" by
	// reading the store.
	Takeovers map[string]int
	// DDL counts the DDL client's statements answered.
	DDL        int
	Violations []string
}

func (r *ClusteredReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d failovers (%s) of a store of %d sequences; %d operations (%s), %d values; porcupine checked %d in %v\n",
		len(r.Unavailable), mapString(r.Failovers), r.Sequences, r.Ops, mapString(r.Outcomes), r.Values, r.Porcupine, r.PorcupineTime.Round(time.Millisecond))
	if len(r.Unavailable) > 0 {
		u := append([]time.Duration(nil), r.Unavailable...)
		sort.Slice(u, func(i, j int) bool { return u[i] < u[j] })
		fmt.Fprintf(&b, "unavailable after a failover: p50 %v, p99 %v, max %v\n", u[len(u)/2].Round(time.Millisecond),
			u[len(u)*99/100].Round(time.Millisecond), u[len(u)-1].Round(time.Millisecond))
	}
	for _, c := range []struct {
		name   string
		values int
		u      []time.Duration
	}{{"MySQL", r.MySQLValues, r.MySQLUnavailable}, {"HTTP", r.HTTPValues, r.HTTPUnavailable}, {"gRPC stream", r.GRPCValues, r.GRPCUnavailable}} {
		if u := c.u; len(u) > 0 {
			fmt.Fprintf(&b, "%s clients: %d values; unavailable after a failover: p50 %v, p99 %v, max %v\n", c.name, c.values,
				u[len(u)/2].Round(time.Millisecond), u[len(u)*99/100].Round(time.Millisecond), u[len(u)-1].Round(time.Millisecond))
		}
	}
	if len(r.NoOrderWait) > 0 {
		w := append([]time.Duration(nil), r.NoOrderWait...)
		sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
		fmt.Fprintf(&b, "NOORDER: %d values from every node; longest wait of a node not under the fault, per failover: p50 %v, p99 %v, max %v\n",
			r.NoOrderValues, w[len(w)/2].Round(time.Millisecond), w[len(w)*99/100].Round(time.Millisecond), w[len(w)-1].Round(time.Millisecond))
		var by []string
		for _, f := range sortedKeys(r.NoOrderWaitMax) {
			by = append(by, fmt.Sprintf("%s %v", f, r.NoOrderWaitMax[f].Round(time.Millisecond)))
		}
		fmt.Fprintf(&b, "  longest by fault: %s\n", strings.Join(by, ", "))
		fmt.Fprintf(&b, "  burned (never handed out, below the largest value): %d, blocks of %d\n", r.NoOrderBurned, noorderCache)
	}
	if len(r.Leaderless) > 0 {
		fmt.Fprintf(&b, "no leader for over a second after a failover's first value, %d times: %v\n", len(r.Leaderless), r.Leaderless)
	}
	if len(r.LostWrites) > 0 {
		fmt.Fprintf(&b, "etcd members started with their last writes lost: %s\n", mapString(r.LostWrites))
	}
	r.byKindString(&b)
	fmt.Fprintf(&b, "terms begun: %s; DDL statements answered: %d\n", mapString(r.Takeovers), r.DDL)
	fmt.Fprintf(&b, "largest skip by sequence: %s\nviolations: %d\n", mapString(r.MaxGap), len(r.Violations))
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}

// checkWindow bounds the stretch of history porcupine checks at once.
const checkWindow = time.Second

// clusterSeqs are the clustered run's sequences: ORDER (the default),
// linearizable across the cluster, one without cache and one with.
var clusterSeqs = []struct {
	Seq
	cache int64
}{{Seq{"c_nocache", 1}, 1}, {Seq{"c_cache100", 1}, 100}}

// noorderSeq is the clustered run's NOORDER sequence: every node serves
// it from blocks of noorderCache values it reserves for itself.
var noorderSeq = Seq{"c_noorder", 1}

const noorderCache = 50

// faultWindow is when a failover's fault held: on node (-1: on etcd, every
// node's reservations), from its start until the node was back.
type faultWindow struct {
	fault    string
	node     int
	from, to int64 // History.Now()
}

type clusterRun struct {
	cfg    ClusteredConfig
	h      *History
	cli    *clientv3.Client
	prefix string
	nodes  []*proc
	addrs  []string
	// myAddrs are the nodes' MySQL protocol addresses, myDBs a pool for
	// each; mysqlClients the client IDs of the MySQL clients.
	myAddrs      []string
	myDBs        []*sql.DB
	mysqlClients map[int]bool
	// apiAddrs and grpcAddrs are the nodes' HTTP API and gRPC addresses;
	// httpClients and grpcClients the client IDs of their clients.
	apiAddrs, grpcAddrs      []string
	httpClients, grpcClients map[int]bool
	// proxies stand between each node and each etcd member (LeaderCut).
	proxies [][]*proxy
	dsn     string
	log     io.Writer

	// epoch counts the failovers begun, and checkWindow's ticks: an
	// operation belongs to the one it was called in. Porcupine checks
	// each sequence epoch by epoch (its search grows faster than the
	// length of a partition: a sequence without cache, each nextval an
	// etcd transaction, took 15 s for 1,300 operations of 16 clients);
	// the scan checks the order across all of them.
	epoch atomic.Int64

	mu         sync.Mutex
	churn      churn // the DDL client's
	violations []string
	windows    []faultWindow
	leaderless []time.Duration // waits over a second for a leader to fail over
	lostWrites map[string]int  // ClusteredReport.LostWrites
}

// RunClustered runs seqd nodes on etcd with clients on a multi-host
// connection string, fails the leader over and over, and checks every
// value: unique, and linearizable across failovers for each sequence.
func RunClustered(cfg ClusteredConfig) (*ClusteredReport, error) {
	cfg = cfg.withDefaults()
	progress := cfg.Progress
	if progress == nil {
		progress = func(string) {}
	}
	logf, err := os.Create(filepath.Join(cfg.Dir, "seqd.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cli, err := server.EtcdClient(cfg.Etcd, cfg.EtcdSecurity)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	r := &clusterRun{cfg: cfg, h: NewHistory(), cli: cli, prefix: fmt.Sprintf("/torture%d/", cfg.Seed%1_000_000), log: logf, mysqlClients: map[int]bool{},
		httpClients: map[int]bool{}, grpcClients: map[int]bool{}, churn: churn{known: map[string]bool{}, unknown: map[string]bool{}}}
	defer r.closeProxies()
	defer r.closeMySQL()
	if err := r.startNodes(); err != nil {
		return nil, err
	}
	defer r.stopAll()
	if err := r.setup(); err != nil {
		return nil, err
	}
	if err := r.openMySQL(); err != nil {
		return nil, err
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(checkWindow)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				r.epoch.Add(1)
			}
		}
	}()
	rng := rand.New(rand.NewPCG(cfg.Seed, 13))
	for i := range cfg.Clients {
		wg.Add(1)
		seed := rng.Uint64()
		go func() { defer wg.Done(); r.client(i, seed, stop) }()
	}
	for node := range cfg.Nodes {
		for k := range max(cfg.NoOrderClients, 0) {
			wg.Add(1)
			id := cfg.Clients + node*cfg.NoOrderClients + k
			go func() { defer wg.Done(); r.noorderClient(node, id, stop) }()
		}
	}
	for k := range max(cfg.MySQLClients, 0) {
		wg.Add(1)
		id := cfg.Clients + cfg.Nodes*max(cfg.NoOrderClients, 0) + k
		seed := rng.Uint64()
		go func() { defer wg.Done(); r.mysqlClient(id, seed, stop) }()
	}
	next := cfg.Clients + cfg.Nodes*max(cfg.NoOrderClients, 0) + max(cfg.MySQLClients, 0)
	for k := range max(cfg.HTTPClients, 0) {
		wg.Add(1)
		id, seed := next+k, rng.Uint64()
		r.httpClients[id] = true
		go func() { defer wg.Done(); r.httpClient(id, seed, stop) }()
	}
	next += max(cfg.HTTPClients, 0)
	for k := range max(cfg.GRPCClients, 0) {
		wg.Add(1)
		id, seed := next+k, rng.Uint64()
		r.grpcClients[id] = true
		go func() { defer wg.Done(); r.grpcClient(id, seed, stop) }()
	}
	wg.Add(1)
	ddlSeed := rng.Uint64()
	go func() { defer wg.Done(); r.ddlClient(ddlSeed, stop) }()
	rep := &ClusteredReport{Failovers: map[string]int{}, Outcomes: map[string]int{}, ByKind: map[string][]time.Duration{}, Sequences: max(cfg.Ballast, 0) + len(clusterSeqs) + 1}
	if err := r.failovers(rng, rep, progress); err != nil {
		close(stop)
		wg.Wait()
		return nil, err
	}
	time.Sleep(cfg.Load)
	close(stop)
	wg.Wait()
	r.check(rep)
	r.checkDDL(rep)
	rep.Takeovers = takeovers(filepath.Join(cfg.Dir, "seqd.log"))
	return rep, nil
}

// takeovers counts the nodes' log lines of terms begun, by how.
func takeovers(log string) map[string]int {
	out := map[string]int{}
	b, err := os.ReadFile(log)
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.Contains(l, "took over from its snapshot"):
			out["snapshot"]++
		case strings.Contains(l, "took over reading the store"):
			out["store"]++
		}
	}
	return out
}

// withDefaults fills in what cfg leaves zero.
func (cfg ClusteredConfig) withDefaults() ClusteredConfig {
	if cfg.Nodes <= 0 {
		cfg.Nodes = 3
	}
	if cfg.Clients <= 0 {
		cfg.Clients = 6
	}
	if cfg.ConnectTimeout < time.Second {
		cfg.ConnectTimeout = 2 * time.Second
	}
	if cfg.MySQLClients == 0 {
		cfg.MySQLClients = 2
	}
	if cfg.NoOrderClients == 0 {
		cfg.NoOrderClients = 1
	}
	if cfg.HTTPClients == 0 {
		cfg.HTTPClients = 1
	}
	if cfg.GRPCClients == 0 {
		cfg.GRPCClients = 1
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 2 * time.Second
	}
	if cfg.Ballast == 0 {
		cfg.Ballast = 10_000
	}
	if cfg.Load <= 0 {
		cfg.Load = time.Second
	}
	return cfg
}

// startNodes starts the nodes, each reaching etcd through proxies of its
// own, and sets the multi-host DSN that finds the leader.
func (r *clusterRun) startNodes() error {
	cfg := r.cfg
	var hosts, ports []string
	for i := range cfg.Nodes {
		var ps []*proxy
		for _, ep := range cfg.Etcd {
			scheme, hostPort, ok := strings.Cut(ep, "://")
			if !ok {
				scheme, hostPort = "http", ep
			}
			p, err := newProxy(hostPort)
			if err != nil {
				return err
			}
			p.scheme = scheme
			ps = append(ps, p)
		}
		r.proxies = append(r.proxies, ps)
		addr, err := loopback.FreeAddr()
		if err != nil {
			return err
		}
		var more [3]string // MySQL's, the HTTP API's and gRPC's
		for k := range more {
			if more[k], err = loopback.FreeAddr(); err != nil {
				return err
			}
		}
		r.addrs, r.myAddrs = append(r.addrs, addr), append(r.myAddrs, more[0])
		r.apiAddrs, r.grpcAddrs = append(r.apiAddrs, more[1]), append(r.grpcAddrs, more[2])
		h, p, _ := strings.Cut(addr, ":")
		hosts, ports = append(hosts, h), append(ports, p)
		p0, err := r.start(i)
		if err != nil {
			r.stopAll()
			return err
		}
		r.nodes = append(r.nodes, p0)
	}
	r.dsn = fmt.Sprintf("host=%s port=%s user=torture dbname=torture target_session_attrs=read-write connect_timeout=%d",
		strings.Join(hosts, ","), strings.Join(ports, ","), int(cfg.ConnectTimeout.Seconds()))
	return nil
}

// failovers runs cfg.Failovers faults, the kinds in shuffled rounds,
// cfg.Load apart.
func (r *clusterRun) failovers(rng *rand.Rand, rep *ClusteredReport, progress func(string)) error {
	cfg := r.cfg
	var round []string
	for n := range cfg.Failovers {
		if len(round) == 0 {
			round = r.faultKinds()
			rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		fault := round[0]
		round = round[1:]
		time.Sleep(cfg.Load)
		d, err := r.failover(fault)
		if err != nil {
			return fmt.Errorf("failover %d (%s): %w", n, fault, err)
		}
		rep.Failovers[fault]++
		rep.Unavailable = append(rep.Unavailable, d)
		rep.ByKind[fault] = append(rep.ByKind[fault], d)
		progress(fmt.Sprintf("failover %d: %s, next leader serving after %v", n, fault, d.Round(time.Millisecond)))
		r.awaitOrderFlowing()
	}
	return nil
}

// awaitOrderFlowing waits, after a fault was undone, until the workload's
// clients have values of every ORDER sequence again (for at most 30 s),
// so that the next fault begins once this one's aftermath has ended: a
// stretch without values is then the fault's whose window it overlaps
// (orderGaps), not the sum of two faults'. A stretch that outlasts the
// wait is still measured whole.
func (r *clusterRun) awaitOrderFlowing() {
	t := r.h.Now()
	deadline := time.Now().Add(30 * time.Second)
	for _, s := range clusterSeqs {
		for !r.h.answeredSince(s.Name, t) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// start runs node i, which reaches etcd through its proxies.
func (r *clusterRun) start(i int) (*proc, error) {
	var eps []string
	for _, p := range r.proxies[i] {
		eps = append(eps, p.scheme+"://"+p.addr())
	}
	args := []string{"-etcd", strings.Join(eps, ","), "-etcd-prefix", r.prefix, "-name", fmt.Sprintf("node%d", i),
		"-lease-ttl", r.cfg.LeaseTTL.String(), "-idle-timeout", "0", "-mysql-listen", r.myAddrs[i],
		"-api-listen", r.apiAddrs[i], "-grpc-listen", r.grpcAddrs[i]}
	args = append(args, EtcdFlags(r.cfg.EtcdSecurity)...)
	return startProc(r.cfg.Binary, filepath.Join(r.cfg.Dir, fmt.Sprintf("node%d", i)), r.addrs[i], false, 0, nil, r.log, args...)
}

func (r *clusterRun) closeProxies() {
	for _, ps := range r.proxies {
		for _, p := range ps {
			p.close()
		}
	}
}

func (r *clusterRun) stopAll() {
	for _, p := range r.nodes {
		if p != nil && p.running() {
			p.kill()
		}
	}
}

// setup creates the sequences on the first leader.
func (r *clusterRun) setup() error {
	c, err := r.connect(30 * time.Second)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	for i := 0; i < r.cfg.Ballast; i += 1000 {
		var b strings.Builder
		b.WriteString("begin;")
		for j := i; j < min(i+1000, r.cfg.Ballast); j++ {
			fmt.Fprintf(&b, "create sequence ballast_%d;", j)
		}
		b.WriteString("commit")
		if _, err := c.Exec(context.Background(), b.String()); err != nil {
			return fmt.Errorf("the ballast's sequences %d..: %w", i, err)
		}
	}
	for _, s := range clusterSeqs {
		if _, err := c.Exec(context.Background(), fmt.Sprintf("create sequence %s cache %d", s.Name, s.cache)); err != nil {
			return err
		}
	}
	if _, err := c.Exec(context.Background(), fmt.Sprintf("create sequence %s cache %d noorder", noorderSeq.Name, noorderCache)); err != nil {
		return err
	}
	// Every node's snapshot lists it within a refresh (2 s).
	deadline := time.Now().Add(30 * time.Second)
	for i := range r.addrs {
		for {
			n, err := r.nodeLists(i)
			if err == nil && n == 1 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("node %d does not list %s: %d, %v", i, noorderSeq.Name, n, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// nodeDSN reaches node i alone, whatever it is.
func (r *clusterRun) nodeDSN(i int) string {
	h, p, _ := strings.Cut(r.addrs[i], ":")
	return fmt.Sprintf("host=%s port=%s user=torture dbname=torture connect_timeout=%d", h, p, int(r.cfg.ConnectTimeout.Seconds()))
}

// nodeLists counts the NOORDER sequence in node i's catalog.
func (r *clusterRun) nodeLists(i int) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, r.nodeDSN(i))
	if err != nil {
		return 0, err
	}
	defer c.Close(context.Background())
	var n int
	err = c.QueryRow(ctx, "select count(*) from pg_sequences where sequencename = $1", noorderSeq.Name).Scan(&n)
	return n, err
}

func (r *clusterRun) violation(v string) {
	r.mu.Lock()
	r.violations = append(r.violations, v)
	r.mu.Unlock()
}

// firstValue waits until a new multi-host connection takes a value; the
// value joins the history.
func (r *clusterRun) firstValue() error {
	deadline := time.Now().Add(30 * time.Second)
	s := clusterSeqs[0]
	for time.Now().Before(deadline) {
		c, err := r.connect(time.Second)
		if err != nil {
			continue
		}
		err = r.take(c, Op{Seq: s.Name, Kind: Nextval, Want: 1, Client: -1, Epoch: int(r.epoch.Load()), Call: r.h.Now()})
		c.Close(context.Background())
		if err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errNoValue
}

// errNoValue is firstValue's when no node served a value for 30 s.
var errNoValue = errors.New("no value from any node within 30s")
