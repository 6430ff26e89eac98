package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/cluster"
	"github.com/seqd/seqd/internal/etcdtest"
	"github.com/seqd/seqd/storage/embedded"
	"github.com/seqd/seqd/storage/faultfs"
)

// TestMetricsStoreSpace: a store in a directory exports its file
// system's free bytes and the reserve it keeps (the default's when
// -min-free-space is not given), and a full file system shows as no
// bytes free, below the reserve: what the SeqdStoreFull alert reads.
func TestMetricsStoreSpace(t *testing.T) {
	s, _ := startHTTP(t)
	if free := gauge(t, s, "seqd_store_free_bytes"); free <= 0 {
		t.Errorf("seqd_store_free_bytes %v on the test's file system", free)
	}
	if got := gauge(t, s, "seqd_store_reserve_bytes"); got != embedded.DefaultMinFreeBytes {
		t.Errorf("seqd_store_reserve_bytes %v, want the default %d", got, embedded.DefaultMinFreeBytes)
	}

	ctx := context.Background()
	fs, dir, err := faultfs.Open(filepath.Join(t.TempDir(), "data"), 1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Start(ctx, Config{DataDir: dir, FS: fs, Listen: "127.0.0.1:0", HTTP: "127.0.0.1:0", MinFreeSpace: 1 << 20, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Shutdown(ctx) })
	if free, reserve := gauge(t, s2, "seqd_store_free_bytes"), gauge(t, s2, "seqd_store_reserve_bytes"); free != 1<<40 || reserve != 1<<20 {
		t.Errorf("free %v, reserve %v; want 1 TiB and 1 MiB", free, reserve)
	}
	fs.SetFull(true)
	if free := gauge(t, s2, "seqd_store_free_bytes"); free != 0 {
		t.Errorf("seqd_store_free_bytes %v on a full file system", free)
	}
}

// TestMetricsEtcdContact: a cluster node exports how long ago it heard
// from etcd: nothing while it leads, and a standby's age of its last view
// of the store; the reasons terms end for, at 0. A node without a store in a directory exports no free
// space.
func TestMetricsEtcdContact(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	ctx := context.Background()
	prefix := fmt.Sprintf("/contact%d/", clusterPrefixes.Add(1))
	start := func() *Server {
		s, err := Start(ctx, Config{Listen: "127.0.0.1:0", HTTP: "127.0.0.1:0", Etcd: cl.Endpoints, EtcdPrefix: prefix, LeaseTTL: 2 * time.Second,
			EtcdSecurity: EtcdSecurity{CA: cl.TLS.CA, Cert: cl.TLS.ClientCert, Key: cl.TLS.ClientKey}, Logger: log.New(io.Discard, "", 0)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Shutdown(ctx) })
		return s
	}
	first, second := start(), start()
	var leader, standby *Server
	for i := 0; leader == nil; i++ {
		switch {
		case gauge(t, first, "seqd_cluster_leader") == 1:
			leader, standby = first, second
		case gauge(t, second, "seqd_cluster_leader") == 1:
			leader, standby = second, first
		case i == 300:
			t.Fatal("no node leads after 30 s")
		default:
			time.Sleep(100 * time.Millisecond)
		}
	}
	if age := gauge(t, leader, "seqd_cluster_etcd_contact_age_seconds"); age != 0 {
		t.Errorf("the leader's etcd contact age %v, want 0 while its term is valid", age)
	}
	if age := gauge(t, standby, "seqd_cluster_etcd_contact_age_seconds"); age < 0 {
		t.Errorf("the standby's etcd contact age %v", age)
	}
	// Every reason a term may end for is exported from the start, at 0
	// on a node whose terms have not ended.
	body := scrape(t, standby)
	for _, err := range []error{cluster.ErrLeaseLost, cluster.ErrDeposed, nil, errors.New("other")} {
		if want := fmt.Sprintf("seqd_cluster_term_ends_total{reason=%q} 0", endReason(err)); !strings.Contains(body, want) {
			t.Errorf("no %s:\n%s", want, grepLines(body, "seqd_cluster_term_ends_total"))
		}
	}
	if grepLines(body, "seqd_store_free_bytes") != "" {
		t.Errorf("a cluster node exports the free space of a store it does not have:\n%s", grepLines(body, "seqd_store"))
	}
}
