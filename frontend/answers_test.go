package frontend

import (
	"context"
	"testing"
	"time"
)

// TestAnswerRoom: a take past the room takes all of it; a take waits
// while the room is taken, and ends with its context; releasing twice
// gives the bytes back once; a nil room has room for anything.
func TestAnswerRoom(t *testing.T) {
	ctx := context.Background()
	r := NewAnswerRoom()
	release, err := r.Take(ctx, 2*AnswerRoomSize)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := r.Take(short, 1); err == nil {
		t.Fatal("a take while the whole room is taken succeeded")
	}
	release()
	release()
	half, err := r.Take(ctx, AnswerRoomSize/2)
	if err != nil {
		t.Fatal(err)
	}
	short2, cancel2 := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel2()
	if _, err := r.Take(short2, AnswerRoomSize/2+1); err == nil {
		t.Fatal("a second release gave the room back twice")
	}
	half()
	var none *AnswerRoom
	if rel, err := none.Take(ctx, 1<<40); err != nil {
		t.Fatal(err)
	} else {
		rel()
	}
}
