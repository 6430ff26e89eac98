package memstore

import (
	"testing"

	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Opener {
		s := New()
		return func() (storage.Store, error) { return s.Reopen(), nil }
	})
}

func TestTwoOwners(t *testing.T) {
	storetest.RunTwoOwners(t, func(t *testing.T) (storage.Store, storage.Store) {
		s := New()
		return s, s // two handles on one storage
	})
}
