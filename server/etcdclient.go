package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/seqd/seqd/storage/etcdstore"
)

// EtcdSecurity is how a node proves itself to a secured etcd: TLS (the
// CA that signed the members' certificates, and a client certificate
// for members that require one, as `etcd --client-cert-auth` does) and
// etcd's own users (`etcdctl auth enable`). The zero value connects in
// plaintext without a user.
type EtcdSecurity struct {
	CA, Cert, Key  string // PEM files; CA alone verifies the members, Cert and Key present a client certificate
	User, Password string
}

// EtcdClient connects to endpoints with sec, as every node and tool of
// seqd does, for a lease of the default 5 s (etcdClient).
func EtcdClient(endpoints []string, sec EtcdSecurity) (*clientv3.Client, error) {
	cli, _, err := etcdClient(endpoints, sec, 5*time.Second)
	return cli, err
}

// endpointsInterval is how often a client reads the cluster's
// membership, to follow members replaced (etcdstore.Endpoints.Keep).
const endpointsInterval = 5 * time.Second

// etcdClient connects to endpoints with sec, for a node whose lease is
// lease: no etcd member can stall a request (etcdstore.HardenClient: each
// try is bounded by a quarter of the lease, requires a leader, and is
// tried again on another member, and a member on which a try timed out
// is set aside for a while), and the endpoints follow the cluster's
// membership (etcdstore.Endpoints, returned for the tries of the requests
// the client does not pace itself: cluster.Config.Tries). gRPC's keepalive notices a member that stopped
// answering, so that requests stop being sent to it at all (etcd refuses
// pings more often than every 5 s).
func etcdClient(endpoints []string, sec EtcdSecurity, lease time.Duration) (*clientv3.Client, *etcdstore.Endpoints, error) {
	cfg, err := etcdConfig(endpoints, sec)
	if err != nil {
		return nil, nil, err
	}
	eps := etcdstore.HardenClient(&cfg, etcdstore.AttemptTimeout(lease))
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("seqd: etcd: %w", err)
	}
	eps.Bind(cli)
	go eps.Keep(cli.Ctx(), endpointsInterval)
	return cli, eps, nil
}

// EtcdMemberClient connects to the member at ep alone with sec, without
// the hardening of EtcdClient, for the calls made to one named member
// (Status, Defragment): etcd's client dials such a member reading its
// endpoints unguarded, which a hardened client's SetEndpoints would
// race with (etcdstore.Endpoints.MemberClient).
func EtcdMemberClient(ep string, sec EtcdSecurity) (*clientv3.Client, error) {
	cfg, err := etcdConfig([]string{ep}, sec)
	if err != nil {
		return nil, err
	}
	return clientv3.New(cfg)
}

// etcdConfig is the client configuration of endpoints with sec.
func etcdConfig(endpoints []string, sec EtcdSecurity) (clientv3.Config, error) {
	cfg := clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		Username: sec.User, Password: sec.Password, DialKeepAliveTime: 10 * time.Second, DialKeepAliveTimeout: 3 * time.Second}
	if sec.CA != "" || sec.Cert != "" {
		if (sec.Cert == "") != (sec.Key == "") {
			return cfg, fmt.Errorf("seqd: etcd: a client certificate needs both -etcd-cert and -etcd-key")
		}
		tc, err := transport.TLSInfo{CertFile: sec.Cert, KeyFile: sec.Key, TrustedCAFile: sec.CA}.ClientConfig()
		if err != nil {
			return cfg, fmt.Errorf("seqd: etcd TLS: %w", err)
		}
		cfg.TLS = tc
	}
	return cfg, nil
}

// diagnoseEtcd says why a TLS endpoint refuses this node, which gRPC
// reports only as a deadline: it makes one TLS connection itself and
// returns the handshake's error (a member requiring a client certificate
// answers "certificate required"), or "" when it finds none.
func diagnoseEtcd(endpoints []string, sec EtcdSecurity) string {
	for _, ep := range endpoints {
		hostPort, ok := strings.CutPrefix(ep, "https://")
		if !ok {
			continue
		}
		var tc *tls.Config
		if sec.CA != "" || sec.Cert != "" {
			var err error
			if tc, err = (transport.TLSInfo{CertFile: sec.Cert, KeyFile: sec.Key, TrustedCAFile: sec.CA}).ClientConfig(); err != nil {
				return err.Error()
			}
		} else {
			tc = &tls.Config{}
		}
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", hostPort, tc)
		if err == nil {
			// TLS 1.3 reports a refused client certificate on the
			// first read.
			conn.SetReadDeadline(time.Now().Add(time.Second))
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				err = nil
			}
		}
		var ne net.Error
		var op *net.OpError
		if errors.As(err, &ne) && ne.Timeout() || errors.As(err, &op) && op.Op == "dial" {
			// Not a refusal: the member is not there, or not answering.
			continue
		}
		if err != nil {
			return fmt.Sprintf("etcd at %s: %v; see -etcd-ca, -etcd-cert and -etcd-key", ep, err)
		}
	}
	return ""
}
