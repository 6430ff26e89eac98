package embedded

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/storetest"
)

func TestConformanceMem(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		fs := vfs.NewMem()
		return func() (storage.Store, error) { return Open("db", Options{FS: fs}) }
	})
}

func TestConformanceDisk(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		dir := t.TempDir()
		return func() (storage.Store, error) { return Open(dir, Options{}) }
	})
}
