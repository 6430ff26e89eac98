package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// TestPrometheus: a real Prometheus (Debian's) scrapes seqd's /metrics,
// and its query API returns seqd's series with seqd's values.
func TestPrometheus(t *testing.T) {
	prom := need(t, "SEQD_TEST_PROMETHEUS")
	ctx := context.Background()
	srv := seqdtest.Start(t, server.Config{HTTP: "127.0.0.1:0"})
	c, err := pgx.Connect(ctx, "postgres://seqd@"+srv.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"create sequence scraped", "select setval('scraped', 4242)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c.Close(ctx)

	p := startPrometheus(t, prom, "", srv.HTTPAddr().String())
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		res, err := p.query(`seqd_sequence_last_value{sequence="scraped"}`)
		if err != nil || len(res) == 0 {
			continue // not up or not scraped yet
		}
		got := res[0]
		if got.Metric["job"] != "seqd" || got.Metric["schema"] != "public" || got.Value[1] != "4242" {
			t.Fatalf("Prometheus returned %+v", got)
		}
		return
	}
	t.Fatalf("Prometheus never returned seqd's series:\n%s", p.log())
}

// prometheus is a real Prometheus the test started, scraping seqd.
type prometheus struct {
	web, dir string
}

// startPrometheus runs Debian's Prometheus scraping targets (host:port of
// seqd's -http listeners) every second under the job "seqd", with extra
// appended to its configuration; it is killed when the test ends.
func startPrometheus(t *testing.T, prom, extra string, targets ...string) *prometheus {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	conf := fmt.Sprintf("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: seqd\n    static_configs:\n      - targets: ['%s']\n",
		strings.Join(targets, "', '"))
	if err := os.WriteFile(cfg, []byte(conf+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	web := testenv.FreeAddr(t)
	cmd := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web)
	out, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); out.Close() })
	return &prometheus{web: web, dir: dir}
}

// promSeries is one series of an instant query's answer.
type promSeries struct {
	Metric map[string]string
	Value  [2]any
}

// query runs an instant query; an error is Prometheus not up yet or the
// query refused.
func (p *prometheus) query(q string) ([]promSeries, error) {
	var r struct{ Result []promSeries }
	err := p.api("/api/v1/query?query="+url.QueryEscape(q), &r)
	return r.Result, err
}

// api GETs path from Prometheus's HTTP API and decodes its data into v.
func (p *prometheus) api(path string, v any) error {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + p.web + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Error  string
		Data   json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return err
	}
	if r.Status != "success" {
		return fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	return json.Unmarshal(r.Data, v)
}

// log is what Prometheus wrote.
func (p *prometheus) log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "prometheus.log"))
	return string(b)
}
