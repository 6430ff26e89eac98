package torture

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The DDL client makes and drops sequences of its own (churn_N) through
// the leader, one statement every ddlPause, through every failover: each
// interval a follower's watch then holds changes its snapshot cannot
// take in place, so that followers derive their snapshots from changes,
// and take over from snapshots so derived. At the end, the leader and
// every follower must list the churn sequences the answers say exist.

const ddlPause = 150 * time.Millisecond

// churn is what the DDL client knows of its sequences: created and not
// dropped (true), dropped (false), by the answers it got; a statement
// of unknown outcome leaves its sequence out (either may be true).
type churn struct {
	known   map[string]bool
	unknown map[string]bool
	ddl     int // statements answered
}

func (r *clusterRun) ddlClient(seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, 17))
	ch := &r.churn
	next := 0
	for !stopped(stop) {
		c, err := r.connect(time.Second)
		if err != nil {
			continue
		}
		for !stopped(stop) {
			var name, stmt string
			live := ch.live()
			if len(live) < 5 || rng.IntN(2) == 0 {
				name, next = fmt.Sprintf("churn_%d", next), next+1
				stmt = "create sequence " + name
			} else {
				name = live[rng.IntN(len(live))]
				stmt = "drop sequence " + name
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err := c.Exec(ctx, stmt)
			cancel()
			r.mu.Lock()
			switch r.ddlOutcome(err) {
			case OK:
				ch.known[name] = strings.HasPrefix(stmt, "create")
				ch.ddl++
			case Unknown:
				ch.unknown[name] = true
			}
			r.mu.Unlock()
			if err != nil {
				break
			}
			time.Sleep(ddlPause)
		}
		c.Close(context.Background())
	}
}

// live are the churn sequences known to exist, sorted.
func (ch *churn) live() []string {
	var out []string
	for name, exists := range ch.known {
		if exists && !ch.unknown[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// ddlOutcome is outcome's for DDL: a standby's refusal and a leader's
// loss of its term changed nothing, a connection that ended leaves it
// unknown. REQUIRES: r.mu held.
func (r *clusterRun) ddlOutcome(err error) Outcome {
	if err == nil {
		return OK
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "25006":
			return Failed
		case "57P01", "57014", "58030":
			return Unknown
		}
		r.violations = append(r.violations, fmt.Sprintf("ddl: SQLSTATE %s: %s", pe.Code, pe.Message))
		return Failed
	}
	return Unknown
}

// checkDDL: the leader, and every follower within a few of its
// intervals, lists every churn sequence answered created and none
// answered dropped since.
func (r *clusterRun) checkDDL(rep *ClusteredReport) {
	r.mu.Lock()
	want := map[string]bool{}
	for name, exists := range r.churn.known {
		if !r.churn.unknown[name] {
			want[name] = exists
		}
	}
	rep.DDL = r.churn.ddl
	r.mu.Unlock()
	differs := func(dsn string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err.Error()
		}
		defer c.Close(context.Background())
		rows, err := c.Query(ctx, `select sequencename from pg_sequences where sequencename like 'churn\_%'`)
		if err != nil {
			return err.Error()
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err.Error()
		}
		has := map[string]bool{}
		for _, n := range names {
			has[n] = true
		}
		var wrong []string
		for name, exists := range want {
			if has[name] != exists {
				wrong = append(wrong, fmt.Sprintf("%s (answered %s)", name, map[bool]string{true: "created", false: "dropped"}[exists]))
			}
		}
		slices.Sort(wrong)
		if len(wrong) > 0 {
			return fmt.Sprintf("%d of %d churn sequences listed wrong: %v", len(wrong), len(want), wrong[:min(len(wrong), 5)])
		}
		return ""
	}
	if d := differs(r.dsn); d != "" {
		rep.Violations = append(rep.Violations, "ddl: the leader: "+d)
	}
	for i := range r.addrs {
		d := "not checked"
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			if d = differs(r.nodeDSN(i)); d == "" || time.Now().After(deadline) {
				break
			}
		}
		if d != "" {
			rep.Violations = append(rep.Violations, fmt.Sprintf("ddl: node %d: %s", i, d))
		}
	}
}
