package mysql

// Tests of seqd's changes that upstream's tests kept here and the
// handshake fuzz test do not cover (mysqlwire's tests cover them over
// seqd's front end too).

import (
	"bytes"
	"context"
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// TestReplicationCommands: COM_REGISTER_SLAVE, COM_BINLOG_DUMP and
// COM_BINLOG_DUMP_GTID are answered 1047, as unknown commands, and the
// connection goes on (item 12 of the README: for two of them upstream
// did not recycle the packet it read, and the next read panicked).
func TestReplicationCommands(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()
	sConn.listener = &Listener{shutdownCh: make(chan struct{})} // for COM_PING
	ctx := context.Background()

	for _, cmd := range []byte{ComRegisterReplica, 0x12, ComBinlogDumpGTID} {
		if err := writeRawPacketToConn(cConn, append([]byte{cmd}, make([]byte, 11)...)); err != nil {
			t.Fatalf("writing command 0x%02x: %v", cmd, err)
		}
		if err := sConn.handleNextCommand(ctx, &testHandler{}); err != nil {
			t.Fatalf("command 0x%02x: %v", cmd, err)
		}
		data, err := cConn.ReadPacket(ctx)
		if err != nil || len(data) == 0 || !isErrorPacket(data) {
			t.Fatalf("command 0x%02x: %v %v, want an error packet", cmd, data, err)
		}
		if se := ParseErrorPacket(data).(*SQLError); se.Num != ERUnknownComError || se.State != SSUnknownComError {
			t.Fatalf("command 0x%02x: %v, want 1047 (08S01)", cmd, se)
		}

		// The connection goes on.
		if err := writeRawPacketToConn(cConn, []byte{ComPing}); err != nil {
			t.Fatalf("writing COM_PING: %v", err)
		}
		if err := sConn.handleNextCommand(ctx, &testHandler{}); err != nil {
			t.Fatalf("COM_PING after command 0x%02x: %v", cmd, err)
		}
		if data, err := cConn.ReadPacket(ctx); err != nil || len(data) == 0 || data[0] != OKPacket {
			t.Fatalf("COM_PING after command 0x%02x: %v %v", cmd, data, err)
		}
	}
}

// prepareHandler is a Handler whose ComPrepare keeps what it was given
// and says the statement has two parameters.
type prepareHandler struct {
	testHandler
	query string
}

func (h *prepareHandler) ComPrepare(ctx context.Context, c *Conn, query string, prepare *PrepareData) ([]*querypb.Field, error) {
	h.query = query
	prepare.ParamsCount = 2
	prepare.ParamsType = make([]int32, 2)
	prepare.BindVars = make(map[string]*querypb.BindVariable, 2)
	return nil, nil
}

// TestComStmtPrepareUnparsed: COM_STMT_PREPARE hands the statement to
// the Handler as it came, several statements too when the client may
// send several, and the parameters the Handler counted are the ones
// announced (item 2 of the README: upstream parsed it first with Dolt's
// grammar, split it into statements and counted them).
func TestComStmtPrepareUnparsed(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()
	sConn.PrepareData = make(map[uint32]*PrepareData)
	sConn.Capabilities |= CapabilityClientMultiStatements
	ctx := context.Background()

	for _, sql := range []string{"CREATE SEQUENCE s START WITH ?", "SELECT PREVIOUS VALUE FOR s, ?", "select ?; select ?;"} {
		h := &prepareHandler{}
		if err := writeRawPacketToConn(cConn, MockQueryPackets(t, sql)); err != nil {
			t.Fatalf("writePacket failed: %v", err)
		}
		if err := sConn.handleNextCommand(ctx, h); err != nil {
			t.Fatalf("%q: handleNextCommand failed: %v", sql, err)
		}
		if h.query != sql {
			t.Errorf("the Handler prepared %q, want %q", h.query, sql)
		}
		resp, err := cConn.ReadPacket(ctx)
		if err != nil || len(resp) != 12 || resp[0] != OKPacket {
			t.Fatalf("%q: %v %v, want the prepare's OK", sql, resp, err)
		}
		stmtID, _, _ := readUint32(resp, 1)
		params, _, _ := readUint16(resp, 7)
		if prepare := sConn.PrepareData[stmtID]; prepare == nil || prepare.PrepareStmt != sql || params != 2 {
			t.Fatalf("%q: statement %d (%v) with %d parameters, want it kept with 2", sql, stmtID, prepare, params)
		}
		for i := 0; i < 2; i++ { // the parameters' definitions
			if _, err := cConn.ReadPacket(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if data, err := cConn.ReadPacket(ctx); err != nil || !isEOFPacket(data) {
			t.Fatalf("%q: %v %v, want EOF after the parameters", sql, data, err)
		}
	}
}

// TestBinaryTemporal: DATE, DATETIME, TIMESTAMP and TIME in the binary
// protocol, as rows (val2MySQL) and as parameters read back
// (parseStmtArgs). seqd split both functions, and made each of their
// temporal cases one; the encodings are upstream's, taken from its code
// (which was also compared with the new on random values when it was
// split).
func TestBinaryTemporal(t *testing.T) {
	for _, test := range []struct {
		typ          querypb.Type
		text         string
		encoded      []byte
		parsed, fail string
	}{
		{typ: sqltypes.Datetime, text: "2024-01-02 03:04:05.123456",
			encoded: []byte{0xb, 0xe8, 0x7, 0x1, 0x2, 0x3, 0x4, 0x5, 0x40, 0xe2, 0x1, 0x0}, parsed: "2024-1-2 3:4:5.123456"},
		{typ: sqltypes.Datetime, text: "2024-01-02 03:04:05.5",
			encoded: []byte{0xb, 0xe8, 0x7, 0x1, 0x2, 0x3, 0x4, 0x5, 0x20, 0xa1, 0x7, 0x0}, parsed: "2024-1-2 3:4:5.500000"},
		{typ: sqltypes.Datetime, text: "2024-01-02 03:04:05", encoded: []byte{0x7, 0xe8, 0x7, 0x1, 0x2, 0x3, 0x4, 0x5}, parsed: "2024-1-2 3:4:5"},
		{typ: sqltypes.Date, text: "2024-01-02", encoded: []byte{0x4, 0xe8, 0x7, 0x1, 0x2}, parsed: "2024-1-2"},
		{typ: sqltypes.Timestamp, text: "", encoded: []byte{0x0}, parsed: " "},
		{typ: sqltypes.Time, text: "00:00:00", encoded: []byte{0x0}, parsed: "00:00:00"},
		{typ: sqltypes.Time, text: "-838:59:59", encoded: []byte{0x8, 0x1, 0x22, 0x0, 0x0, 0x0, 0x16, 0x3b, 0x3b}, parsed: "-838:59:59"},
		{typ: sqltypes.Time, text: "25:01:02.000003",
			encoded: []byte{0xc, 0x0, 0x1, 0x0, 0x0, 0x0, 0x1, 0x1, 0x2, 0x3, 0x0, 0x0, 0x0}, parsed: "25:1:2.3"},
		{typ: sqltypes.Time, text: "12:34", fail: "incorrect time value, ':' is not found"},
		{typ: sqltypes.Time, text: "1:2:3.4.5", fail: "incorrect time value, '.' is not found"},
		{typ: sqltypes.Date, text: "20x4-01-02", fail: `strconv.ParseUint: parsing "20x4": invalid syntax`},
	} {
		v := sqltypes.MakeTrusted(test.typ, []byte(test.text))
		got, err := val2MySQL(v)
		if test.fail != "" {
			if err == nil || err.Error() != test.fail {
				t.Errorf("%v %q: %v, want %s", test.typ, test.text, err, test.fail)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, test.encoded) {
			t.Errorf("%v %q: %#v %v, want %#v", test.typ, test.text, got, err, test.encoded)
		}
		if n, err := val2MySQLLen(v); err != nil || n != len(test.encoded) {
			t.Errorf("%v %q: length %d %v, want %d", test.typ, test.text, n, err, len(test.encoded))
		}
		back, pos, ok := (&Conn{}).parseStmtArgs(test.encoded, test.typ, 0)
		if !ok || pos != len(test.encoded) || back.ToString() != test.parsed {
			t.Errorf("%v %#v: read back as %v %d %v, want %q", test.typ, test.encoded, back, pos, ok, test.parsed)
		}
		if _, _, ok := (&Conn{}).parseStmtArgs(test.encoded[:len(test.encoded)-1], test.typ, 0); ok && len(test.encoded) > 1 {
			t.Errorf("%v %#v: read back cut short", test.typ, test.encoded)
		}
	}
}

// TestBlobTypes: a Text or Blob field marked MediumBlobFlag or
// LongBlobFlag is sent as MYSQL_TYPE_MEDIUM_BLOB (250) or
// MYSQL_TYPE_LONG_BLOB (251), and its flags' 16 bits without the mark;
// the marks mean nothing on another type (item 16 of the README).
func TestBlobTypes(t *testing.T) {
	listener, sConn, cConn := createSocketPair(t)
	defer func() {
		listener.Close()
		sConn.Close()
		cConn.Close()
	}()
	binary := uint32(querypb.MySqlFlag_BINARY_FLAG)
	for _, test := range []struct {
		typ         querypb.Type
		flags       uint32
		wantType    byte
		wantFlags   uint16
		description string
	}{
		{querypb.Type_TEXT, 0, 252, 0, "a Text field"},
		{querypb.Type_BLOB, 0, 252, uint16(binary), "a Blob field, its flags TypeToMySQL's"},
		{querypb.Type_TEXT, MediumBlobFlag, 250, 0, "a Text field marked MediumBlobFlag"},
		{querypb.Type_TEXT, LongBlobFlag, 251, 0, "a Text field marked LongBlobFlag"},
		{querypb.Type_BLOB, LongBlobFlag | binary, 251, uint16(binary), "a Blob field marked LongBlobFlag"},
		{querypb.Type_BLOB, MediumBlobFlag | binary | 1, 250, uint16(binary | 1), "a NOT NULL Blob field marked MediumBlobFlag"},
		{querypb.Type_VARCHAR, LongBlobFlag, 253, 0, "a VarChar field marked LongBlobFlag"},
	} {
		if err := sConn.writeColumnDefinition(&querypb.Field{Name: "x", Type: test.typ, Flags: test.flags}, false); err != nil {
			t.Fatalf("%s: %v", test.description, err)
		}
		data, err := cConn.ReadPacket(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", test.description, err)
		}
		// "def", four empty names but the column's "x", 0x0c, the
		// character set and the length before the type.
		const typeAt = 4 + 1 + 1 + 1 + 2 + 1 + 1 + 2 + 4
		if len(data) < typeAt+3 {
			t.Fatalf("%s: a column definition of %d bytes", test.description, len(data))
		}
		typ, flags := data[typeAt], uint16(data[typeAt+1])|uint16(data[typeAt+2])<<8
		if typ != test.wantType || flags != test.wantFlags {
			t.Errorf("%s: sent as type %d, flags %d; want %d, %d", test.description, typ, flags, test.wantType, test.wantFlags)
		}
	}
}
