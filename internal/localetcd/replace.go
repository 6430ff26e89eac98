package localetcd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

// Replace replaces member i while the cluster serves, as an operator
// replaces a machine: the member is removed from the cluster (etcdctl
// member remove) and stopped, and a new member, on new ports and with
// no data, is added (etcdctl member add) and started. The new member
// takes i's place in Members and Endpoints (behind a new peer proxy with
// Options.PeerProxies); clients that still name the old endpoint find
// nothing there.
func (c *Cluster) Replace(i int) error {
	cfg, err := c.ClientConfig()
	if err != nil {
		return err
	}
	var others []string
	for j, ep := range c.Endpoints {
		if j != i && !c.stopped[j] {
			others = append(others, ep)
		}
	}
	cfg.Endpoints = others
	cli, err := clientv3.New(cfg)
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// etcd refuses a removal until the members have been connected
	// for a while (its strict reconfiguration check).
	for {
		_, err := cli.MemberRemove(ctx, uint64(c.Members[i].Server.MemberID()))
		if err == nil {
			break
		}
		if !errors.Is(err, rpctypes.ErrUnhealthy) || ctx.Err() != nil {
			return fmt.Errorf("localetcd: removing member %d: %w", i, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.Stop(i)

	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	advertised := fmt.Sprintf("127.0.0.1:%d", ports[1])
	var proxy *Proxy
	if c.peers != nil {
		if proxy, err = newProxy(advertised, true); err != nil {
			return err
		}
		advertised = proxy.Addr()
	}
	members, id, err := addMember(ctx, cli, "http://"+advertised)
	if err != nil {
		if proxy != nil {
			proxy.Close()
		}
		return fmt.Errorf("localetcd: adding a member in place of %d: %w", i, err)
	}
	c.replaced++
	name := fmt.Sprintf("m%d-%d", i, c.replaced)
	var initial []string
	for _, m := range members {
		n := m.Name
		if m.ID == id {
			n = name
		}
		for _, u := range m.PeerURLs {
			initial = append(initial, n+"="+u)
		}
	}
	config := c.memberConfig(member{name: name, clientPort: ports[0], peerPort: ports[1], advertisedPeer: advertised,
		initial: strings.Join(initial, ","), state: embed.ClusterStateFlagExisting})
	e, err := embed.StartEtcd(config())
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		return fmt.Errorf("localetcd: the member replacing %d not ready after 30s", i)
	}
	c.Members[i], c.stopped[i], c.configs[i] = e, false, config
	c.Endpoints[i] = e.Config().ListenClientUrls[0].String()
	if proxy != nil {
		c.peers[i].Close()
		c.peers[i] = proxy
		// The cuts in place name the new member's ID now.
		c.cuts.mu.Lock()
		c.applyLocked()
		c.cuts.mu.Unlock()
	}
	return nil
}

// addMember adds a member at peerURL, trying again while the cluster
// elects a leader or is not yet sound enough to grow (etcd's strict
// reconfiguration check). It returns the members, and the new one's ID.
func addMember(ctx context.Context, cli *clientv3.Client, peerURL string) ([]*etcdserverpb.Member, uint64, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		r, err := cli.MemberAdd(actx, []string{peerURL})
		cancel()
		if err == nil {
			return r.Members, r.Member.ID, nil
		}
		if errors.Is(err, rpctypes.ErrPeerURLExist) {
			// An earlier try was applied.
			l, err := cli.MemberList(ctx)
			if err != nil {
				return nil, 0, err
			}
			for _, m := range l.Members {
				if slices.Contains(m.PeerURLs, peerURL) {
					return l.Members, m.ID, nil
				}
			}
		}
		if ctx.Err() != nil {
			return nil, 0, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
