package frontend

import (
	"bytes"
	"errors"
	"log"
	"strings"
	"testing"

	"github.com/seqd/seqd/sqlerr"
)

// TestRegistry: the budget counts connections from accept and sessions
// from registration, reserves the last slots for superusers, and cancels
// a session only with its key.
func TestRegistry(t *testing.T) {
	r := NewRegistry(3, 1)
	for i := range 3 {
		if !r.Admit() {
			t.Fatalf("connection %d refused under the limit", i+1)
		}
	}
	if r.Admit() {
		t.Fatal("a fourth connection admitted with a limit of 3")
	}
	r.Leave()
	if !r.Admit() {
		t.Fatal("a connection refused after one left")
	}

	cancelled := map[uint32]int{}
	var ids []uint32
	var keys [][4]byte
	for i := range 3 {
		var id uint32
		id, key, ok := r.Register(func() { cancelled[id]++ })
		if !ok || id == 0 || id > 1<<31-1 {
			t.Fatalf("session %d: id %d, %v", i+1, id, ok)
		}
		for _, other := range ids {
			if other == id {
				t.Fatalf("two sessions with id %d", id)
			}
		}
		ids, keys = append(ids, id), append(keys, key)
		// The last slot is a superuser's.
		if i < 2 && !r.MayUseSlot(false) {
			t.Fatalf("session %d of 3 (1 reserved) refused to a plain role", i+1)
		}
	}
	if r.MayUseSlot(false) || !r.MayUseSlot(true) {
		t.Fatal("the reserved slot: a plain role kept it, or a superuser did not")
	}
	if _, _, ok := r.Register(func() {}); ok {
		t.Fatal("a fourth session registered with a limit of 3")
	}

	wrong := keys[0]
	wrong[0] ^= 1
	if r.Cancel(ids[0], wrong[:]) || r.Cancel(ids[0]+1<<30, keys[0][:]) || cancelled[ids[0]] != 0 {
		t.Fatal("cancelled with a wrong key or id")
	}
	if !r.Cancel(ids[0], keys[0][:]) || cancelled[ids[0]] != 1 {
		t.Fatal("not cancelled with its key")
	}
	r.Unregister(ids[0])
	if r.Cancel(ids[0], keys[0][:]) || cancelled[ids[0]] != 1 {
		t.Fatal("an unregistered session cancelled")
	}
	if _, _, ok := r.Register(func() {}); !ok {
		t.Fatal("no session registered after one ended")
	}
}

// TestContain: a panic in a statement becomes its internal error.
func TestContain(t *testing.T) {
	var buf bytes.Buffer
	run := func() (err error) {
		defer Contain(log.New(&buf, "", 0), 7, &err)
		panic("boom")
	}
	err := run()
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Kind != sqlerr.InternalError || !strings.Contains(se.Msg, "boom") {
		t.Fatalf("after a panic: %v", err)
	}
	if !strings.Contains(buf.String(), "a statement panicked (connection 7): boom") {
		t.Fatalf("log: %s", buf.String())
	}
}
