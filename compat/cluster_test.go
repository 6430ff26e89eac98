package compat

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// TestClusterDrivers: psql (libpq), pgx and pgjdbc, each with only its
// standard multi-host setting (target_session_attrs=read-write,
// targetServerType=primary), find the leader of a three-node cluster
// among hosts listed followers first, and find the next leader after the
// first shuts down.
func TestClusterDrivers(t *testing.T) {
	psql := testenv.Command(t, "psql")
	ctx := context.Background()
	cl := etcdtest.Start(t, 3)
	var nodes []*server.Server
	var addrs []string
	for range 3 {
		s, err := server.Start(ctx, server.Config{Listen: "127.0.0.1:0", Etcd: cl.Endpoints, EtcdPrefix: "/drivers/",
			LeaseTTL: 2 * time.Second, Logger: log.New(io.Discard, "", 0)})
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, s)
		addrs = append(addrs, s.Addr().String())
	}
	down := make([]bool, 3)
	t.Cleanup(func() {
		for i, s := range nodes {
			if !down[i] {
				s.Shutdown(ctx)
			}
		}
	})
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
	leader := func() int {
		t.Helper()
		libpq, _ := hostList(0)
		deadline := time.Now().Add(30 * time.Second)
		for {
			c, err := pgx.Connect(ctx, libpq+" target_session_attrs=read-write")
			if err == nil {
				addr := c.PgConn().Conn().RemoteAddr().String()
				c.Close(ctx)
				for i, a := range addrs {
					if a == addr && !down[i] {
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
	l := leader()
	if err := nodes[l].Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	down[l] = true
	check(false)
}
