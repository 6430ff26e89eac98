// The clustered run's clients: ORDER clients through a multi-host
// connection string, and NOORDER ones each on a node of its own.

package torture

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// noorderClient takes values of the NOORDER sequence from node i alone
// until stop, reconnecting to it whenever its connection fails (the node
// killed, stopped, cut off, taking over).
func (r *clusterRun) noorderClient(node, id int, stop <-chan struct{}) {
	for !stopped(stop) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		c, err := pgx.Connect(ctx, r.nodeDSN(node))
		cancel()
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		for !stopped(stop) {
			err := r.take(c, Op{Seq: noorderSeq.Name, Kind: Nextval, Want: 1, Client: id, Node: node, Epoch: int(r.epoch.Load()), Call: r.h.Now()})
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "25006" {
				// Every node serves a NOORDER sequence, leader or not.
				r.violation(fmt.Sprintf("error: node %d refused nextval of NOORDER %s: %s", node, noorderSeq.Name, pe.Message))
			}
			if err != nil {
				break
			}
		}
		c.Close(context.Background())
	}
}

// connect reaches the leader through the multi-host string, trying
// until within.
func (r *clusterRun) connect(within time.Duration) (*pgx.Conn, error) {
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		c, err := pgx.Connect(ctx, r.dsn)
		cancel()
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no leader within %v: %w", within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// client takes values until stop, reconnecting through the multi-host
// string whenever its connection fails.
func (r *clusterRun) client(id int, seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	for !stopped(stop) {
		c, err := r.connect(time.Second)
		if err != nil {
			continue
		}
		for !stopped(stop) {
			s := clusterSeqs[rng.IntN(len(clusterSeqs))]
			if err := r.take(c, Op{Seq: s.Name, Kind: Nextval, Want: 1, Client: id, Epoch: int(r.epoch.Load()), Call: r.h.Now()}); err != nil {
				break
			}
		}
		c.Close(context.Background())
	}
}

// take runs op, a nextval of op.Seq, on c and adds it to the history
// with what came back.
func (r *clusterRun) take(c *pgx.Conn, op Op) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	var v int64
	err := c.QueryRow(ctx, "select nextval($1)", op.Seq).Scan(&v)
	cancel()
	r.record(op, r.outcome(err), v, err)
	return err
}

// record adds op to the history: its outcome, and the value v it got or
// the error err.
func (r *clusterRun) record(op Op, outcome Outcome, v int64, err error) {
	op.Outcome = outcome
	if op.Outcome != Unknown {
		op.Return = r.h.Now()
	}
	if err == nil {
		op.Values = []int64{v}
	} else {
		op.Err = err.Error()
	}
	r.h.Add(op)
}

// outcome classifies a request's error: a standby's or a deposed
// leader's 25006 handed nothing out; a connection that ended (57P01, or
// a broken connection, a timeout) leaves the outcome unknown; any other
// error is a finding.
func (r *clusterRun) outcome(err error) Outcome {
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
		r.violation(fmt.Sprintf("error: nextval got SQLSTATE %s: %s", pe.Code, pe.Message))
		return Failed
	}
	return Unknown
}
