package torture

// The hostile soak's attacks on the gRPC service. The first messages of
// the attacks that do not log in are HTTP/2 written by hand (x/net's
// framer and HPACK encoder), so that they can be dribbled, cut or
// garbled; the rest use grpc-go.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// h2Call is what an HTTP/2 client sends to make one gRPC call: the
// preface, its SETTINGS, the call's HEADERS with extra fields, and msg
// as the call's one message, in DATA frames of at most 16 KiB.
func h2Call(path string, extra []hpack.HeaderField, msg []byte) []byte {
	var buf, block bytes.Buffer
	buf.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&buf, nil)
	fr.WriteSettings()
	enc := hpack.NewEncoder(&block)
	for _, f := range []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"}, {Name: ":path", Value: path},
		{Name: ":authority", Value: "127.0.0.1"}, {Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"}} {
		enc.WriteField(f)
	}
	for _, f := range extra {
		enc.WriteField(f)
	}
	fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true})
	data := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	data = append(data, msg...)
	for len(data) > 16<<10 {
		fr.WriteData(1, false, data[:16<<10])
		data = data[16<<10:]
	}
	fr.WriteData(1, true, data)
	return buf.Bytes()
}

func nextRequest(schema, name string, count int64) []byte {
	b, err := proto.Marshal(&seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: schema, Name: name}, Count: count})
	if err != nil {
		panic(err) // the harness's own message
	}
	return b
}

func (r *hostileRun) grpcEndpoint() hostileEndpoint {
	auth := hpack.HeaderField{Name: "authorization", Value: basicHeader(hostileMallory, hostileMalloryPW)}
	next := "/seqd.v1.Sequences/Next"
	return hostileEndpoint{
		proto: "grpc",
		first: func(*rand.Rand) []byte {
			return h2Call(next, []hpack.HeaderField{auth, {Name: "user-agent", Value: strings.Repeat("u", 300)}}, nextRequest("public", hostileBulk, 1))
		},
		big: func(*rand.Rand) []byte {
			return h2Call(next, []hpack.HeaderField{auth}, nextRequest("public", strings.Repeat("n", oversize), 1))
		},
		garbage: func(rng *rand.Rand) []byte {
			if rng.IntN(3) == 0 {
				return mutate(rng, h2Call(next, []hpack.HeaderField{auth}, nextRequest("public", hostileBulk, 1)))
			}
			var buf bytes.Buffer
			buf.WriteString(http2.ClientPreface)
			fr := http2.NewFramer(&buf, nil)
			fr.WriteSettings()
			for range 1 + rng.IntN(5) { // frames of any type, flags, stream and payload
				fr.WriteRawFrame(http2.FrameType(rng.IntN(10)), http2.Flags(rng.Uint32()), rng.Uint32()&(1<<31-1), randomBytes(rng, rng.IntN(1024)))
			}
			return buf.Bytes()
		},
		idle: func(nc net.Conn) { // a health check (a call, with no credentials), then idle
			nc.SetDeadline(time.Now().Add(2 * time.Second))
			nc.Write(h2Call("/grpc.health.v1.Health/Check", nil, nil))
			nc.Read(make([]byte, 4096))
			nc.SetDeadline(time.Time{})
		},
	}
}

// grpcOutcome counts a call's outcome. INTERNAL or UNKNOWN fails the
// run (seqd maps every failure it knows to another code), but for
// grpc-go's own INTERNAL for a request that does not parse as protobuf
// (a string not UTF-8 included), which gRPC's table of status codes
// prescribes.
func (r *hostileRun) grpcOutcome(kind, what string, err error) codes.Code {
	code := status.Code(err)
	outcome := code.String()
	switch {
	case code == codes.Internal && strings.HasPrefix(status.Convert(err).Message(), "grpc: error unmarshalling request"):
		outcome += " (not protobuf)"
	case code == codes.Internal, code == codes.Unknown:
		r.fail(fmt.Sprintf("%s on grpc: %s answered %s: %v", kind, what, code, err))
	}
	r.attacked(kind, "grpc", outcome)
	return code
}

// rawCodec passes a call's message through as bytes: the malformed
// calls send protobuf written by hand (proto.Marshal refuses a string
// that is not UTF-8) or no protobuf at all.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *v.(*[]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*v.(*[]byte) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// rawRequest is a NextRequest or ReserveRequest (sequence, count), or a
// ReleaseRequest (sequence, first, last), encoded by hand: the strings
// go as they are.
func rawRequest(schema, name string, numbers ...int64) []byte {
	var seq, b []byte
	seq = protowire.AppendTag(seq, 1, protowire.BytesType)
	seq = protowire.AppendString(seq, schema)
	seq = protowire.AppendTag(seq, 2, protowire.BytesType)
	seq = protowire.AppendString(seq, name)
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, seq)
	for i, n := range numbers {
		b = protowire.AppendTag(b, protowire.Number(2+i), protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(n))
	}
	return b
}

// grpcMalformed calls as mallory with the fuzz corpus's names, counts
// and ranges out of range, and messages that are not protobuf.
func (r *hostileRun) grpcMalformed(rng *rand.Rand) {
	conn, _, err := r.grpcDial(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkMalformed, "grpc", "dial failed: "+errClass(err))
		return
	}
	defer conn.Close()
	names := r.corpus.names
	methods := []string{"Next", "Reserve", "Release"}
	for range 5 {
		schema, name := names[rng.IntN(len(names))], names[rng.IntN(len(names))]
		if rng.IntN(2) == 0 {
			schema, name = "public", hostileBulk
		}
		numbers := []int64{-1, 0, 1 << 40, -1 << 63, 100_001, int64(rng.Uint64())}
		method := methods[rng.IntN(len(methods))]
		var msg []byte
		what := fmt.Sprintf("%s(%q, %q", method, clip([]byte(schema)), clip([]byte(name)))
		switch rng.IntN(4) {
		case 0:
			msg = randomBytes(rng, rng.IntN(256))
			what = fmt.Sprintf("%s(%d random bytes", method, len(msg))
		case 1:
			msg = mutate(rng, rawRequest(schema, name, 1))
			what = method + "(a mutated request"
		default:
			n := []int64{numbers[rng.IntN(len(numbers))]}
			if method == "Release" {
				n = append(n, numbers[rng.IntN(len(numbers))])
			}
			msg = rawRequest(schema, name, n...)
			what += fmt.Sprint(", ", n)
		}
		ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
		var resp []byte
		err := conn.Invoke(ctx, "/seqd.v1.Sequences/"+method, &msg, &resp, grpc.ForceCodec(rawCodec{}))
		cancel()
		r.grpcOutcome(atkMalformed, what+")", err)
	}
}

// grpcOversized calls Next as mallory with a name of oversize bytes: it
// must be refused.
func (r *hostileRun) grpcOversized() {
	conn, cl, err := r.grpcDial(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkOversized, "grpc", "dial failed: "+errClass(err))
		return
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	_, err = cl.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: strings.Repeat("n", oversize)}})
	if err == nil {
		r.fail(fmt.Sprintf("oversized on grpc: a request of %d bytes was served", oversize))
	}
	r.grpcOutcome(atkOversized, "a request of 2 MiB", err)
}

// grpcSlowReader opens a Ranges stream of h_bulk as mallory and sends
// requests without reading an answer for 5 to 15 s.
func (r *hostileRun) grpcSlowReader(rng *rand.Rand, stop <-chan struct{}) {
	conn, cl, err := r.grpcDial(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkSlowReader, "grpc", "dial failed: "+errClass(err))
		return
	}
	defer conn.Close()
	hold := jitter(rng, 5*time.Second, 15*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), hold)
	defer cancel()
	st, err := cl.Ranges(ctx)
	if err != nil {
		r.attacked(atkSlowReader, "grpc", "stream refused: "+errClass(err))
		return
	}
	sent := 0
	for ; sent < 100_000 && !stopped(stop); sent++ {
		if st.Send(&seqdv1.ReserveRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: hostileBulk}, Count: 100}) != nil {
			break // flow control held the stream until the deadline, or seqd ended it
		}
	}
	select {
	case <-ctx.Done():
	case <-stop:
	}
	r.attacked(atkSlowReader, "grpc", "stream held")
}

// grpcDisconnect cancels calls in flight.
func (r *hostileRun) grpcDisconnect(rng *rand.Rand) {
	conn, cl, err := r.grpcDial(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkDisconnect, "grpc", "dial failed: "+errClass(err))
		return
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(3000))*time.Microsecond)
	defer cancel()
	if rng.IntN(2) == 0 {
		cl.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: hostileBulk}, Count: 100_000})
		r.attacked(atkDisconnect, "grpc", "call cancelled in flight")
		return
	}
	if st, err := cl.Ranges(ctx); err == nil {
		st.Send(&seqdv1.ReserveRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: hostileBulk}, Count: 1000})
	}
	cancel()
	r.attacked(atkDisconnect, "grpc", "stream cancelled in flight")
}

// grpcBadLogin calls for app's values with wrong credentials:
// UNAUTHENTICATED, never a value.
func (r *hostileRun) grpcBadLogin(rng *rand.Rand) {
	user, pw := wrongLogin(rng)
	conn, cl, err := r.grpcDial(user, pw)
	if err != nil {
		r.attacked(atkBadLogin, "grpc", "dial failed: "+errClass(err))
		return
	}
	defer conn.Close()
	_, err = grpcNext(cl, "h_nocache", 1)
	if err == nil {
		r.fail(fmt.Sprintf("bad login on grpc: %s with a wrong password was served", user))
	}
	r.grpcOutcome(atkBadLogin, "Next with a wrong password", err)
}

// grpcPrivilege calls as mallory what it may not: PERMISSION_DENIED.
func (r *hostileRun) grpcPrivilege() {
	conn, cl, err := r.grpcDial(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkPrivilege, "grpc", "dial failed: "+errClass(err))
		return
	}
	defer conn.Close()
	for _, s := range hostileSeqs {
		seq := &seqdv1.Sequence{Schema: "public", Name: s.name}
		calls := []struct {
			what string
			call func(context.Context) error
		}{
			{"Next", func(ctx context.Context) error {
				_, err := cl.Next(ctx, &seqdv1.NextRequest{Sequence: seq})
				return err
			}},
			{"Reserve", func(ctx context.Context) error {
				_, err := cl.Reserve(ctx, &seqdv1.ReserveRequest{Sequence: seq, Count: 10})
				return err
			}},
			{"Release", func(ctx context.Context) error {
				_, err := cl.Release(ctx, &seqdv1.ReleaseRequest{Sequence: seq, First: 1, Last: 2})
				return err
			}},
		}
		for _, c := range calls {
			ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
			err := c.call(ctx)
			cancel()
			if err == nil {
				r.fail(fmt.Sprintf("privilege on grpc: mallory's %s of %s succeeded", c.what, s.name))
			}
			r.grpcOutcome(atkPrivilege, c.what+" of "+s.name, err)
		}
	}
}
