// Command seqtorture is the long-run form of the torture test: it runs
// the seqd binary through thousands of fault cycles under concurrent
// clients and checks the whole history (see package torture). With
// -hostile it runs the hostile soak instead: seqd on all its listeners
// under attack, its ordinary clients checked against a quiet run. It
// exits with status 1 if it found a violation.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/seqd/seqd/internal/localetcd"
	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/torture"
)

func main() {
	bin := flag.String("seqd", "", "the seqd binary, built with -tags faultinject (default: build cmd/seqd so)")
	cycles := flag.Int("cycles", 2000, "server runs, each ended by a fault")
	segment := flag.Int("segment", 100, "cycles per run: each run starts on a new data directory and its history is checked and dropped before the next, which bounds memory")
	clients := flag.Int("clients", 16, "concurrent workload connections")
	load := flag.Duration("load", time.Second, "most load before each fault")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed (printed, to repeat a run)")
	dir := flag.String("dir", "", "scratch directory kept for inspection (default: a temporary one, removed after a clean run)")
	faults := flag.String("faults", "", "comma-separated fault kinds (default: all): "+kinds())
	secure := flag.Bool("secure", true, "run seqd with SCRAM-SHA-256 authentication and TLS, every client connecting through both")
	connectTimeout := flag.Duration("connect-timeout", 2*time.Second, "with -cluster: the clients' connect_timeout per host (whole seconds)")
	clustered := flag.Int("cluster", 0, "instead: the clustered run, with this many faults (leader kill -9, SIGSTOP past the lease, clean shutdown, cut off from etcd by a proxy, its links to etcd slow and lossy; etcd members killed, paused, isolated and replaced, partial partitions of etcd's peers, etcd's quota exceeded, in shuffled rounds: docs/cluster.md) of three seqd nodes on etcd members run in this process (8 clients unless -clients)")
	clusterRun := flag.Int("cluster-run", 48, "with -cluster: faults per run; a longer soak is several runs one after another, each on a new etcd cluster and new nodes, its history checked in full (porcupine included) and dropped before the next (0: one run)")
	etcdMembers := flag.Int("etcd-members", 3, "with -cluster: etcd members (5 adds the minority partition, the majorities ring and random halves)")
	clusterKinds := flag.String("cluster-kinds", "", "with -cluster: draw only the fault kinds whose names this regular expression matches (default every kind), e.g. 'slow links between the etcd leader member' for that kind alone")
	timeIDs := flag.Int("time-ids", 0, "instead: the clock torture with this many cycles, in runs of -segment: SNOWFLAKE sequences, seqd_tso and seqd_uuidv7 under clock steps back and forward, slews and steps at restarts, each cycle ended by kill -9, a power loss or a clean restart (docs/time-ids.md)")
	hostile := flag.Duration("hostile", 0, "instead: the hostile soak for this long (e.g. 10m): seqd on its five listeners under floods, slowloris, oversized and malformed messages, slow readers, disconnects, bad logins and privilege probes, after a quiet run of its ordinary clients alone (docs/reliability.md)")
	var hc torture.HostileConfig
	flag.DurationVar(&hc.Quiet, "hostile-quiet", time.Minute, "with -hostile: the quiet run's length")
	flag.IntVar(&hc.Clients, "hostile-clients", 2, "with -hostile: ordinary clients per protocol")
	flag.IntVar(&hc.MaxConnections, "hostile-max-connections", 200, "with -hostile: seqd's -max-connections")
	flag.IntVar(&hc.NoFile, "hostile-nofile", 1024, "with -hostile: seqd's descriptor limit, ulimit -n (negative: this process's)")
	flag.IntVar(&hc.Flood, "hostile-flood", 250, "with -hostile: connections per flood, per listener")
	rssMiB := flag.Int64("hostile-max-rss", 512, "with -hostile: the bound on seqd's resident memory, MiB")
	flag.Float64Var(&hc.P99Factor, "hostile-p99-factor", 10, "with -hostile: the bound on each protocol's p99 under attack, as a multiple of its quiet p99")
	flag.Float64Var(&hc.MaxErrorRate, "hostile-error-rate", 0.001, "with -hostile: the bound on each protocol's share of failed draws and connects")
	flag.Parse()

	work := *dir
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "seqtorture"); err != nil {
			log.Fatal(err)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		log.Fatal(err)
	}
	if *bin == "" {
		*bin = filepath.Join(work, "seqd")
		out, err := exec.Command("go", "build", "-tags", "faultinject", "-o", *bin, "github.com/seqd/seqd/cmd/seqd").CombinedOutput()
		if err != nil {
			log.Fatalf("build seqd: %v\n%s", err, out)
		}
	}
	if *hostile > 0 {
		hc.Binary, hc.Dir, hc.Duration, hc.Seed, hc.MaxRSS = *bin, work, *hostile, *seed, *rssMiB<<20
		hc.Progress = func(s string) { log.Print(s) }
		os.Exit(runHostile(hc, *dir == ""))
	}
	if *timeIDs > 0 {
		os.Exit(runTimeIDs(torture.TimeConfig{Binary: *bin, Dir: work, Clients: *clients, Load: *load, Progress: func(s string) { log.Print(s) }},
			*timeIDs, *segment, *seed, *dir == ""))
	}
	if *clustered > 0 {
		// Eight clients unless asked: porcupine's search over a sequence
		// without cache (every nextval an etcd transaction, all clients'
		// requests overlapping) grows too fast with more.
		n := 8
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "clients" {
				n = *clients
			}
		})
		cc := torture.ClusteredConfig{Binary: *bin, Failovers: *clustered, Clients: n, Load: *load, ConnectTimeout: *connectTimeout, Seed: *seed,
			Progress: func(s string) { log.Print(s) }}
		if *clusterKinds != "" {
			kinds, err := torture.KindsMatching(*clusterKinds, *etcdMembers)
			if err != nil {
				log.Fatal(err)
			}
			cc.Kinds = kinds
		}
		os.Exit(runCluster(cc, work, *etcdMembers, *clusterRun, *dir == ""))
	}
	cfg := torture.Config{Binary: *bin, Dir: work, Clients: *clients, Load: *load, Secure: *secure, Progress: func(s string) { log.Print(s) }}
	if *faults != "" {
		for _, f := range strings.Split(*faults, ",") {
			cfg.Faults = append(cfg.Faults, torture.Fault(strings.TrimSpace(f)))
		}
	}
	log.Printf("seed %d, scratch in %s", *seed, work)
	total := torture.NewReport()
	for done := 0; done < *cycles; done += cfg.Cycles {
		cfg.Cycles = min(*segment, *cycles-done)
		cfg.Seed = *seed + uint64(done)
		rep, err := torture.Run(cfg)
		if err != nil {
			log.Fatalf("%v (scratch kept in %s)", err, work)
		}
		log.Printf("cycles %d-%d: %d operations, %d violations", done, done+cfg.Cycles-1, rep.Ops, len(rep.Violations))
		total.Add(rep)
		if len(rep.Violations) > 0 {
			break // keep this run's history and data for inspection
		}
	}
	fmt.Print(total)
	if len(total.Violations) > 0 {
		log.Printf("scratch kept in %s", work)
		os.Exit(1)
	}
	if *dir == "" {
		os.RemoveAll(work)
	}
}

func kinds() string {
	var out []string
	for _, f := range torture.AllFaults {
		out = append(out, string(f))
	}
	return strings.Join(out, ", ")
}

// runCluster is -cluster: cfg.Failovers faults in runs of at most
// perRun, one after another, each with etcd members in this process and
// the nodes as processes, checked on its own. It stops at the first run
// that found a violation, keeping its scratch. It returns the exit status.
//
// A run's history is checked whole, porcupine included, and its search
// grows with the history: a 160-fault run's 4.5 million operations (a
// million of them the ORDER sequences', which porcupine checks) ran out
// of its budget. Runs of 48 faults (about 5 minutes, 300,000 such
// operations) stay well within it. What runs apart cannot show is what
// only builds up over hundreds of faults in one cluster; every property
// the checks hold (unique, ordered, linearizable, bounded skips) is of
// one cluster's history, and each run's is checked in full.
func runCluster(cfg torture.ClusteredConfig, work string, members, perRun int, remove bool) int {
	if perRun <= 0 {
		perRun = cfg.Failovers
	}
	log.Printf("seed %d, scratch in %s", cfg.Seed, work)
	total := &torture.ClusteredReport{}
	for done, k := 0, 0; done < cfg.Failovers; done, k = done+perRun, k+1 {
		run := cfg
		run.Failovers = min(perRun, cfg.Failovers-done)
		run.Seed = cfg.Seed + uint64(done)
		run.Dir = filepath.Join(work, fmt.Sprintf("run%d", k))
		rep, err := runClusterOnce(run, members)
		if err != nil {
			log.Printf("faults %d-%d: %v (scratch kept in %s)", done, done+run.Failovers-1, err, work)
			return 1
		}
		if cfg.Failovers > perRun {
			fmt.Printf("faults %d-%d (seed %d):\n%s", done, done+run.Failovers-1, run.Seed, rep)
		}
		total.Add(rep)
		if len(rep.Violations) > 0 {
			break // keep this run's history and data for inspection
		}
		if remove {
			os.RemoveAll(run.Dir)
		}
	}
	if cfg.Failovers > perRun {
		fmt.Print("all runs:\n")
	}
	fmt.Print(total)
	if len(total.Violations) > 0 {
		log.Printf("scratch kept in %s", work)
		return 1
	}
	if remove {
		os.RemoveAll(work)
	}
	return 0
}

// runClusterOnce is one run of the clustered torture on an etcd cluster
// of its own, of members members, under cfg.Dir.
func runClusterOnce(cfg torture.ClusteredConfig, members int) (*torture.ClusteredReport, error) {
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	etcd, err := localetcd.StartWith(filepath.Join(cfg.Dir, "etcd"), members, localetcd.Options{PeerProxies: true})
	if err != nil {
		return nil, err
	}
	// Closed before its data may go: a member closing on a removed
	// directory may exit the process.
	defer etcd.Close()
	cfg.Etcd, cfg.Members, cfg.Nemeses = etcd.Endpoints, etcd, etcd
	cfg.EtcdSecurity = server.EtcdSecurity{CA: etcd.TLS.CA, Cert: etcd.TLS.ClientCert, Key: etcd.TLS.ClientKey}
	return torture.RunClustered(cfg)
}

// runHostile is -hostile. It returns the exit status.
func runHostile(cfg torture.HostileConfig, remove bool) int {
	log.Printf("seed %d, scratch in %s", cfg.Seed, cfg.Dir)
	rep, err := torture.RunHostile(cfg)
	if err != nil {
		log.Printf("%v (scratch kept in %s)", err, cfg.Dir)
		return 1
	}
	fmt.Print(rep)
	if len(rep.Failures) > 0 {
		log.Printf("scratch kept in %s", cfg.Dir)
		return 1
	}
	if remove {
		os.RemoveAll(cfg.Dir)
	}
	return 0
}

// runTimeIDs is -time-ids: cycles of the clock torture in runs of at most
// segment, each on a new data directory, checked and dropped before the
// next. It stops at the first run that found a violation, keeping its
// scratch, and returns the exit status.
func runTimeIDs(cfg torture.TimeConfig, cycles, segment int, seed uint64, clean bool) int {
	log.Printf("seed %d, scratch in %s", seed, cfg.Dir)
	ops, ids, refused := 0, 0, 0
	for done := 0; done < cycles; done += cfg.Cycles {
		cfg.Cycles = min(segment, cycles-done)
		cfg.Seed = seed + uint64(done)
		rep, err := torture.RunTimeIDs(cfg)
		if err != nil {
			log.Printf("%v (scratch kept in %s)", err, cfg.Dir)
			return 1
		}
		ops, ids, refused = ops+rep.Ops, ids+rep.IDs, refused+rep.Refused
		log.Printf("cycles %d-%d: %s", done, done+cfg.Cycles-1, rep)
		if len(rep.Violations) > 0 {
			log.Printf("scratch kept in %s", cfg.Dir)
			return 1
		}
	}
	fmt.Printf("%d clock torture cycles: %d operations, %d ids, %d refused (clock behind), no violation\n", cycles, ops, ids, refused)
	if clean {
		os.RemoveAll(cfg.Dir)
	}
	return 0
}
