// etcd's quota exceeded and cleared, for the EtcdNoSpace nemesis.

package torture

import (
	"context"
	"errors"
	"fmt"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seqd/seqd/server"
)

// raiseNoSpace raises the NOSPACE alarm in the name of the etcd leader
// member, and checks that etcd then refuses a write as out of space.
func (r *clusterRun) raiseNoSpace() error {
	c := r.cfg.Nemeses
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id := uint64(c.MemberID(max(c.Leader(), 0)))
	mc := pb.NewMaintenanceClient(r.cli.ActiveConnection())
	if _, err := mc.Alarm(ctx, &pb.AlarmRequest{Action: pb.AlarmRequest_ACTIVATE, MemberID: id, Alarm: pb.AlarmType_NOSPACE}); err != nil {
		return fmt.Errorf("raising NOSPACE: %w", err)
	}
	_, err := r.cli.Put(ctx, r.prefix+"nemesis/quota", "x")
	if !errors.Is(err, rpctypes.ErrNoSpace) {
		return fmt.Errorf("a write with NOSPACE raised: %v, want %v", err, rpctypes.ErrNoSpace)
	}
	return nil
}

// clearNoSpace does what etcd's documentation asks once a member's
// database is over its quota: compact the history, defragment every
// member, and disarm the alarm; then a write succeeds again.
func (r *clusterRun) clearNoSpace() error {
	c := r.cfg.Nemeses
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Status and Defragment name a member, which the harness's hardened
	// client dials racing its own SetEndpoints: a client of that member
	// alone asks (server.EtcdMemberClient).
	member := func(ep string) (*clientv3.Client, error) { return server.EtcdMemberClient(ep, r.cfg.EtcdSecurity) }
	lc, err := member(c.Endpoints[max(c.Leader(), 0)])
	if err != nil {
		return err
	}
	st, err := lc.Status(ctx, c.Endpoints[max(c.Leader(), 0)])
	lc.Close()
	if err != nil {
		return err
	}
	if _, err := r.cli.Compact(ctx, st.Header.Revision); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return fmt.Errorf("compacting: %w", err)
	}
	for _, ep := range c.Endpoints {
		mc, err := member(ep)
		if err != nil {
			return err
		}
		_, err = mc.Defragment(ctx, ep)
		mc.Close()
		if err != nil {
			return fmt.Errorf("defragmenting %s: %w", ep, err)
		}
	}
	alarms, err := r.cli.AlarmList(ctx)
	if err != nil {
		return err
	}
	for _, a := range alarms.Alarms {
		if a.Alarm == pb.AlarmType_NOSPACE {
			if _, err := r.cli.AlarmDisarm(ctx, &clientv3.AlarmMember{MemberID: a.MemberID, Alarm: a.Alarm}); err != nil {
				return fmt.Errorf("disarming NOSPACE: %w", err)
			}
		}
	}
	if _, err := r.cli.Put(ctx, r.prefix+"nemesis/quota", "x"); err != nil {
		return fmt.Errorf("a write with NOSPACE cleared: %w", err)
	}
	return nil
}
