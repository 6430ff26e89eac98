// The clustered run's MySQL clients. MySQL's drivers have no
// target_session_attrs: a standby refuses their connections as a host
// that is down (1053, 08S01), and they move on to the next host they
// list, as MySQL Connector/J's multi-host URLs and MariaDB Connector/J's
// sequential mode do (compat's TestClusterMySQLDrivers runs those two).
// go-sql-driver/mysql lists one host, so each client here tries the
// nodes in the same order itself.

package torture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// openMySQL makes a pool per node for the MySQL clients; a connection
// taken from one is always new (no idle ones are kept).
func (r *clusterRun) openMySQL() error {
	// The driver logs connections it found broken; they go with the
	// nodes' logs.
	gomysql.SetLogger(log.New(r.log, "go-sql-driver: ", log.LstdFlags))
	for _, addr := range r.myAddrs {
		cfg := gomysql.NewConfig()
		cfg.User, cfg.Net, cfg.Addr = "torture", "tcp", addr
		cfg.Timeout = r.cfg.ConnectTimeout
		// A stopped node accepts and never answers: the handshake's
		// read gives up with the connect timeout.
		cfg.ReadTimeout, cfg.WriteTimeout = r.cfg.ConnectTimeout, r.cfg.ConnectTimeout
		c, err := gomysql.NewConnector(cfg)
		if err != nil {
			return err
		}
		db := sql.OpenDB(c)
		db.SetMaxIdleConns(0)
		r.myDBs = append(r.myDBs, db)
	}
	return nil
}

func (r *clusterRun) closeMySQL() {
	for _, db := range r.myDBs {
		db.Close()
	}
}

// connectMySQL tries the nodes in order and returns a connection of the
// first that accepts it: the leader, unless a node that no longer
// leads has not yet stood by.
func (r *clusterRun) connectMySQL() (*sql.Conn, error) {
	var last error
	for _, db := range r.myDBs {
		ctx, cancel := context.WithTimeout(context.Background(), r.cfg.ConnectTimeout)
		c, err := db.Conn(ctx)
		if err == nil {
			err = c.PingContext(ctx)
			if err != nil {
				c.Close()
			}
		}
		cancel()
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// mysqlClient takes values of the ORDER sequences over MySQL's protocol
// until stop, connecting again from the first node whenever its
// connection fails.
func (r *clusterRun) mysqlClient(id int, seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	for !stopped(stop) {
		c, err := r.connectMySQL()
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		for !stopped(stop) {
			s := clusterSeqs[rng.IntN(len(clusterSeqs))]
			if err := r.takeMySQL(c, Op{Seq: s.Name, Kind: Nextval, Want: 1, Client: id, Epoch: int(r.epoch.Load()), Call: r.h.Now()}); err != nil {
				break
			}
		}
		c.Close()
	}
}

// takeMySQL runs op, a NEXT VALUE FOR op.Seq, on c and adds it to the
// history with what came back.
func (r *clusterRun) takeMySQL(c *sql.Conn, op Op) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	var v int64
	err := c.QueryRowContext(ctx, "SELECT NEXT VALUE FOR "+op.Seq).Scan(&v)
	cancel()
	r.mu.Lock()
	r.mysqlClients[op.Client] = true
	r.mu.Unlock()
	r.record(op, r.mysqlOutcome(err), v, err)
	return err
}

// mysqlOutcome classifies a request's error as outcome does pgwire's:
// 1792 (a standby's or a deposed leader's read-only refusal, 25006)
// handed nothing out; a statement cancelled (1317, 57014), a shutdown
// (1053, 57P01), a store write whose outcome is unknown (1030, 58030) or
// a connection that ended leaves the outcome unknown; any other MySQL
// error is a finding.
func (r *clusterRun) mysqlOutcome(err error) Outcome {
	if err == nil {
		return OK
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1792:
			return Failed
		case 1317, 1053, 1030, 1927:
			return Unknown
		}
		r.violation(fmt.Sprintf("error: NEXT VALUE FOR over MySQL got %d (%s): %s", me.Number, me.SQLState, me.Message))
		return Failed
	}
	return Unknown
}
