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
	"go.etcd.io/etcd/client/pkg/v3/types"
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
	cli, err := c.othersClient(i)
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.removeMember(ctx, cli, i); err != nil {
		return err
	}
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
	if err := c.addInPlace(ctx, cli, i, member{ClientPort: ports[0], PeerPort: ports[1], AdvertisedPeer: advertised}); err != nil {
		if proxy != nil {
			proxy.Close()
		}
		return err
	}
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

// Renew replaces member i by a new member with no data on the same
// addresses, as an operator recovers a member whose data is lost or
// broken: etcdctl member remove, its data set aside, etcdctl member add
// with the same peer URL, and the new member started in its place. Its
// clients find it where they did.
func (c *Cluster) Renew(i int) error {
	cli, err := c.othersClient(i)
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.removeMember(ctx, cli, i); err != nil {
		return err
	}
	old := c.members[i]
	if err := c.addInPlace(ctx, cli, i, member{ClientPort: old.ClientPort, PeerPort: old.PeerPort, AdvertisedPeer: old.AdvertisedPeer}); err != nil {
		return err
	}
	if c.peers != nil {
		c.cuts.mu.Lock()
		c.applyLocked()
		c.cuts.mu.Unlock()
	}
	return nil
}

// othersClient is a client of the running members other than i.
func (c *Cluster) othersClient(i int) (*clientv3.Client, error) {
	cfg, err := c.ClientConfig()
	if err != nil {
		return nil, err
	}
	var others []string
	for j, ep := range c.Endpoints {
		if j != i && !c.stopped[j] {
			others = append(others, ep)
		}
	}
	cfg.Endpoints = others
	return clientv3.New(cfg)
}

// removeMember removes member i from the cluster and stops it.
func (c *Cluster) removeMember(ctx context.Context, cli *clientv3.Client, i int) error {
	// etcd refuses a removal until the members have been connected
	// for a while (its strict reconfiguration check).
	for {
		_, err := cli.MemberRemove(ctx, uint64(c.ids[i]))
		if err == nil {
			break
		}
		if !errors.Is(err, rpctypes.ErrUnhealthy) || ctx.Err() != nil {
			return fmt.Errorf("localetcd: removing member %d: %w", i, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.Stop(i)
	return nil
}

// addInPlace adds a new member at m's ports and peer address, named
// after i, and starts it (with no data) in i's place.
func (c *Cluster) addInPlace(ctx context.Context, cli *clientv3.Client, i int, m member) error {
	members, id, err := addMember(ctx, cli, "http://"+m.AdvertisedPeer)
	if err != nil {
		return fmt.Errorf("localetcd: adding a member in place of %d: %w", i, err)
	}
	// A new member checks its initial cluster against the members a peer
	// lists, and refuses to start if that peer has not applied the
	// addition yet ("member count is unequal").
	if err := c.awaitKnown(ctx, i, types.ID(id)); err != nil {
		return err
	}
	c.replaced++
	m.Name = fmt.Sprintf("m%d-%d", i, c.replaced)
	var initial []string
	for _, mm := range members {
		n := mm.Name
		if mm.ID == id {
			n = m.Name
		}
		for _, u := range mm.PeerURLs {
			initial = append(initial, n+"="+u)
		}
	}
	m.Initial, m.State, m.ClusterDir, m.TLS = strings.Join(initial, ","), embed.ClusterStateFlagExisting, c.dir, c.TLS
	e, err := embed.StartEtcd(m.config())
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		return fmt.Errorf("localetcd: the member in place of %d not ready after 30s", i)
	}
	c.Members[i], c.stopped[i], c.members[i], c.ids[i] = e, false, m, e.Server.MemberID()
	c.Endpoints[i] = e.Config().ListenClientUrls[0].String()
	return nil
}

// awaitKnown waits until every running member in this process but i
// has applied the addition of the member id.
func (c *Cluster) awaitKnown(ctx context.Context, i int, id types.ID) error {
	for {
		known := true
		for j, e := range c.Members {
			if j != i && e != nil && !c.stopped[j] && e.Server.Cluster().Member(id) == nil {
				known = false
			}
		}
		if known {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("localetcd: the members did not learn of the member added in place of %d: %w", i, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
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
