package frontend

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/sqlerr"
)

// TestParseRoom: a long statement takes ParseCostPerByte per byte of its
// text from the room every front end shares, and gives it back once; one
// that finds no room waits for it, and fails with 53200 after the wait or
// with its context's end; a short one takes nothing, the room full or
// not; a statement costing more than the room takes the whole room.
func TestParseRoom(t *testing.T) {
	reg := NewRegistry(10, 0)
	const room = 3 * LongStatement * ParseCostPerByte // three long statements of LongStatement bytes
	reg.SetParseRoom(room)
	reg.parse.wait = 50 * time.Millisecond
	ctx := context.Background()

	var held []func()
	for i := range 3 {
		release, err := reg.TakeParseRoom(ctx, LongStatement)
		if err != nil {
			t.Fatalf("long statement %d of 3: %v", i+1, err)
		}
		held = append(held, release)
	}
	if release, err := reg.TakeParseRoom(ctx, LongStatement-1); err != nil {
		t.Fatalf("a short statement, the room full: %v", err)
	} else {
		release()
	}
	_, err := reg.TakeParseRoom(ctx, LongStatement)
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Kind != sqlerr.OutOfMemory || !strings.Contains(se.Msg, "-max-parse-memory") {
		t.Fatalf("a fourth long statement, the room full: %v, want out_of_memory naming -max-parse-memory", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(10*time.Millisecond, cancel)
	if _, err := reg.TakeParseRoom(cctx, LongStatement); !errors.Is(err, context.Canceled) {
		t.Fatalf("a long statement cancelled while it waits: %v", err)
	}

	// Given back once, however often released: one statement's room,
	// released twice, lets one more in, not two.
	held[0]()
	held[0]()
	if release, err := reg.TakeParseRoom(ctx, LongStatement); err != nil {
		t.Fatalf("after one was given back: %v", err)
	} else {
		held[0] = release
	}
	if _, err := reg.TakeParseRoom(ctx, LongStatement); err == nil {
		t.Fatal("a release called twice gave its room back twice")
	}

	// A waiter gets in as soon as room is given back.
	reg.parse.wait = time.Minute
	got := make(chan error, 1)
	go func() {
		release, err := reg.TakeParseRoom(ctx, LongStatement)
		if err == nil {
			release()
		}
		got <- err
	}()
	held[1]()
	if err := <-got; err != nil {
		t.Fatalf("waiting while room was given back: %v", err)
	}

	// Longer than the room: charged the whole room, so it runs alone.
	held[0]()
	held[2]()
	whole, err := reg.TakeParseRoom(ctx, 100*LongStatement)
	if err != nil {
		t.Fatalf("a statement costing more than the room, the room empty: %v", err)
	}
	reg.parse.wait = 50 * time.Millisecond
	if _, err := reg.TakeParseRoom(ctx, LongStatement); err == nil {
		t.Fatal("a long statement ran beside one that took the whole room")
	}
	whole()

	// No bound.
	reg.SetParseRoom(-1)
	for range 10 {
		if _, err := reg.TakeParseRoom(ctx, 1<<20); err != nil {
			t.Fatalf("no bound: %v", err)
		}
	}
}
