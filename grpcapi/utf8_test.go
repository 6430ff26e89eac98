package grpcapi

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
)

// rawCodec sends and receives messages as their encoded bytes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(d mem.BufferSlice, v any) error {
	*v.(*[]byte) = d.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

// TestNameNotUTF8: a name that is not valid UTF-8 cannot reach seqd over
// gRPC: protobuf's string fields are UTF-8, which a client's encoder
// checks and, for a message made by hand, the server's decoder: the call
// fails with INTERNAL (grpc-go's code for a request it cannot decode,
// whatever the codec says) and "invalid UTF-8", before any statement.
func TestNameNotUTF8(t *testing.T) {
	_, conn, _ := serve(t, Config{})
	in := []byte{0x0a, 0x03, 0x12, 0x01, 0xff} // NextRequest{sequence: {name: "\xff"}}
	var out []byte
	err := conn.Invoke(context.Background(), "/seqd.v1.Sequences/Next", &in, &out, grpc.ForceCodecV2(rawCodec{}))
	st := status.Convert(err)
	if st.Code() != codes.Internal || !strings.Contains(st.Message(), "invalid UTF-8") {
		t.Fatalf("a name not valid UTF-8: %v", err)
	}
}
