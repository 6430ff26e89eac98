package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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

	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: seqd\n    static_configs:\n      - targets: ['%s']\n", srv.HTTPAddr())), 0o644)
	web := testenv.FreeAddr(t)
	cmd := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web)
	out, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()

	query := "http://" + web + "/api/v1/query?query=seqd_sequence_last_value%7Bsequence%3D%22scraped%22%7D"
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		resp, err := http.Get(query)
		if err != nil {
			continue // not up yet
		}
		var r struct {
			Status string
			Data   struct {
				Result []struct {
					Metric map[string]string
					Value  [2]any
				}
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || r.Status != "success" || len(r.Data.Result) == 0 {
			continue // not scraped yet
		}
		got := r.Data.Result[0]
		if got.Metric["job"] != "seqd" || got.Metric["schema"] != "public" || got.Value[1] != "4242" {
			t.Fatalf("Prometheus returned %+v", got)
		}
		return
	}
	log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
	t.Fatalf("Prometheus never returned seqd's series:\n%s", log)
}
