package compat

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"sigs.k8s.io/yaml"

	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/server"
)

const (
	rulesFile     = "../deploy/prometheus/seqd-rules.yml"
	rulesTestFile = "../deploy/prometheus/seqd-rules_test.yml"
	dashboardFile = "../deploy/grafana/seqd.json"
)

// dashboard is what the tests read of deploy/grafana/seqd.json.
type dashboard struct {
	Inputs []struct {
		Name, Type, PluginID string
	} `json:"__inputs"`
	SchemaVersion int
	Panels        []dashPanel
	Templating    struct {
		List []struct {
			Name       string
			Datasource dashSource
		}
	}
}

type dashPanel struct {
	Title, Type string
	Datasource  *dashSource
	Targets     []struct {
		Expr       string
		Datasource *dashSource
	}
}

type dashSource struct{ Type, UID string }

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// dashboardQueries are the dashboard's queries as Prometheus takes them:
// the instance variable set to every instance, Grafana's rate interval to
// a minute.
func dashboardQueries(d dashboard) map[string]string {
	q := map[string]string{}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			q[strings.NewReplacer("$instance", ".*", "$__rate_interval", "1m").Replace(tg.Expr)] = p.Title
		}
	}
	return q
}

// TestDashboardStructure: the Grafana dashboard imports unchanged (its
// datasource is an input of Grafana's export format, which every panel,
// query and variable uses), has a current schema, and every panel but a
// row has a query.
func TestDashboardStructure(t *testing.T) {
	d := readDashboard(t)
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_PROMETHEUS" || d.Inputs[0].Type != "datasource" || d.Inputs[0].PluginID != "prometheus" {
		t.Errorf("__inputs %+v, want one Prometheus datasource DS_PROMETHEUS", d.Inputs)
	}
	if d.SchemaVersion < 39 {
		t.Errorf("schemaVersion %d: not a current Grafana's (39 and later: Grafana 11)", d.SchemaVersion)
	}
	input := dashSource{Type: "prometheus", UID: "${DS_PROMETHEUS}"}
	for _, v := range d.Templating.List {
		if v.Datasource != input {
			t.Errorf("variable %s: datasource %+v, want the input", v.Name, v.Datasource)
		}
	}
	panels := 0
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		panels++
		if p.Datasource == nil || *p.Datasource != input {
			t.Errorf("panel %q: datasource %+v, want the input", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if strings.TrimSpace(tg.Expr) == "" || tg.Datasource == nil || *tg.Datasource != input {
				t.Errorf("panel %q: a query %q on datasource %+v", p.Title, tg.Expr, tg.Datasource)
			}
		}
	}
	if panels == 0 {
		t.Fatal("no panels")
	}
}

// ruleGroups is what the tests read of deploy/prometheus/seqd-rules.yml.
type ruleGroups struct {
	Groups []struct {
		Rules []struct {
			Alert, Record, Expr string
			Annotations         map[string]string
		}
	}
}

// TestAlertRules: promtool checks the rules and runs their unit tests,
// and every alert has a summary, a description and a runbook entry that
// docs/operations.md holds.
func TestAlertRules(t *testing.T) {
	promtool := need(t, "SEQD_TEST_PROMTOOL")
	for _, args := range [][]string{{"check", "rules", filepath.Base(rulesFile)}, {"test", "rules", filepath.Base(rulesTestFile)}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = filepath.Dir(rulesFile)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var rg ruleGroups
	if err := yaml.Unmarshal(b, &rg); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	alerts := 0
	for _, g := range rg.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: no summary or description", r.Alert)
			}
			if want := "docs/operations.md#" + strings.ToLower(r.Alert); r.Annotations["runbook"] != want {
				t.Errorf("%s: runbook %q, want %q", r.Alert, r.Annotations["runbook"], want)
			}
			if !strings.Contains(string(doc), "\n### "+r.Alert+"\n") {
				t.Errorf("%s: no runbook entry (### %s) in docs/operations.md", r.Alert, r.Alert)
			}
		}
	}
	if alerts == 0 {
		t.Fatal("no alerts")
	}
}

// comparison is a comparison operator outside braces and quotes, which
// withBool turns into its bool form.
var comparison = regexp.MustCompile(`(==|!=|>=|<=|>|<)`)

// withBool is a PromQL expression with its comparisons' bool modifier:
// instead of the series that pass, every series compared, 0 or 1, so that
// an alert that is rightly quiet on a healthy seqd still shows that the
// series it reads exist. Label matchers, inside braces, are kept.
func withBool(expr string) string {
	var b strings.Builder
	depth, quoted := 0, false
	start := 0
	flush := func(end int) {
		if depth == 0 && !quoted {
			b.WriteString(comparison.ReplaceAllString(expr[start:end], "$1 bool"))
		} else {
			b.WriteString(expr[start:end])
		}
		start = end
	}
	for i, r := range expr {
		switch {
		case r == '"':
			if !quoted {
				flush(i)
			} else {
				flush(i + 1)
			}
			quoted = !quoted
		case quoted:
		case r == '{':
			flush(i)
			depth++
		case r == '}':
			depth--
			flush(i + 1)
		}
	}
	flush(len(expr))
	return b.String()
}

func TestWithBool(t *testing.T) {
	for in, want := range map[string]string{
		`a > 0`:                            `a > bool 0`,
		`a{x!="y",z=~"w"} >= 2 * b{c="<"}`: `a{x!="y",z=~"w"} >= bool 2 * b{c="<"}`,
		`max by (job) (l) < 1`:             `max by (job) (l) < bool 1`,
	} {
		if got := withBool(in); got != want {
			t.Errorf("withBool(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrometheusRulesAndDashboard: a real Prometheus scrapes a seqd and a
// one-node cluster under a small load over PostgreSQL's and MySQL's
// protocols, the HTTP API and gRPC, with seqd's rules loaded. Every rule evaluates
// without error, every dashboard query and every rule's expression
// returns data (an alert's with its comparisons made bool: quiet while
// healthy, the series it reads are there).
func TestPrometheusRulesAndDashboard(t *testing.T) {
	prom := need(t, "SEQD_TEST_PROMETHEUS")
	rules, err := filepath.Abs(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	single := seqdtest.Start(t, server.Config{HTTP: "127.0.0.1:0", APIListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0"})
	cl := etcdtest.Start(t, 1)
	node := seqdtest.Start(t, server.Config{HTTP: "127.0.0.1:0", Etcd: cl.Endpoints, LeaseTTL: 2 * time.Second,
		EtcdSecurity: server.EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey}})
	stop := loadSeqd(t, single, node)
	defer stop()

	p := startPrometheus(t, prom, "rule_files: ['"+rules+"']\n", single.HTTPAddr().String(), node.HTTPAddr().String())
	queries := dashboardQueries(readDashboard(t))
	var rg struct {
		Groups []struct {
			Rules []struct {
				Name, Query, Type, Health, LastError string
			}
		}
	}
	// Rules that need two samples (rate, increase) need two scrapes of
	// the load, and the cluster node must lead: retry until all answer.
	deadline := time.Now().Add(90 * time.Second)
	for {
		var missing []string
		if err := p.api("/api/v1/rules", &rg); err != nil {
			missing = append(missing, "rules: "+err.Error())
		}
		for _, g := range rg.Groups {
			for _, r := range g.Rules {
				if r.Health != "ok" {
					missing = append(missing, r.Name+": health "+r.Health+" "+r.LastError)
				}
				q := r.Query
				if r.Type == "alerting" {
					q = withBool(q)
				}
				if res, err := p.query(q); err != nil || len(res) == 0 {
					missing = append(missing, r.Name+": "+q)
				}
			}
		}
		for q, title := range queries {
			if res, err := p.query(q); err != nil || len(res) == 0 {
				missing = append(missing, "panel "+title+": "+q)
			}
		}
		// The protocols' series: MySQL's statements and connections, and
		// values handed out over each of the four (the values panel's).
		for _, q := range []string{`seqd_statements_total{protocol="mysql",command="SELECT",class="00"} > 0`, `seqd_protocol_connections{protocol="mysql"} > 0`,
			`count by (instance) (rate(seqd_values_total{protocol=~"postgresql|mysql|http|grpc"}[1m]) > 0) == 4`} {
			if res, err := p.query(q); err != nil || len(res) == 0 {
				missing = append(missing, q)
			}
		}
		if len(missing) == 0 && len(rg.Groups) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("without data after 90 s:\n%s\n%s", strings.Join(missing, "\n"), p.log())
		}
		time.Sleep(time.Second)
	}
}

// loadSeqd runs a small load until stop: nextval over PostgreSQL's
// protocol on each server, and on the first NEXT VALUE FOR over MySQL's
// and nextval and reserve over the HTTP API and gRPC.
func loadSeqd(t *testing.T, single, node *server.Server) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	pg := func(s *server.Server) {
		defer wg.Done()
		var c *pgx.Conn
		for c == nil {
			var err error
			// The cluster node takes a moment to lead.
			if c, err = pgx.Connect(ctx, "postgres://seqd@"+s.Addr().String()+"/seqd?target_session_attrs=read-write"); err != nil {
				if ctx.Err() != nil {
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		defer c.Close(context.Background())
		c.Exec(ctx, "create sequence if not exists load")
		for ctx.Err() == nil {
			c.Exec(ctx, "select nextval('load')")
			time.Sleep(50 * time.Millisecond)
		}
	}
	wg.Add(4)
	go pg(single)
	go pg(node)
	go func() {
		defer wg.Done()
		my, err := sql.Open("mysql", "seqd@tcp("+single.MySQLAddr().String()+")/public")
		if err != nil {
			t.Error(err)
			return
		}
		defer my.Close()
		var v int64
		for ctx.Err() == nil {
			my.QueryRowContext(ctx, "SELECT NEXT VALUE FOR `load`").Scan(&v) // LOAD is a keyword; fails until pg made it
			time.Sleep(50 * time.Millisecond)
		}
	}()
	go func() {
		defer wg.Done()
		conn, err := grpc.NewClient(single.GRPCAddr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		gc := seqdv1.NewSequencesClient(conn)
		seq := &seqdv1.Sequence{Schema: "public", Name: "load"}
		api := "http://" + single.APIAddr().String() + "/v1/sequences/public/load/"
		for ctx.Err() == nil {
			gc.Next(ctx, &seqdv1.NextRequest{Sequence: seq})
			gc.Reserve(ctx, &seqdv1.ReserveRequest{Sequence: seq, Count: 10})
			for _, op := range []string{"nextval", "reserve?count=10"} {
				if resp, err := http.Post(api+op, "application/json", nil); err == nil {
					resp.Body.Close()
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return func() { cancel(); wg.Wait() }
}
