package localetcd

import (
	"fmt"
	"os"
	"path/filepath"
)

// A member that loses its last writes (a power loss under a write-back
// cache that acknowledged an fsync it had not done) is played as etcd
// would find its disk on restart: as it was at an earlier moment.
// SaveData copies a stopped member's data directory, and RestoreData
// puts the copy back while it is stopped again: every write it made
// between, WAL entries it acknowledged to the leader included, is gone.
// etcd assumes fsync works; what it does with such a member is what the
// caller observes.

// savedDir is where SaveData keeps member i's copy.
func (c *Cluster) savedDir(i int) string {
	return filepath.Join(c.dir, c.members[i].Name+".saved")
}

// SaveData copies the data directory of the stopped member i.
func (c *Cluster) SaveData(i int) error {
	if !c.stopped[i] {
		return fmt.Errorf("localetcd: saving the data of member %d, which is running", i)
	}
	dst := c.savedDir(i)
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return os.CopyFS(dst, os.DirFS(c.members[i].config().Dir))
}

// RestoreData puts back the copy SaveData made of the stopped member i's
// data directory, in place of what the member wrote since.
func (c *Cluster) RestoreData(i int) error {
	if !c.stopped[i] {
		return fmt.Errorf("localetcd: restoring the data of member %d, which is running", i)
	}
	dir := c.members[i].config().Dir
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.CopyFS(dir, os.DirFS(c.savedDir(i)))
}
