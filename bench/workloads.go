package bench

import (
	"context"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/seqd/seqd/bench/noop"
)

// runNextval is the nextval grid: for each thread count, each target in
// turn (so that drift on a noisy machine hits them alike), threads
// sessions call nextval for cfg.Duration. The ceiling workload is the same
// grid with the no-op responder among the targets (started in this
// process if none was given).
func runNextval(ctx context.Context, cfg Config) ([]Result, error) {
	targets := slices.Clone(cfg.Targets)
	if cfg.Workload == "ceiling" && !hasKind(targets, Noop) {
		t, stop, err := startNoop()
		if err != nil {
			return nil, err
		}
		defer stop()
		targets = append(targets, t)
	}
	if cfg.Workload == "ceiling" && hasKind(targets, SeqdMySQL) && !hasKind(targets, NoopMySQL) {
		t, stop, err := startNoopMySQL()
		if err != nil {
			return nil, err
		}
		defer stop()
		targets = append(targets, t)
	}
	for _, c := range []struct {
		seqd, noop string
		start      func() (Target, func(), error)
	}{{SeqdHTTP, NoopHTTP, startNoopHTTP}, {SeqdGRPC, NoopGRPC, startNoopGRPC}} {
		if cfg.Workload == "ceiling" && hasKind(targets, c.seqd) && !hasKind(targets, c.noop) {
			t, stop, err := c.start()
			if err != nil {
				return nil, err
			}
			defer stop()
			targets = append(targets, t)
		}
	}
	var out []Result
	for _, threads := range cfg.Threads {
		for _, t := range targets {
			t.Prepared, t.StreamRange, t.StreamBatch = cfg.Prepared, cfg.StreamRange, cfg.StreamBatch
			d := dialect{t}
			if err := prepare(ctx, t, func(s session) error { return d.createSequence(ctx, s, "seqbench_s", 1, 1) }); err != nil {
				return nil, err
			}
			if err := awaitSpread(ctx, t, d.nextval("seqbench_s")); err != nil {
				return nil, err
			}
			ss, closeAll, err := sessions(ctx, t, threads)
			if err != nil {
				return nil, err
			}
			q := d.nextval("seqbench_s")
			l := loop{threads: threads, server: probeFor(t), duration: cfg.Duration, rate: cfg.Rate, progress: cfg.Progress,
				label: fmt.Sprintf("%s %s %d threads", cfg.Workload, t, threads)}
			do := func(ctx context.Context, w int, vs *values) error {
				v, err := ss[w].value(ctx, q)
				vs.add(v)
				return err
			}
			variant := ""
			if cfg.Prepared && t.mysql() {
				variant = "prepared"
			}
			if cfg.Pipeline > 1 {
				variant = fmt.Sprintf("pipeline %d", cfg.Pipeline)
				if t.Kind == SeqdGRPC || t.Kind == NoopGRPC {
					variant = fmt.Sprintf("stream %d", cfg.Pipeline)
					if cfg.StreamRange > 1 {
						variant += fmt.Sprintf(" x%d", cfg.StreamRange)
					}
					if cfg.StreamBatch {
						variant += " batched"
					}
				}
				do = func(ctx context.Context, w int, vs *values) error {
					return ss[w].pipeline(ctx, q, cfg.Pipeline, vs.add)
				}
			}
			m, err := l.run(ctx, do)
			closeAll()
			if err != nil {
				return nil, err
			}
			out = append(out, point(cfg.Workload, t, variant, threads, m))
		}
	}
	return out, nil
}

func hasKind(ts []Target, kind string) bool {
	for _, t := range ts {
		if t.Kind == kind {
			return true
		}
	}
	return false
}

// startNoop runs the no-op responder in this process.
func startNoop() (Target, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Target{}, nil, err
	}
	go (&noop.Server{}).Serve(ln)
	dsn := fmt.Sprintf("postgres://bench@%s/bench?sslmode=disable", ln.Addr())
	return Target{Name: "noop", Kind: Noop, DSN: dsn}, func() { ln.Close() }, nil
}

// startNoopMySQL runs the no-op responder over MySQL's protocol in this
// process.
func startNoopMySQL() (Target, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Target{}, nil, err
	}
	go (&noop.MySQLServer{}).Serve(ln)
	return Target{Name: NoopMySQL, Kind: NoopMySQL, DSN: fmt.Sprintf("bench@tcp(%s)/bench", ln.Addr())}, func() { ln.Close() }, nil
}

// startNoopHTTP runs the HTTP API's no-op ceiling in this process.
func startNoopHTTP() (Target, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Target{}, nil, err
	}
	go (&noop.HTTPServer{}).Serve(ln)
	return Target{Name: NoopHTTP, Kind: NoopHTTP, DSN: "http://" + ln.Addr().String()}, func() { ln.Close() }, nil
}

// startNoopGRPC runs the gRPC service's no-op ceiling in this process.
func startNoopGRPC() (Target, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Target{}, nil, err
	}
	go (&noop.GRPCServer{}).Serve(ln)
	return Target{Name: NoopGRPC, Kind: NoopGRPC, DSN: ln.Addr().String()}, func() { ln.Close() }, nil
}

// prepare runs setup statements on a session of their own.
// awaitSpread waits until every DSN a spread target's sessions use
// serves q: a cluster's followers see a new sequence within a refresh of
// their snapshot.
func awaitSpread(ctx context.Context, t Target, q string) error {
	for w := range t.Spread {
		deadline := time.Now().Add(30 * time.Second)
		for {
			s, err := connect(ctx, t.session(w))
			if err == nil {
				_, err = s.value(ctx, q)
				s.close()
			}
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: %s does not serve %q: %w", t, t.Spread[w], q, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

func prepare(ctx context.Context, t Target, setup func(s session) error) error {
	if t.Setup != "" { // an API target's sequences are made over SQL
		t.Kind, t.DSN = Seqd, t.Setup
	}
	s, err := connect(ctx, t)
	if err != nil {
		return err
	}
	defer s.close()
	if err := setup(s); err != nil {
		return fmt.Errorf("%s: set-up: %w", t, err)
	}
	return nil
}

// runBulk fetches cfg.BulkSize values per call: nextval over
// generate_series (MariaDB: its seq_1_to_N table), and on seqd also the
// range call, which returns first and last instead of every value.
func runBulk(ctx context.Context, cfg Config) ([]Result, error) {
	var out []Result
	n := cfg.BulkSize
	for _, threads := range cfg.Threads {
		for _, t := range cfg.Targets {
			if t.noop() {
				continue // it answers one row whatever the statement
			}
			d := dialect{t}
			variants := []string{"series"}
			if t.Kind != MariaDB {
				// The same rows with the least client work per row: what the
				// server can stream when the client is not the bound.
				variants = append(variants, "series raw")
			}
			if t.Kind == Seqd {
				variants = append(variants, "seqd_reserve")
			}
			for _, variant := range variants {
				if err := prepare(ctx, t, func(s session) error { return d.createSequence(ctx, s, "seqbench_bulk", 1, 1) }); err != nil {
					return nil, err
				}
				ss, closeAll, err := sessions(ctx, t, threads)
				if err != nil {
					return nil, err
				}
				q := d.series("seqbench_bulk", n)
				if variant == "seqd_reserve" {
					q = fmt.Sprintf("SELECT first, last, increment FROM seqd_reserve('seqbench_bulk', %d)", n)
				}
				l := loop{threads: threads, server: probeFor(t), duration: cfg.Duration, rate: cfg.Rate, progress: cfg.Progress,
					label: fmt.Sprintf("bulk %s %s %d threads", t, variant, threads)}
				m, err := l.run(ctx, func(ctx context.Context, w int, vs *values) error {
					if variant == "seqd_reserve" {
						var first, last, inc int64
						if err := ss[w].(*pgSession).c.QueryRow(ctx, q).Scan(&first, &last, &inc); err != nil {
							return err
						}
						if inc != 1 || last-first+1 != int64(n) {
							return fmt.Errorf("seqd_reserve(%d) returned %d..%d by %d", n, first, last, inc)
						}
						vs.addRange(first, last)
						return nil
					}
					values := ss[w].values
					if variant == "series raw" {
						values = ss[w].(*pgSession).rawValues
					}
					got, err := values(ctx, q, vs.add)
					if err == nil && got != n {
						err = fmt.Errorf("%d rows for %d values", got, n)
					}
					return err
				})
				closeAll()
				if err != nil {
					return nil, err
				}
				r := point("bulk", t, variant, threads, m)
				r.Size = n
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// runMulti is the PostgreSQL article's last experiment: threads calling
// nextval on one sequence, against the same threads spread over K
// sequences with INCREMENT K and staggered starts (1..K), which together
// hand out the same values without sharing a lock.
func runMulti(ctx context.Context, cfg Config) ([]Result, error) {
	var out []Result
	k := cfg.Sequences
	for _, threads := range cfg.Threads {
		for _, t := range cfg.Targets {
			d := dialect{t}
			for _, count := range []int{1, k} {
				names := make([]string, count)
				queries := make([]string, count)
				for i := range names {
					names[i] = fmt.Sprintf("seqbench_m%d", i)
					queries[i] = d.nextval(names[i])
				}
				err := prepare(ctx, t, func(s session) error {
					for i, name := range names {
						if err := d.createSequence(ctx, s, name, int64(i+1), int64(count)); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
				ss, closeAll, err := sessions(ctx, t, threads)
				if err != nil {
					return nil, err
				}
				variant := fmt.Sprintf("%d sequences", count)
				if count == 1 {
					variant = "1 sequence"
				}
				l := loop{threads: threads, server: probeFor(t), duration: cfg.Duration, rate: cfg.Rate, progress: cfg.Progress,
					label: fmt.Sprintf("multi %s %s %d threads", t, variant, threads)}
				m, err := l.run(ctx, func(ctx context.Context, w int, vs *values) error {
					v, err := ss[w].value(ctx, queries[w%count])
					vs.add(v)
					return err
				})
				closeAll()
				if err != nil {
					return nil, err
				}
				out = append(out, point("multi", t, variant, threads, m))
			}
		}
	}
	return out, nil
}
