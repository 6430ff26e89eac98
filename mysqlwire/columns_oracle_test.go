package mysqlwire

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
)

// The oracle compares a result's columns as MySQL's protocol describes
// them, read off the wire under go-sql-driver/mysql (wireTap): each
// column definition's type (MYSQL_TYPE_*), the flags a client decodes
// by (NOT NULL, UNSIGNED, BINARY), its decimals, its character set as
// binary or text (the text's collation is the connection's, which the
// two servers name differently). Not its length: MariaDB's is advisory
// (no driver decodes by it) and computed per function from its
// arguments' lengths and the server's own values (@@version_comment's
// is its text's), which seqd does not follow. A prepared statement's
// columns are compared as COM_STMT_EXECUTE describes them, the ones a
// client decodes the binary rows by.

// oracleConn is one connection of the oracle, the server's bytes to it
// kept by wire (nil: column definitions are not compared).
type oracleConn struct {
	*sql.Conn
	wire *wireTap
}

// wireTap is a connection that keeps what the server sent since reset.
// Safe for concurrent use (the driver reads, the test resets and takes).
type wireTap struct {
	net.Conn
	mu   sync.Mutex
	seen []byte
}

func (w *wireTap) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.mu.Lock()
	w.seen = append(w.seen, p[:n]...)
	w.mu.Unlock()
	return n, err
}

func (w *wireTap) reset() {
	w.mu.Lock()
	w.seen = w.seen[:0]
	w.mu.Unlock()
}

func (w *wireTap) take() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.seen...)
}

// tappedConn is one connection to dsn's server, database db, whose
// server bytes are kept.
func tappedConn(t *testing.T, dsn, db string) *oracleConn {
	t.Helper()
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = db
	var tap *wireTap
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tap = &wireTap{Conn: nc}
		return tap, nil
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool := sql.OpenDB(conn)
	t.Cleanup(func() { pool.Close() })
	c, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &oracleConn{Conn: c, wire: tap}
}

// seqdDSN is the data source name open uses for user on addr.
func seqdDSN(addr, user string) string { return fmt.Sprintf("%s:%s pw@tcp(%s)/", user, user, addr) }

// columnsOf describes the columns of the last result in what the server
// sent for one statement: a query's response, or a prepared statement's
// COM_STMT_PREPARE response and then its COM_STMT_EXECUTE's (prepared).
// "" when it has no result set.
func columnsOf(stream []byte, prepared bool) string {
	var responses [][][]byte
	for len(stream) >= 4 {
		n := int(stream[0]) | int(stream[1])<<8 | int(stream[2])<<16
		if len(stream) < 4+n {
			break
		}
		if stream[3] == 1 || len(responses) == 0 {
			responses = append(responses, nil)
		}
		responses[len(responses)-1] = append(responses[len(responses)-1], stream[4:4+n])
		stream = stream[4+n:]
	}
	var fromPrepare []string // the columns COM_STMT_PREPARE described
	if prepared {
		if len(responses) < 2 {
			return ""
		}
		if p := responses[0]; len(p[0]) >= 9 && p[0][0] == 0 {
			cols, params := int(binary.LittleEndian.Uint16(p[0][5:])), int(binary.LittleEndian.Uint16(p[0][7:]))
			defs := p[1:]
			if params > 0 {
				defs = defs[min(len(defs), params+1):] // and their EOF
			}
			for i := 0; i < cols && i < len(defs); i++ {
				fromPrepare = append(fromPrepare, columnDefinition(defs[i]))
			}
		}
		responses = responses[1:] // the execute's
	}
	if len(responses) == 0 {
		return ""
	}
	r := responses[0]
	if len(r) == 0 || len(r[0]) == 0 || r[0][0] == 0 || r[0][0] == 0xff {
		return ""
	}
	if last := r[len(r)-1]; len(last) > 0 && last[0] == 0xff {
		// A statement that failed after its columns were sent (MariaDB
		// sends them before NEXTVAL fails; seqd fails first): the
		// client has the error, no result to decode.
		return ""
	}
	count, size := lenEnc(r[0])
	if size < len(r[0]) && r[0][size] == 0 {
		// MariaDB's metadata cache (MARIADB_CLIENT_CACHE_METADATA, which
		// go-sql-driver announces): the execute sends none, the client
		// decodes by the prepare's.
		return strings.Join(fromPrepare, ", ")
	}
	var cols []string
	for i := 1; i <= int(count) && i < len(r); i++ {
		cols = append(cols, columnDefinition(r[i]))
	}
	return strings.Join(cols, ", ")
}

// lenEnc is a length-encoded integer at p's start and its size.
func lenEnc(p []byte) (uint64, int) {
	switch {
	case p[0] < 0xfb:
		return uint64(p[0]), 1
	case p[0] == 0xfc:
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3
	case p[0] == 0xfd:
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4
	}
	return binary.LittleEndian.Uint64(p[1:]), 9
}

// mysqlTypeNames are MYSQL_TYPE_*'s names, by number.
var mysqlTypeNames = map[byte]string{
	0: "DECIMAL", 1: "TINY", 2: "SHORT", 3: "LONG", 4: "FLOAT", 5: "DOUBLE", 6: "NULL", 7: "TIMESTAMP", 8: "LONGLONG",
	9: "INT24", 10: "DATE", 11: "TIME", 12: "DATETIME", 13: "YEAR", 15: "VARCHAR", 16: "BIT", 246: "NEWDECIMAL",
	247: "ENUM", 248: "SET", 249: "TINY_BLOB", 250: "MEDIUM_BLOB", 251: "LONG_BLOB", 252: "BLOB", 253: "VAR_STRING",
	254: "STRING", 255: "GEOMETRY",
}

// columnDefinition describes a Protocol::ColumnDefinition41 packet: type,
// decimals, the flags a client decodes by, binary or text.
func columnDefinition(p []byte) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("malformed %q", p)
		}
	}()
	for range 6 { // catalog, schema, table, org_table, name, org_name
		n, size := lenEnc(p)
		p = p[size+int(n):]
	}
	p = p[1:] // the fixed fields' length, 0x0c
	charset, length, typ := binary.LittleEndian.Uint16(p), binary.LittleEndian.Uint32(p[2:]), p[6]
	flags, decimals := binary.LittleEndian.Uint16(p[7:]), p[9]
	name, ok := mysqlTypeNames[typ]
	if !ok {
		name = fmt.Sprint("type ", typ)
	}
	_ = length // not compared: see above
	s = fmt.Sprintf("%s(%d)", name, decimals)
	for _, f := range []struct {
		bit  uint16
		name string
	}{{1, " NOT NULL"}, {32, " UNSIGNED"}, {128, " BINARY"}} {
		if flags&f.bit != 0 {
			s += f.name
		}
	}
	if charset == 63 {
		return s + " binary"
	}
	return s + " text"
}
