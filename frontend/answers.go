package frontend

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"
)

// AnswerRoomSize is the room of one connection's answers of the APIs
// that multiplex calls on a connection (HTTP/2, gRPC): the bytes its
// calls' answers hold at once, made or being made and not yet written.
// A client that reads nothing would otherwise have each of its streams
// hold the largest answer until the write timeout. The largest answer
// fits; a call beyond waits for room (while its client waits anyway),
// or until its stream is cancelled.
const AnswerRoomSize = 4 << 20

// AnswerRoom is one connection's room for answers (AnswerRoomSize). It is
// safe for concurrent use; a nil *AnswerRoom has room for anything.
type AnswerRoom struct{ sem *semaphore.Weighted }

// NewAnswerRoom is an empty room of AnswerRoomSize bytes.
func NewAnswerRoom() *AnswerRoom {
	return &AnswerRoom{sem: semaphore.NewWeighted(AnswerRoomSize)}
}

// Take waits for n bytes of the room (all of it, if n is more), or until
// ctx ends, and returns what gives them back; calling it more than once
// gives them back once.
func (r *AnswerRoom) Take(ctx context.Context, n int64) (release func(), err error) {
	if r == nil {
		return func() {}, nil
	}
	n = min(n, AnswerRoomSize)
	if err := r.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { r.sem.Release(n) }) }, nil
}
