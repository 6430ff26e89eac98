package pgwire

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// BenchmarkPrepared is the hot path of a driver that prepares: Bind,
// Execute and Sync of a prepared "select nextval('s')" (CACHE 100000),
// answered by BindComplete, DataRow, CommandComplete and ReadyForQuery,
// one round trip at a time over loopback. The client writes bytes
// encoded once and reads the answer as bytes, allocating nothing, so
// allocs/op are the server's per statement (issue: the hot paths — no
// allocation per statement on the prepared path). CACHE 100000: the
// engine's writes are out of the way.
func BenchmarkPrepared(b *testing.B) {
	benchStatement(b, true)
}

// BenchmarkSimple is the same statement as a simple Query message.
func BenchmarkSimple(b *testing.B) {
	benchStatement(b, false)
}

func benchStatement(b *testing.B, prepared bool) {
	dsn, _ := startServer(b)
	u, _ := url.Parse(dsn)
	nc, err := net.Dial("tcp", u.Host)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReaderSize(nc, 4096)
	var buf []byte
	enc := func(msgs ...pgproto3.FrontendMessage) []byte {
		out := []byte(nil)
		for _, m := range msgs {
			out, err = m.Encode(out)
			if err != nil {
				b.Fatal(err)
			}
		}
		return out
	}
	// untilReady reads messages up to ReadyForQuery, failing on an
	// ErrorResponse.
	n := make([]byte, 4)
	untilReady := func() {
		for {
			typ, err := r.ReadByte()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(r, n); err != nil {
				b.Fatal(err)
			}
			body := int(binary.BigEndian.Uint32(n)) - 4
			if typ == 'E' {
				msg, _ := r.Peek(min(body, r.Buffered()))
				b.Fatalf("error response: %q", msg)
			}
			if _, err := r.Discard(body); err != nil {
				b.Fatal(err)
			}
			if typ == 'Z' {
				return
			}
		}
	}
	startup := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "u", "database": "db"}})
	buf, _ = startup.Encode(nil)
	nc.Write(buf)
	untilReady()
	nc.Write(enc(&pgproto3.Query{String: "create sequence s cache 100000"}))
	untilReady()
	var req []byte
	if prepared {
		nc.Write(enc(&pgproto3.Parse{Name: "p", Query: "select nextval('s')"}, &pgproto3.Sync{}))
		untilReady()
		req = enc(&pgproto3.Bind{PreparedStatement: "p", ResultFormatCodes: []int16{1}}, &pgproto3.Execute{}, &pgproto3.Sync{})
	} else {
		req = enc(&pgproto3.Query{String: "select nextval('s')"})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := nc.Write(req); err != nil {
			b.Fatal(err)
		}
		untilReady()
	}
}
