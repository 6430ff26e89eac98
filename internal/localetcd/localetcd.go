// Package localetcd runs real etcd members in this process
// (go.etcd.io/etcd/server/v3/embed) on loopback ports: for seqbench's
// cluster workload and the clustered torture run, which need an etcd and
// nothing installed, and, through internal/etcdtest, for tests. The
// members serve clients over TLS and require a client certificate signed
// by the cluster's own CA (TLS), as a secured production etcd does
// (--client-cert-auth); their peers talk in plaintext on loopback.
package localetcd

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/client/pkg/v3/types"
	clientv3 "go.etcd.io/etcd/client/v3"
	clientsnap "go.etcd.io/etcd/client/v3/snapshot"
	snapshotutl "go.etcd.io/etcd/etcdutl/v3/snapshot"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/seqd/seqd/internal/loopback"
	"github.com/seqd/seqd/internal/selfsigned"
)

// Cluster is a set of running members.
type Cluster struct {
	Members []*embed.Etcd
	// Endpoints are the members' client URLs (https).
	Endpoints []string
	// TLS holds the CA that signed the members' certificates and the
	// client certificate they accept.
	TLS     selfsigned.Chain
	stopped []bool
	members []member      // how each member is set up, for Restart
	ids     []types.ID    // each member's ID
	procs   []*memberProc // the members run as processes (nil: in this one)
	// peers are the proxies in front of each member's peer port, with
	// Options.PeerProxies (nil without).
	peers    []*Proxy
	cuts     cuts // what Isolate and CutLink cut, applied to peers
	dir      string
	replaced int // members replaced, for their names
}

// member is how one member is set up; a member run as a process is
// handed it (JSON).
type member struct {
	Name                 string
	ClientPort, PeerPort int
	AdvertisedPeer       string // host:port its peers know it by
	Initial, State       string // the cluster it starts in, new or existing
	ClusterDir           string // its data and log are under it
	TLS                  selfsigned.Chain
}

// config is m's configuration.
func (m member) config() *embed.Config {
	cfg := embed.NewConfig()
	cfg.Name = m.Name
	cfg.Dir = filepath.Join(m.ClusterDir, cfg.Name)
	cu, _ := url.Parse(fmt.Sprintf("https://127.0.0.1:%d", m.ClientPort))
	cfg.ClientTLSInfo = transport.TLSInfo{CertFile: m.TLS.ServerCert, KeyFile: m.TLS.ServerKey,
		TrustedCAFile: m.TLS.CA, ClientCertAuth: true}
	pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", m.PeerPort))
	au, _ := url.Parse("http://" + m.AdvertisedPeer)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*au}
	cfg.InitialCluster = m.Initial
	cfg.ClusterState = m.State
	cfg.InitialClusterToken = "seqd-test"
	// Warnings and errors to a file beside the data, for the
	// post-mortem of a long run.
	cfg.LogOutputs = []string{filepath.Join(m.ClusterDir, cfg.Name+".log")}
	cfg.LogLevel = "warn"
	// History is compacted every minute, as operators set etcd up
	// (docs/cluster.md): every mark and NOORDER block is a revision,
	// and a soak's would otherwise fill the database.
	cfg.AutoCompactionMode, cfg.AutoCompactionRetention = "periodic", "1m"
	return cfg
}

// Options are a cluster's choices beyond its size. The zero value is
// StartIn's cluster.
type Options struct {
	// PeerProxies puts a Proxy in front of every member's peer port, as
	// the address its peers know it by, so that Isolate can cut a
	// member off from its peers while its clients still reach it.
	PeerProxies bool
}

// Stop stops member i (a crash, as far as its peers and clients see; a
// member run as a process is killed).
func (c *Cluster) Stop(i int) {
	if c.stopped[i] {
		return
	}
	c.stopped[i] = true
	if p := c.procs[i]; p != nil {
		p.kill()
		c.procs[i] = nil
		return
	}
	c.Members[i].Close()
}

// freePorts finds n loopback ports for members to bind a moment later
// (outside the ports the kernel hands out itself: internal/loopback).
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		p, err := loopback.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	return ports, nil
}

// StartIn runs a cluster of n members with their data under dir, for
// commands (the clustered soak); Close stops it.
func StartIn(dir string, n int) (*Cluster, error) { return startIn(dir, n, "", Options{}) }

// StartWith runs a cluster of n members with their data under dir, as
// opts asks; Close stops it.
func StartWith(dir string, n int, opts Options) (*Cluster, error) { return startIn(dir, n, "", opts) }

// Snapshot saves the cluster's data to path, as `etcdctl snapshot save`
// does.
func (c *Cluster) Snapshot(path string) error {
	cfg, err := c.ClientConfig()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = clientsnap.SaveWithVersion(ctx, zap.NewNop(), cfg, path)
	return err
}

// StartFromSnapshotIn runs a one-member cluster with its data under dir,
// restored from an etcd snapshot as `etcdutl snapshot restore` does, with
// etcd's own restore code.
func StartFromSnapshotIn(dir, snapshot string) (*Cluster, error) {
	return startIn(dir, 1, snapshot, Options{})
}

func startIn(dir string, n int, snapshot string, opts Options) (*Cluster, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	// Each member's peers know it by its peer URL, or its proxy's.
	c := &Cluster{}
	advertised := make([]string, n)
	var initial []string
	for i := range n {
		advertised[i] = fmt.Sprintf("127.0.0.1:%d", ports[2*i+1])
		if opts.PeerProxies {
			p, err := newProxy(advertised[i], true)
			if err != nil {
				c.abandon()
				return nil, err
			}
			c.peers = append(c.peers, p)
			advertised[i] = p.Addr()
		}
		initial = append(initial, fmt.Sprintf("m%d=http://%s", i, advertised[i]))
	}
	tlsDir := filepath.Join(dir, "tls")
	if err := os.MkdirAll(tlsDir, 0o700); err != nil {
		c.abandon()
		return nil, err
	}
	c.TLS, err = selfsigned.WriteChain(tlsDir)
	if err != nil {
		c.abandon()
		return nil, err
	}
	c.dir = dir
	for i := range n {
		m := member{Name: fmt.Sprintf("m%d", i), ClientPort: ports[2*i], PeerPort: ports[2*i+1], AdvertisedPeer: advertised[i],
			Initial: strings.Join(initial, ","), State: embed.ClusterStateFlagNew, ClusterDir: dir, TLS: c.TLS}
		if snapshot != "" {
			cfg := m.config()
			err := snapshotutl.NewV3(zap.NewNop()).Restore(snapshotutl.RestoreConfig{SnapshotPath: snapshot, Name: cfg.Name,
				OutputDataDir: cfg.Dir, PeerURLs: []string{cfg.AdvertisePeerUrls[0].String()}, InitialCluster: cfg.InitialCluster,
				InitialClusterToken: cfg.InitialClusterToken})
			if err != nil {
				return nil, fmt.Errorf("localetcd: restore %s: %w", snapshot, err)
			}
		}
		e, err := embed.StartEtcd(m.config())
		if err != nil {
			c.abandon()
			return nil, err
		}
		c.Members = append(c.Members, e)
		c.stopped = append(c.stopped, false)
		c.members = append(c.members, m)
		c.ids = append(c.ids, e.Server.MemberID())
		c.procs = append(c.procs, nil)
		c.Endpoints = append(c.Endpoints, e.Config().ListenClientUrls[0].String())
	}
	for _, e := range c.Members {
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(30 * time.Second):
			c.abandon()
			return nil, fmt.Errorf("etcd member not ready after 30s")
		}
	}
	return c, nil
}

// Restart starts a stopped member again on its data (it rejoins the
// cluster) and waits until it is ready.
func (c *Cluster) Restart(i int) error {
	if !c.stopped[i] {
		return nil
	}
	e, err := embed.StartEtcd(c.members[i].config())
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		return fmt.Errorf("etcd member %d not ready after 30s", i)
	}
	c.Members[i], c.stopped[i] = e, false
	return nil
}

// Leader is the index of the member that leads the etcd cluster, -1 if
// none of the running ones does. A member run as a process is taken to
// lead when the members in this process follow it.
func (c *Cluster) Leader() int {
	for i, e := range c.Members {
		if e != nil && !c.stopped[i] && e.Server.Leader() == e.Server.MemberID() {
			return i
		}
	}
	for i, e := range c.Members {
		if e == nil || c.stopped[i] {
			continue
		}
		if k := slices.Index(c.ids, e.Server.Leader()); k >= 0 && c.procs[k] != nil {
			return k
		}
	}
	return -1
}

// MemberID is member i's ID.
func (c *Cluster) MemberID(i int) types.ID { return c.ids[i] }

// Close stops every member (and the proxies in front of them).
func (c *Cluster) Close() {
	for i := range c.Members {
		c.Stop(i)
	}
	for _, p := range c.peers {
		p.Close()
	}
}

// abandon closes what a start that failed had started, waiting for no
// member longer than abandonWait: a member that never became ready can
// wait in Close for peers that never came (its goroutines are left).
func (c *Cluster) abandon() {
	done := make(chan struct{})
	go func() {
		c.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(abandonWait):
	}
}

const abandonWait = 20 * time.Second

// ClientConfig is a client configuration for the cluster: its
// endpoints, with the client certificate over TLS.
func (c *Cluster) ClientConfig() (clientv3.Config, error) {
	tc, err := transport.TLSInfo{CertFile: c.TLS.ClientCert, KeyFile: c.TLS.ClientKey, TrustedCAFile: c.TLS.CA}.ClientConfig()
	if err != nil {
		return clientv3.Config{}, err
	}
	return clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop(), TLS: tc}, nil
}

// Owner is what Client needs of its caller (a test: testing.TB has it),
// without this package importing testing.
type Owner interface {
	Helper()
	Fatal(args ...any)
	Cleanup(func())
}

// Client returns a client of the cluster, closed when its owner (a test)
// ends.
func (c *Cluster) Client(t Owner) *clientv3.Client {
	t.Helper()
	cfg, err := c.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}
