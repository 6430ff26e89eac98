package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Node ids for time-ordered ids (package timeid), held as leadership is:
// each node takes the lowest free id in etcd, under its lease, without
// an operator assigning it. Snowflake's users assign worker ids by hand
// or by schemes that give two instances one id (duplicate ids), never
// recycle them, or run out; here:
//
//  1. An id is held by a key created only if absent, under the holder's
//     lease: no two live nodes hold one id. The key's create revision is
//     the holding's token.
//  2. Beside it, a key that no lease removes keeps the id's durable time
//     mark: every holder saves its generator's mark there (Save, a
//     timeid.Mark), in a transaction that compares the token, so a holder
//     that lost the id can no longer move it; the next holder reads it
//     when it takes the id (Mark) and starts its ids above it. An id is
//     thus reused only above every id its earlier holders issued.
//  3. A holder whose lease lapsed stops issuing (Valid).

// ErrNoNodeID: every node id of the layout is held.
var ErrNoNodeID = errors.New("cluster: every node id is held")

// ErrNodeIDLost: the node no longer holds its id (its lease lapsed, and
// another node may hold the id).
var ErrNodeIDLost = errors.New("cluster: this node's id is no longer held")

// NodeID is a node id held under a lease.
type NodeID struct {
	ID    int64
	cli   *clientv3.Client
	lease *Lease
	key   string // the holder's, under the lease
	mark  string // the id's time mark
	token int64  // the holder key's create revision
	start int64  // the mark when the id was taken; -1: none
}

// nodeIDKeys are the keys of id under prefix.
func nodeIDKeys(prefix string, id int64) (holder, mark string) {
	k := fmt.Sprintf("%snodeids/%d", prefix, id)
	return k, k + "/mark"
}

// AcquireNodeID takes the lowest node id in 0..maxID that no live node
// holds, under l, recording name as its holder; ErrNoNodeID if all are
// held.
func AcquireNodeID(ctx context.Context, cli *clientv3.Client, prefix, name string, maxID int64, l *Lease) (*NodeID, error) {
	r, err := cli.Get(ctx, prefix+"nodeids/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for _, kv := range r.Kvs {
		held[string(kv.Key)] = true
	}
	for id := int64(0); id <= maxID; id++ {
		holder, mark := nodeIDKeys(prefix, id)
		if held[holder] {
			continue
		}
		t, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(holder), "=", 0)).
			Then(clientv3.OpPut(holder, name, clientv3.WithLease(l.ID)), clientv3.OpGet(mark)).Commit()
		if err != nil {
			return nil, err
		}
		if !t.Succeeded {
			continue // taken meanwhile
		}
		n := &NodeID{ID: id, cli: cli, lease: l, key: holder, mark: mark, token: t.Header.Revision, start: -1}
		if kvs := t.Responses[1].GetResponseRange().Kvs; len(kvs) == 1 {
			if len(kvs[0].Value) != 8 {
				return nil, fmt.Errorf("cluster: node id %d's time mark is %d bytes, not 8", id, len(kvs[0].Value))
			}
			n.start = int64(binary.BigEndian.Uint64(kvs[0].Value))
		}
		return n, nil
	}
	return nil, fmt.Errorf("%w: all %d (0 to %d) are held by live nodes", ErrNoNodeID, maxID+1, maxID)
}

// Mark is the id's durable time mark as the node took the id: its ids
// start above it (timeid.NewGen's mark); -1 if no holder saved one.
func (n *NodeID) Mark() int64 { return n.start }

// Save makes unit the id's durable time mark, if the node still holds
// the id (ErrNodeIDLost otherwise). It never lowers the mark. It is a
// timeid.Mark.
func (n *NodeID) Save(ctx context.Context, unit int64) error {
	if !n.lease.Valid() {
		return ErrNodeIDLost
	}
	// Big-endian bytes of a non-negative mark compare as the marks do.
	// etcd fails a value comparison with a key that does not exist, so
	// the first mark is written on its own condition.
	v := string(binary.BigEndian.AppendUint64(nil, uint64(unit)))
	put := clientv3.OpPut(n.mark, v)
	higher := clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.Value(n.mark), "<", v)}, []clientv3.Op{put}, nil)
	first := clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.Version(n.mark), "=", 0)}, []clientv3.Op{put}, []clientv3.Op{higher})
	t, err := n.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(n.key), "=", n.token)).Then(first).Commit()
	if err != nil {
		return err
	}
	if !t.Succeeded {
		return ErrNodeIDLost
	}
	return nil
}

// Valid reports whether the node may still issue ids with its id: its
// lease cannot have lapsed (invariant 3).
func (n *NodeID) Valid() bool { return n.lease.Valid() }

// Check is Valid as an error (ErrNodeIDLost), for timeid.Generator.Guard.
func (n *NodeID) Check() error {
	if !n.Valid() {
		return fmt.Errorf("%w: node id %d", ErrNodeIDLost, n.ID)
	}
	return nil
}

// Release gives the id back (its time mark stays for the next holder).
func (n *NodeID) Release(ctx context.Context) error {
	_, err := n.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(n.key), "=", n.token)).
		Then(clientv3.OpDelete(n.key)).Commit()
	return err
}
