// Package etcdtest is the test kit's etcd: real members in the test
// process (internal/localetcd), stopped when the test ends.
package etcdtest

import (
	"testing"

	"github.com/seqd/seqd/internal/localetcd"
)

// Cluster is a set of running members.
type Cluster = localetcd.Cluster

// Start runs a cluster of n members and stops it when the test ends.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := localetcd.StartIn(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// StartFromSnapshot runs a one-member cluster whose data is restored
// from an etcd snapshot, stopped when the test ends.
func StartFromSnapshot(t testing.TB, snapshot string) *Cluster {
	t.Helper()
	c, err := localetcd.StartFromSnapshotIn(t.TempDir(), snapshot)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
