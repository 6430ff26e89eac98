package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/console"
)

// TestConsoleAuth runs the console behind the roles' passwords: a role
// is let in by its password once granted pg_monitor, which seqd made,
// and refused before.
func TestConsoleAuth(t *testing.T) {
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: t.TempDir(), Listen: "127.0.0.1:0", HTTP: "127.0.0.1:0", Auth: "scram-sha-256", Password: "boot",
		Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	c, err := pgx.Connect(ctx, "postgres://seqd:boot@"+s.Addr().String()+"/seqd?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	status := func(user, password string) int {
		req, _ := http.NewRequest(http.MethodGet, "http://"+s.HTTPAddr().String()+"/console/api/me", nil)
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if _, err := c.Exec(ctx, "CREATE ROLE mon LOGIN PASSWORD 'pw'"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		user, password string
		want           int
	}{{"", "", 401}, {"seqd", "wrong", 401}, {"seqd", "boot", 200}, {"mon", "pw", 403}} {
		if got := status(tc.user, tc.password); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.user, got, tc.want)
		}
	}
	if _, err := c.Exec(ctx, "GRANT pg_monitor TO mon"); err != nil {
		t.Fatal(err)
	}
	if got := status("mon", "pw"); got != 200 {
		t.Errorf("mon, granted pg_monitor: %d, want 200", got)
	}
	if body := consoleGet(t, s, "mon", "pw", "/console/api/cluster"); !strings.Contains(body, `"by_protocol":{"grpc":0,"http":0,"mysql":0,"postgresql":1}`) {
		t.Errorf("connections by protocol: %s", body)
	}
	c.Exec(ctx, "SELECT nextval('no_such_sequence')")
	for _, tc := range []struct {
		user, password string
		statement      bool
	}{{"seqd", "boot", true}, {"mon", "pw", false}} {
		body := consoleGet(t, s, tc.user, tc.password, "/console/api/failures")
		if !strings.Contains(body, "42P01") || strings.Contains(body, "no_such_sequence')") != tc.statement {
			t.Errorf("%s's failures (statement shown: %v): %s", tc.user, tc.statement, body)
		}
	}
}

// consoleGet is the body of the console's answer to path, as user.
func consoleGet(t *testing.T, s *Server, user, password, path string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+s.HTTPAddr().String()+path, nil)
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestConsoleCluster reads the cluster page's JSON of a cluster of three
// on etcd: the leader's term, etcd's three members with one raft leader,
// and, once the leader stops, the failover a standby saw.
func TestConsoleCluster(t *testing.T) {
	names := 0
	fc := startFailoverCluster(t, func(c *Config) { c.NodeName = fmt.Sprintf("node%d", names); names++ })
	c, first := fc.leader()
	defer c.Close(fc.ctx)
	if _, err := c.Exec(fc.ctx, "create sequence nb cache 20 noorder"); err != nil {
		t.Fatal(err)
	}
	other := (first + 1) % 3
	fc.checkNoOrderBlock(other)
	view := func(i int) console.Cluster {
		var v console.Cluster
		body := consoleGet(t, fc.nodes[i], "", "", "/console/api/cluster")
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return v
	}
	v := view(first)
	leaders := 0
	for _, m := range v.Members {
		if m.Leader {
			leaders++
		}
		if m.Error != "" {
			t.Errorf("member %s: %s", m.Name, m.Error)
		}
	}
	if v.Role != "leader" || v.Term <= 0 || v.LeaderSince == nil || len(v.Members) != 3 || leaders != 1 {
		t.Fatalf("the leader's view: %+v", v)
	}
	if v := view(other); v.Role != "standby" || v.Leader != fmt.Sprintf("node%d", first) {
		t.Errorf("a standby's view: %+v", v)
	}
	fc.nodes[first].Shutdown(fc.ctx)
	fc.down[first] = true
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := view(other)
		if len(v.Failovers) > 0 && v.Failovers[0].From == fmt.Sprintf("node%d", first) && v.Failovers[0].To != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failover seen: %+v", v)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkNoOrderBlock takes a value of the NOORDER nb on node i, a standby,
// and finds its block on that node's console.
func (fc *failoverCluster) checkNoOrderBlock(i int) {
	t := fc.t
	deadline := time.Now().Add(30 * time.Second)
	for {
		c := fc.connect(i)
		_, err := c.Exec(fc.ctx, "select nextval('nb')")
		c.Close(fc.ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nextval of nb on node %d: %v", i, err)
		}
		time.Sleep(100 * time.Millisecond) // until its snapshot holds nb
	}
	body := consoleGet(t, fc.nodes[i], "", "", "/console/api/sequence?schema=public&name=nb")
	if want := fmt.Sprintf(`"noorder_block":{"node":"node%d","last":"`, i); !strings.Contains(body, want) {
		t.Errorf("the NOORDER sequence's page: %s, want %s", body, want)
	}
}
