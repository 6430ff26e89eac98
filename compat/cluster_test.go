package compat

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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
