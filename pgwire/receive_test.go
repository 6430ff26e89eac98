package pgwire

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// encodeAll encodes msgs as a client sends them.
func encodeAll(t testing.TB, msgs ...pgproto3.FrontendMessage) []byte {
	t.Helper()
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// repeating reads b over and over.
type repeating struct {
	b []byte
	i int
}

func (r *repeating) Read(p []byte) (int, error) {
	n := copy(p, r.b[r.i:])
	r.i = (r.i + n) % len(r.b)
	return n, nil
}

// TestReceivePreparedAllocs: reading a prepared statement's Bind,
// Execute and Sync, as drivers send them (a statement cache's name, a
// parameter, binary results), allocates nothing once the names are
// known (the issue's "no allocation per statement on the prepared
// path"; pgproto3's decoding allocated 5).
func TestReceivePreparedAllocs(t *testing.T) {
	req := encodeAll(t,
		&pgproto3.Bind{PreparedStatement: "stmtcache_3f8a9c2e", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 7}}, ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{},
		&pgproto3.Sync{})
	r := newReceiver(&repeating{b: req}, 1<<20)
	read := func() {
		for range 3 {
			if _, err := r.receive(); err != nil {
				t.Fatal(err)
			}
		}
	}
	read()
	if n := testing.AllocsPerRun(1000, read); n != 0 {
		t.Fatalf("%v allocations per Bind, Execute and Sync", n)
	}
}

// TestDecodeBindAsPgproto3: the receiver's Bind is pgproto3's, field for
// field, and it refuses what pgproto3 refuses, over well-formed messages
// and every truncation and many corruptions of them; a portal's result
// formats are not overwritten by the next Bind.
func TestDecodeBindAsPgproto3(t *testing.T) {
	msgs := []*pgproto3.Bind{
		{},
		{PreparedStatement: "s", DestinationPortal: "p"},
		{PreparedStatement: "stmtcache_1", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{1, 2}, nil, {}}, ResultFormatCodes: []int16{1}},
		{Parameters: [][]byte{[]byte("42")}, ResultFormatCodes: []int16{0}},
		{ParameterFormatCodes: []int16{0, 1, 0}, Parameters: [][]byte{nil, nil, []byte("x")}, ResultFormatCodes: []int16{0, 1, 1, 0}},
		{ResultFormatCodes: []int16{2}},
	}
	var bodies [][]byte
	for _, m := range msgs {
		b := encodeAll(t, m)[5:]
		bodies = append(bodies, b)
		for i := range b { // every truncation
			bodies = append(bodies, b[:i])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 { // corruptions: a byte of a message changed
		b := bytes.Clone(bodies[rng.IntN(len(bodies))])
		if len(b) > 0 {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		bodies = append(bodies, b)
	}
	r := newReceiver(nil, 0)
	var kept []int16
	var keptWas []int16
	for i, body := range bodies {
		var want pgproto3.Bind
		wantErr := want.Decode(body)
		gotErr := r.decodeBind(body)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("body %d %x: pgproto3 %v, receiver %v", i, body, wantErr, gotErr)
		}
		if wantErr != nil {
			continue
		}
		got := r.bind
		// None is none, whether nil or empty.
		for _, s := range []*[]int16{&got.ParameterFormatCodes, &want.ParameterFormatCodes, &got.ResultFormatCodes, &want.ResultFormatCodes} {
			if len(*s) == 0 {
				*s = nil
			}
		}
		for _, s := range []*[][]byte{&got.Parameters, &want.Parameters} {
			if len(*s) == 0 {
				*s = nil
			}
		}
		for j, p := range want.Parameters { // pgproto3's empty value is not nil
			if p != nil && len(p) == 0 && got.Parameters[j] != nil {
				got.Parameters[j] = p
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("body %d %x:\nreceiver %+v\npgproto3 %+v", i, body, got, want)
		}
		if kept != nil && !reflect.DeepEqual(kept, keptWas) {
			t.Fatalf("a kept portal's result formats %v became %v", keptWas, kept)
		}
		kept, keptWas = r.bind.ResultFormatCodes, bytes2(r.bind.ResultFormatCodes)
	}
}

func bytes2(s []int16) []int16 { return append([]int16(nil), s...) }

// TestReceiveFraming: the receiver's framing errors are pgproto3's,
// which the connection turns into its FATAL answers (TestMalformedMessages).
func TestReceiveFraming(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{[]byte{'z', 0, 0, 0, 4}, "unknown message type: z"},
		{[]byte{'Q', 0, 0, 0, 2}, "invalid message length: 2"},
		{[]byte{'Q', 0, 0, 0, 9, 's'}, io.ErrUnexpectedEOF.Error()},
		{[]byte{'Q', 0, 0}, io.ErrUnexpectedEOF.Error()},
	} {
		_, err := newReceiver(bytes.NewReader(c.in), 0).receive()
		if err == nil || err.Error() != c.want {
			t.Errorf("%x: %v, want %s", c.in, err, c.want)
		}
	}
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	_, err := newReceiver(bytes.NewReader([]byte{'Q', 0, 1, 0, 0}), 1000).receive()
	if !errors.As(err, &tooLong) || tooLong.ActualBodyLen != 65532 || tooLong.MaxExpectedBodyLen != 1000 {
		t.Errorf("a message past the bound: %v", err)
	}
	// A message larger than the read buffer, then a small one.
	big := encodeAll(t, &pgproto3.Query{String: string(bytes.Repeat([]byte{'x'}, 3*receiveBuffer))}, &pgproto3.Sync{})
	r := newReceiver(bytes.NewReader(big), 0)
	if m, err := r.receive(); err != nil || len(m.(*pgproto3.Query).String) != 3*receiveBuffer {
		t.Fatalf("a large query: %v", err)
	}
	if m, err := r.receive(); err != nil || reflect.TypeOf(m) != reflect.TypeOf(&pgproto3.Sync{}) {
		t.Fatalf("after a large query: %T %v", m, err)
	}
	for _, bad := range [][]byte{{0, 0, 0, 3}, {0, 0, 0x27, 0x20}} {
		if _, err := newReceiver(bytes.NewReader(bad), 0).receiveStartup(); err == nil {
			t.Errorf("startup packet %x accepted", bad)
		}
	}
}

// TestUnencryptedAfterSSLRequest: bytes a client sends after its
// SSLRequest, before the TLS handshake, are refused over TLS with
// PostgreSQL's 08P01, not read as the start of the encrypted session
// (CVE-2021-23214's lesson); other connections are unharmed.
func TestUnencryptedAfterSSLRequest(t *testing.T) {
	addr := startTLSServer(t)
	for _, injected := range [][]byte{nil, encodeAll(t, &pgproto3.Query{String: "select 1"})} {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(10 * time.Second))
		req := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), sslRequestCode)
		if _, err := nc.Write(append(req, injected...)); err != nil {
			t.Fatal(err)
		}
		var s [1]byte
		if _, err := io.ReadFull(nc, s[:]); err != nil || s[0] != 'S' {
			t.Fatalf("answer to SSLRequest: %q %v", s, err)
		}
		tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true})
		fe := pgproto3.NewFrontend(tc, tc)
		fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u", "database": "db"}})
		fe.Flush()
		m, err := fe.Receive()
		e, refused := m.(*pgproto3.ErrorResponse)
		switch {
		case injected == nil && (err != nil || refused):
			t.Fatalf("a clean TLS startup: %T %+v %v", m, m, err)
		case injected != nil && (!refused || e.Code != "08P01" || e.Message != "received unencrypted data after SSL request"):
			t.Fatalf("bytes in the clear after SSLRequest: %T %+v %v", m, m, err)
		}
	}
}
