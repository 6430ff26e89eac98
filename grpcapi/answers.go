package grpcapi

import (
	"context"
	"sync"

	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // the codec answers wraps
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// The answers a connection's calls hold until they are written are
// bounded (frontend.AnswerRoomSize: two of the largest fit): grpc-go queues a unary call's answer, encoded,
// once its handler returns, and holds it until the client's flow-control
// window lets it out. A client that reads nothing (a window of 0) would
// otherwise have each of its 256 streams hold the largest answer
// (MaxValues values, about 1 MB) for as long as it keeps the connection.
//
//  1. A Next of more than one value first takes room for its answer from
//     its connection's (roomFor), waiting while there is none (its client
//     waits anyway), or until the call is cancelled;
//  2. the answer's room goes with the answer (pending) to the codec
//     (answerCodec), which encodes it into a buffer that gives the room
//     back when grpc-go frees it: once written, or dropped with its
//     stream or a failed call.

// bytesPerValue is what one value of an answer holds while it is made
// and written: the value, and its varint (10 bytes at most).
const bytesPerValue = 8 + 10

// roomFor waits for n bytes of the answer room of the call's connection
// (all of it, if n is more), and returns what gives them back.
func roomFor(ctx context.Context, n int64) (release func(), err error) {
	t := trackedOf(ctx)
	if t == nil {
		return func() {}, nil
	}
	return t.answers.Take(ctx, n)
}

// pending is the room of each answer a handler returned and the codec
// has not encoded yet: *seqdv1.NextResponse to func(). grpc-go encodes
// every answer a handler returns without an error, at once.
var pending sync.Map

// answerCodec is the server's proto codec: an answer with room in
// pending is encoded into a buffer that gives it back when freed; any
// other message as grpc-go's codec does.
type answerCodec struct{ encoding.CodecV2 }

func newAnswerCodec() answerCodec { return answerCodec{encoding.GetCodecV2("proto")} }

func (c answerCodec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(*seqdv1.NextResponse)
	if !ok {
		return c.CodecV2.Marshal(v)
	}
	rel, ok := pending.LoadAndDelete(r)
	if !ok {
		return c.CodecV2.Marshal(v)
	}
	release := rel.(func())
	b, err := proto.Marshal(r)
	if err != nil || mem.IsBelowBufferPoolingThreshold(cap(b)) {
		release() // a small buffer is not freed: it needs no room
		return mem.BufferSlice{mem.SliceBuffer(b)}, err
	}
	return mem.BufferSlice{mem.NewBuffer(&b, releaser(release))}, nil
}

// releaser is the "pool" of one answer's buffer: its Put, when grpc-go
// frees the buffer, gives the answer's room back.
type releaser func()

func (r releaser) Get(n int) *[]byte {
	b := make([]byte, n)
	return &b
}

func (r releaser) Put(*[]byte) { r() }
