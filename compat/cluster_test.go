package compat

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/clustertest"
	"github.com/seqd/seqd/internal/testenv"
)

// TestClusterDrivers: psql (libpq), pgx and pgjdbc, each with only its
// standard multi-host setting (target_session_attrs=read-write,
// targetServerType=primary), find the leader of a three-node cluster
// among hosts listed followers first, and find the next leader after the
// first shuts down.
func TestClusterDrivers(t *testing.T) {
	psql := testenv.Command(t, "psql")
	ctx := context.Background()
	cl := clustertest.Start(t, 3, "/drivers/")
	addrs := cl.Addrs
	// The hosts with the leader last, so that every driver must pass
	// over the standbys.
	hostList := func(leader int) (libpq, jdbc string) {
		var hs, ps, js []string
		for i := range addrs {
			j := (leader + 1 + i) % len(addrs)
			h, p, _ := net.SplitHostPort(addrs[j])
			hs, ps, js = append(hs, h), append(ps, p), append(js, addrs[j])
		}
		return fmt.Sprintf("host=%s port=%s user=app dbname=app connect_timeout=3", strings.Join(hs, ","), strings.Join(ps, ",")),
			"jdbc:postgresql://" + strings.Join(js, ",") + "/app?targetServerType=primary&connectTimeout=3"
	}
	leader := func() int { t.Helper(); return clusterLeader(t, cl) }
	check := func(first bool) {
		t.Helper()
		l := leader()
		libpq, jdbc := hostList(l)
		if first {
			c, err := pgx.Connect(ctx, libpq+" target_session_attrs=read-write")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exec(ctx, "create sequence s"); err != nil {
				t.Fatal(err)
			}
			c.Close(ctx)
		}
		cmd := exec.Command(psql, "-X", "-A", "-t", "-c", "select pg_is_in_recovery(), nextval('s')", libpq+" target_session_attrs=read-write")
		cmd.Env = append(os.Environ(), "PGOPTIONS=")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "f|") {
			t.Fatalf("psql with target_session_attrs=read-write: %v\n%s", err, out)
		}
		runJDBC(t, jdbc, "app", "")
	}
	check(true)
	cl.Shutdown(t, leader())
	check(false)
}

// clusterLeader is the index of the node leading cl now, found as
// libpq finds it (target_session_attrs=read-write over every node).
func clusterLeader(t *testing.T, cl *clustertest.Cluster) int {
	t.Helper()
	var hs, ps []string
	for _, a := range cl.Addrs {
		h, p, _ := net.SplitHostPort(a)
		hs, ps = append(hs, h), append(ps, p)
	}
	dsn := fmt.Sprintf("host=%s port=%s user=app dbname=app connect_timeout=3 target_session_attrs=read-write", strings.Join(hs, ","), strings.Join(ps, ","))
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := pgx.Connect(ctx, dsn)
		if err == nil {
			addr := c.PgConn().Conn().RemoteAddr().String()
			c.Close(ctx)
			for i, a := range cl.Addrs {
				if a == addr && !cl.Down(i) {
					return i
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader within 30s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestClusterMySQLDrivers: MySQL's drivers have no target_session_attrs;
// a standby refuses MySQL connections as a host that is down, and MySQL
// Connector/J's multi-host URL and MariaDB Connector/J's sequential mode,
// each with the hosts listed standbys first, reach the leader, before and
// after the first leader shuts down; the values go on from the first
// leader's, none repeated.
func TestClusterMySQLDrivers(t *testing.T) {
	cl := clustertest.Start(t, 3, "/mysqldrivers/")
	hosts := func(leader int) string {
		var hs []string
		for i := range cl.MySQLAddrs {
			hs = append(hs, cl.MySQLAddrs[(leader+1+i)%len(cl.MySQLAddrs)])
		}
		return strings.Join(hs, ",")
	}
	l := clusterLeader(t, cl)
	db, err := sql.Open("mysql", "app@tcp("+cl.MySQLAddrs[l]+")/")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec("CREATE SEQUENCE s")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	take := func(url string) {
		t.Helper()
		out := runJDBCQuery(t, url, "app", "", "SELECT NEXT VALUE FOR s")
		v, err := strconv.ParseInt(out, 10, 64)
		if err != nil || v <= last {
			t.Fatalf("%s: NEXT VALUE FOR s gave %q after %d", url, out, last)
		}
		last = v
	}
	for round := range 2 {
		if round == 1 {
			cl.Shutdown(t, l)
			l = clusterLeader(t, cl)
		}
		take("jdbc:mysql://" + hosts(l) + "/?connectTimeout=3000")
		take("jdbc:mariadb:sequential://" + hosts(l) + "/?connectTimeout=3000")
	}
}
