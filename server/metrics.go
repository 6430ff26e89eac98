package server

import (
	"io"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/storage/embedded"
)

// MaxSequenceSeries bounds the per-sequence series a scrape exports: a
// store with millions of sequences exports the ones nearest their limit
// (the largest share of their range used), which are the ones to watch.
const MaxSequenceSeries = 1000

// metrics are seqd's Prometheus metrics.
type metrics struct {
	reg        *prometheus.Registry
	statements *prometheus.CounterVec
	durations  *prometheus.HistogramVec
	batch      prometheus.Histogram
	commit     prometheus.Histogram
	// observers are onStatement's answers by protocol, command and
	// class, made once: a label lookup and a closure per statement cost
	// more than the statement's own count. The map is replaced, never
	// changed (observersMu serializes the replacements), so that a
	// statement reads it without writing to memory other cores read.
	observersMu sync.Mutex
	observers   atomic.Pointer[map[observerKey]func(time.Duration)]
}

// observerKey is a statement series' labels: protocol, command, class.
type observerKey [3]string

// The protocol label's values, one per front end: four at most.
const (
	protocolPostgreSQL = "postgresql"
	protocolMySQL      = "mysql"
	protocolHTTP       = "http"
	protocolGRPC       = "grpc"
)

// protocolListeners are the protocols' listeners' names
// (frontend.ListenerConfig.Name), which their connections are counted by.
var protocolListeners = [...][2]string{{protocolPostgreSQL, "pgwire"}, {protocolMySQL, "mysql"}, {protocolHTTP, "http"}, {protocolGRPC, "grpc"}}

// maxObservers bounds the observers kept (commands are tags and API
// operations, classes SQLSTATE classes: far fewer in practice).
const maxObservers = 4096

// newMetrics registers the metrics: conns is how many client
// connections are open, maxConns the budget they share.
func newMetrics(eng func() *engine.Engine, conns func() int, maxConns int, near func() int) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.statements = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "seqd_statements_total",
		Help: "Statements run (the APIs' calls), by command tag, SQLSTATE class (00: success) and protocol (postgresql, mysql, http, grpc)."}, []string{"command", "class", "protocol"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "seqd_statement_duration_seconds",
		Help: "Time to run a statement and send its rows, by command tag and protocol.", Buckets: prometheus.ExponentialBuckets(10e-6, 4, 10)}, []string{"command", "protocol"})
	m.batch = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "seqd_group_commit_records",
		Help: "Records written by one group commit.", Buckets: prometheus.ExponentialBuckets(1, 2, 11)})
	m.commit = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "seqd_group_commit_seconds",
		Help: "Time of one group commit (the store's synced write).", Buckets: prometheus.ExponentialBuckets(50e-6, 2, 14)})
	m.reg.MustRegister(m.statements, m.durations, m.batch, m.commit,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqd_connections",
			Help: "Open client connections, of every protocol (PostgreSQL's, MySQL's, the HTTP API, gRPC), each from its accept, as -max-connections counts them."},
			func() float64 { return float64(conns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqd_connections_max",
			Help: "The client connections' budget: -max-connections, or fewer where the descriptor limit holds fewer (logged at start)."},
			func() float64 { return float64(maxConns) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqd_sequences_near_exhaustion",
			Help: "Sequences projected, at their rate over the last minute, to reach their limit within the horizon (-exhaustion-horizon)."},
			func() float64 { return float64(near()) }),
		newEngineCollector(eng),
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// clusterMetrics are cluster mode's: whether this node leads, the terms
// it led, and why they ended.
type clusterMetrics struct {
	terms prometheus.Counter
	ends  *prometheus.CounterVec
	// snapshots are full reads of the store; followerChecks the
	// intervals a follower's watch showed the store unchanged (or changed
	// only in what it applied: followerApplied counts those changes), or
	// showed every change, from which it derived a snapshot (derived).
	snapshots, followerChecks, followerApplied, derived prometheus.Counter
	// promoted counts the terms begun from the node's snapshot rather
	// than a full read of the store.
	promoted prometheus.Counter
}

// registerCluster adds cluster mode's metrics; leading reports whether
// the node leads now.
func (m *metrics) registerCluster(leading func() bool, ranges *engine.Ranges) *clusterMetrics {
	c := &clusterMetrics{
		terms: prometheus.NewCounter(prometheus.CounterOpts{Name: "seqd_cluster_terms_total",
			Help: "Terms this node has led since it started (each an election it won)."}),
		ends: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "seqd_cluster_term_ends_total",
			Help: "This node's terms that ended, by reason: lease (it lapsed by the node's clock or at etcd), deposed (the leader key changed), resigned (a shutdown handed over), error."}, []string{"reason"}),
		snapshots: prometheus.NewCounter(prometheus.CounterOpts{Name: "seqd_cluster_snapshots_total",
			Help: "Full reads of the store this node made for a snapshot (following, or standing by after a term)."}),
		followerChecks: prometheus.NewCounter(prometheus.CounterOpts{Name: "seqd_cluster_follower_checks_total",
			Help: "Intervals in which this follower's watch showed the store's records unchanged, or changed only in sequences' positions it applied, or showed every change, from which it derived a snapshot (seqd_cluster_snapshots_derived_total): no full read."}),
		followerApplied: prometheus.NewCounter(prometheus.CounterOpts{Name: "seqd_cluster_follower_applied_total",
			Help: "Record changes this follower's watch applied to its snapshot in place (an ORDER sequence's position, a NOORDER range record) instead of reading the store again."}),
		derived: prometheus.NewCounter(prometheus.CounterOpts{Name: "seqd_cluster_snapshots_derived_total",
			Help: "Snapshots this follower derived from its last one and the changes its watch delivered (sequences made, dropped or altered, roles, privileges), instead of reading the whole store."}),
		promoted: prometheus.NewCounter(prometheus.CounterOpts{Name: "seqd_cluster_promotions_total",
			Help: "Terms this node began from its own snapshot, which its watch showed to be the store as of its election, instead of reading the whole store (seqd_cluster_terms_total counts them all)."}),
	}
	// Every reason's series from the start, at 0: a rate or increase
	// over them (the failover panel, SeqdLeaderFlapping) then has data
	// before the first term ends.
	for _, reason := range []string{"lease", "deposed", "resigned", "error"} {
		c.ends.WithLabelValues(reason)
	}
	m.reg.MustRegister(c.terms, c.ends, c.snapshots, c.followerChecks, c.followerApplied, c.derived, c.promoted, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqd_cluster_leader",
		Help: "1 while this node leads the cluster and serves, 0 while it stands by."}, func() float64 {
		if leading() {
			return 1
		}
		return 0
	}), prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "seqd_noorder_blocks_total",
		Help: "Blocks of NOORDER sequences' values this node reserved for itself since it started."}, func() float64 {
		return float64(ranges.Stats().Blocks)
	}), prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "seqd_noorder_store_transactions_total",
		Help: "etcd transactions (reads and compare-and-swaps) this node made reserving NOORDER blocks since it started."}, func() float64 {
		return float64(ranges.Stats().Txns)
	}))
	return c
}

// onStatement is the OnStatement of pgwire, the HTTP API and gRPC, whose
// protocol its command tells: the APIs' begin with "HTTP " and "gRPC ".
func (m *metrics) onStatement(command, sqlstate string) func(time.Duration) {
	protocol := protocolPostgreSQL
	switch {
	case strings.HasPrefix(command, "HTTP "):
		protocol = protocolHTTP
	case strings.HasPrefix(command, "gRPC "):
		protocol = protocolGRPC
	}
	return m.observer(protocol, command, sqlstate)
}

// onMySQLStatement is mysqlwire's OnStatement.
func (m *metrics) onMySQLStatement(command, sqlstate string) func(time.Duration) {
	return m.observer(protocolMySQL, command, sqlstate)
}

// observer is the function counting a statement of protocol in its
// series, looked up by label values once per (protocol, command,
// SQLSTATE class) and made once: the front ends keep it per connection
// for the next statement with the same pair.
func (m *metrics) observer(protocol, command, sqlstate string) func(time.Duration) {
	if command == "" {
		command = "failed"
	}
	key := observerKey{protocol, command, sqlstate[:2]}
	if obs := m.observers.Load(); obs != nil {
		if f, ok := (*obs)[key]; ok {
			return f
		}
	}
	count := m.statements.WithLabelValues(command, key[2], protocol)
	duration := m.durations.WithLabelValues(command, protocol)
	f := func(d time.Duration) {
		count.Inc()
		duration.Observe(d.Seconds())
	}
	m.observersMu.Lock()
	defer m.observersMu.Unlock()
	old := m.observers.Load()
	if old == nil || len(*old) < maxObservers {
		obs := map[observerKey]func(time.Duration){key: f}
		if old != nil {
			for k, v := range *old {
				obs[k] = v
			}
		}
		m.observers.Store(&obs)
	}
	return f
}

// registerConnections adds the open connections per protocol, as reg
// counts them by listener (seqd_connections is their sum).
func (m *metrics) registerConnections(reg *frontend.Registry) {
	for _, pl := range protocolListeners {
		listener := pl[1]
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqd_protocol_connections",
			Help:        "Open client connections by protocol (postgresql, mysql, http: the HTTP API, grpc), each from its accept: seqd_connections is their sum.",
			ConstLabels: prometheus.Labels{"protocol": pl[0]}},
			func() float64 { return float64(reg.AdmittedBy(listener)) }))
	}
	m.reg.MustRegister(valuesCollector{reg.Activity()})
}

var descValues = prometheus.NewDesc("seqd_values_total",
	"Values handed out from sequences since start, by protocol (postgresql, mysql, http, grpc): nextval's one, a generate_series', a reserve's or an API batch's every one.",
	[]string{"protocol"}, nil)

// valuesCollector reads the values the sessions took, by protocol, at
// scrape time: each session counts its own (executor.Activity.Values),
// so taking a value adds to no counter another core writes.
type valuesCollector struct{ activity *executor.Activity }

func (c valuesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- descValues }

func (c valuesCollector) Collect(ch chan<- prometheus.Metric) {
	values := c.activity.Values()
	for _, pl := range protocolListeners {
		ch <- prometheus.MustNewConstMetric(descValues, prometheus.CounterValue, float64(values[pl[1]]), pl[0])
	}
}

func (m *metrics) onCommit(records int, d time.Duration) {
	m.batch.Observe(float64(records))
	m.commit.Observe(d.Seconds())
}

// engineCollector reads the engine at scrape time: its counters, and the
// sequences nearest their limit with their rate since the last scrape.
type engineCollector struct {
	eng  func() *engine.Engine
	mu   sync.Mutex
	seen map[string]rateSample // by sequence, the last scrape's position
	near nearestSet            // the sequences nearest their limit, kept between scrapes
}

func newEngineCollector(eng func() *engine.Engine) *engineCollector {
	return &engineCollector{eng: eng, seen: map[string]rateSample{}, near: nearestSet{max: MaxSequenceSeries}}
}

type rateSample struct {
	used float64 // values used so far (from start, in the increment's direction)
	at   time.Time
}

var (
	descCommits    = prometheus.NewDesc("seqd_group_commits_total", "Group commits (synced writes) since start.", nil, nil)
	descRecords    = prometheus.NewDesc("seqd_group_commit_records_total", "Records written by group commits since start.", nil, nil)
	descExtensions = prometheus.NewDesc("seqd_mark_extensions_total", "Durable-mark extensions (prefetches) since start.", nil, nil)
	descLingers    = prometheus.NewDesc("seqd_group_commit_lingers_total", "Group commits held for callers of a sequence that waits for every value, on their way back from the last commit, so that one commit serves them all (at most the last commit's length, 1 ms).", []string{"outcome"}, nil)
	descLingered   = prometheus.NewDesc("seqd_group_commit_linger_seconds_total", "Time group commits were held for callers on their way back, in all.", nil, nil)
	descFailures   = prometheus.NewDesc("seqd_store_write_failures_total", "Group commits that failed since start.", nil, nil)
	descSequences  = prometheus.NewDesc("seqd_sequences", "Sequences in the store.", nil, nil)
	descLast       = prometheus.NewDesc("seqd_sequence_last_value", "A sequence's last value handed out (or its start).", []string{"schema", "sequence"}, nil)
	descWindow     = prometheus.NewDesc("seqd_sequence_reserved_values", "Values durably reserved beyond the last one handed out (what a crash would skip).", []string{"schema", "sequence"}, nil)
	descLeft       = prometheus.NewDesc("seqd_sequence_remaining_values", "Values left before the sequence reaches its limit (CYCLE: before it wraps).", []string{"schema", "sequence"}, nil)
	descExhaust    = prometheus.NewDesc("seqd_sequence_exhaustion_seconds", "At the rate since the last scrape, seconds until the sequence reaches its limit.", []string{"schema", "sequence"}, nil)
	descBurned     = prometheus.NewDesc("seqd_burned_values_total", "Values skipped since start, every sequence's, by reason (crash and failover: at most, counted at start; release: ranges given back too late).", []string{"reason"}, nil)
	descSeqBurned  = prometheus.NewDesc("seqd_sequence_burned_values_total", "Values a sequence skipped since start, by reason (as seqd_burned_values_total; reasons with none are not exported).", []string{"schema", "sequence", "reason"}, nil)
)

// burnedReasons are the reason labels of the burned counters.
func burnedReasons(b engine.Burned) map[string]int64 {
	return map[string]int64{"crash": b.Crash, "failover": b.Failover, "release": b.Release}
}

func (c *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCommits, descRecords, descLingers, descLingered, descExtensions, descFailures, descSequences, descLast, descWindow, descLeft, descExhaust, descBurned, descSeqBurned} {
		ch <- d
	}
}

func (c *engineCollector) Collect(ch chan<- prometheus.Metric) {
	eng := c.eng()
	st := eng.Stats()
	ch <- prometheus.MustNewConstMetric(descCommits, prometheus.CounterValue, float64(st.Commits))
	ch <- prometheus.MustNewConstMetric(descRecords, prometheus.CounterValue, float64(st.Records))
	ch <- prometheus.MustNewConstMetric(descLingers, prometheus.CounterValue, float64(st.Lingers-st.LingersExpired), "returned")
	ch <- prometheus.MustNewConstMetric(descLingers, prometheus.CounterValue, float64(st.LingersExpired), "expired")
	ch <- prometheus.MustNewConstMetric(descLingered, prometheus.CounterValue, st.Lingered.Seconds())
	ch <- prometheus.MustNewConstMetric(descExtensions, prometheus.CounterValue, float64(st.Extensions))
	ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(st.Failures))
	for reason, n := range burnedReasons(st.Burned) {
		ch <- prometheus.MustNewConstMetric(descBurned, prometheus.CounterValue, float64(n), reason)
	}
	ch <- prometheus.MustNewConstMetric(descSequences, prometheus.GaugeValue, float64(eng.Count()))
	c.mu.Lock()
	defer c.mu.Unlock()
	// The MaxSequenceSeries nearest their limit, kept between scrapes:
	// the scrape looks at the sequences written since the last one (a
	// pass over a million cost 75 ms of CPU), then describes the
	// selection.
	rows := slices.Clone(c.near.update(eng)) // sorted below: not the heap itself
	sort.Slice(rows, func(i, j int) bool { return rows[i].share > rows[j].share })
	now := time.Now()
	seen := make(map[string]rateSample, len(rows))
	for _, r := range rows {
		info, err := eng.Info(r.use.Name())
		if err != nil || info.ID != r.use.ID {
			continue // dropped or replaced since
		}
		used, total := info.RangeUse()
		schema, name := info.Name.Schema(), info.Name.Rel()
		ch <- prometheus.MustNewConstMetric(descLast, prometheus.GaugeValue, float64(info.State.Last), schema, name)
		ch <- prometheus.MustNewConstMetric(descWindow, prometheus.GaugeValue, float64(info.Window), schema, name)
		left := total - used
		ch <- prometheus.MustNewConstMetric(descLeft, prometheus.GaugeValue, left, schema, name)
		for reason, n := range burnedReasons(info.Burned) {
			if n > 0 {
				ch <- prometheus.MustNewConstMetric(descSeqBurned, prometheus.CounterValue, float64(n), schema, name, reason)
			}
		}
		key := info.Name.String()
		if prev, ok := c.seen[key]; ok && used > prev.used {
			rate := (used - prev.used) / now.Sub(prev.at).Seconds()
			ch <- prometheus.MustNewConstMetric(descExhaust, prometheus.GaugeValue, left/rate, schema, name)
		}
		seen[key] = rateSample{used: used, at: now}
	}
	c.seen = seen
}

// registerServerMetrics adds the metrics that read the server rather
// than its engine: the free space of the embedded store's file system
// and, in cluster mode, the node's contact with etcd; the connections
// per protocol; how far SNOWFLAKE ids ran ahead of the clock (of the
// engine serving now). serveHTTP calls it, since only its listener serves them.
// REQUIRES: s.cfg, s.node and s.pg are set.
func (s *Server) registerServerMetrics() {
	s.metrics.registerConnections(s.pg.Registry())
	s.metrics.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqd_time_ids_clock_behind_seconds",
		Help: "How far the last SNOWFLAKE id this node handed out ran ahead of its clock (0: not at all): a clock stepped back, or a rate above the layout's borrowing the time units to come; past 10 s its ids are refused (55000) until the clock catches up."},
		func() float64 { return s.engine().ClockBehind().Seconds() }))
	if s.node != nil {
		n := s.node
		s.metrics.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqd_cluster_etcd_contact_age_seconds",
			Help: "Seconds since this node last heard from etcd: 0 while it leads with a valid term (its lease is renewed there), else since its watch last read the store or confirmed it unchanged (every 2 s while etcd answers)."},
			func() float64 { return n.etcdContactAge().Seconds() }))
		return
	}
	if s.cfg.Store != nil {
		return // not a store in a directory
	}
	fs := s.cfg.FS
	if fs == nil {
		fs = vfs.Default
	}
	reserve := s.cfg.MinFreeSpace
	switch {
	case reserve == 0:
		reserve = embedded.DefaultMinFreeBytes
	case reserve < 0:
		reserve = 0 // none kept
	}
	s.metrics.reg.MustRegister(&spaceCollector{fs: fs, dir: s.cfg.DataDir, reserve: reserve})
}

// etcdContactAge is how long ago the node last heard from etcd: nothing
// while it leads with a valid term (the term is valid only while its
// lease is renewed at etcd), else since its last view of the store.
func (n *node) etcdContactAge() time.Duration {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.standby && n.term != nil && n.term.Valid() {
		return 0
	}
	return n.ranges.Now() - n.contact
}

var (
	descFree    = prometheus.NewDesc("seqd_store_free_bytes", "Bytes free (to an unprivileged user) on the embedded store's file system.", nil, nil)
	descReserve = prometheus.NewDesc("seqd_store_reserve_bytes", "The room the store keeps free on its file system (-min-free-space; 0: none): below it, writes are refused with 53100.", nil, nil)
)

// spaceCollector reads the embedded store's file system at scrape time
// (one statfs, as each commit makes). A file system that cannot tell (in
// memory) exports neither series.
type spaceCollector struct {
	fs      vfs.FS
	dir     string
	reserve int64
}

func (c *spaceCollector) Describe(ch chan<- *prometheus.Desc) { ch <- descFree; ch <- descReserve }

func (c *spaceCollector) Collect(ch chan<- prometheus.Metric) {
	u, err := c.fs.GetDiskUsage(c.dir)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(descFree, prometheus.GaugeValue, float64(u.AvailBytes))
	ch <- prometheus.MustNewConstMetric(descReserve, prometheus.GaugeValue, float64(c.reserve))
}

// metricsConns bounds the metrics and health listener's connections.
const metricsConns = 64

// serveHTTP starts serving /metrics, /healthz (the process answers) and
// /readyz (every write reached the store), in Kubernetes' conventions, to
// GET and HEAD (withoutBodies).
// REQUIRES: called once, before Shutdown may run (it sets s.httpSrv).
func (s *Server) serveHTTP(ln net.Listener) {
	s.registerServerMetrics()
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	cons := s.newConsole()
	mux.Handle("/console/", cons)
	mux.Handle("/console", cons)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		text, err := "ok", s.engine().Healthy()
		if s.node != nil {
			text, err = s.node.ready()
		}
		if e := s.storeErr.Load(); e != nil {
			err = *e
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(text + "\n"))
	})
	// DisableGeneralOptionsHandler: net/http answers "OPTIONS *" itself,
	// reading its body, before withoutBodies sees it.
	s.httpSrv = &http.Server{Handler: withoutBodies(mux), DisableGeneralOptionsHandler: true, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10, ConnState: frontend.HTTPConnState, ErrorLog: s.log}
	// A budget of its own, which nobody authenticates into: a flood of it
	// neither reaches the clients' budget nor holds more than this many
	// descriptors, and a scraper still gets in (idle and silent
	// connections give their place).
	fl := frontend.Listen(ln, frontend.ListenerConfig{Registry: frontend.NewRegistry(metricsConns, 0), Name: "http",
		Logger: s.log, Refuse: func(nc net.Conn) {
			io.WriteString(nc, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		}})
	go s.httpSrv.Serve(fl)
}

// withoutBodies serves h to GET and HEAD and answers any other method 405
// Method Not Allowed (Allow: GET, HEAD), closing its connection. No
// request body is read: a request that sends one (any method; -1 is a
// body of unknown length) is answered and its connection closed with the
// body unread. net/http would read what remains of a body after the
// answer (up to 256 KiB, for as long as ReadTimeout), and a connection
// with a request under way is not one the listener's budget may evict:
// 64 slow POSTs held every place, and probes got 503.
func withoutBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		get := r.Method == http.MethodGet || r.Method == http.MethodHead
		if !get || r.ContentLength != 0 {
			w.Header().Set("Connection", "close")
		}
		if r.ContentLength != 0 {
			// Reading what remains of the body fails at once: the
			// connection closes as soon as the answer is written.
			http.NewResponseController(w).SetReadDeadline(time.Now())
		}
		if !get {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: GET or HEAD", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}
