package mysqlwire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/seqd/seqd/internal/testenv"
)

// TestLongDataBounded: COM_STMT_SEND_LONG_DATA is bounded per parameter
// by max_allowed_packet and per statement by the statement memory budget,
// whatever the client sends in between (a COM_PING after each chunk used
// to keep the per-message bound from seeing the total: 418 MB sent held
// 1.85 GB): what the server holds does not grow with what is sent, the
// EXECUTE fails as MariaDB 10.11 fails it (1105, its words), and the
// connection and the others go on.
func TestLongDataBounded(t *testing.T) {
	const max, budget = 64 << 10, 256 << 10
	s := serve(t, testenv.MemEngine(t), Config{MaxMessage: max, MaxStatementMemory: budget})
	addr := s.Addr().String()
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	one := c.prepare("SELECT CONCAT(?)")
	chunk := bytes.Repeat([]byte("x"), 60<<10)
	before := heapAlloc()
	const chunks = 500 // 30 MB
	for i := range chunks {
		c.longData(one, 0, chunk)
		if p := c.ping(); p[0] != 0 {
			t.Fatalf("COM_PING after %d chunks of long data: %s", i+1, describe(p))
		}
		if held := s.l.LongDataBuffered(); held > max {
			t.Fatalf("after %d chunks of long data, %d bytes held, past max_allowed_packet (%d)", i+1, held, max)
		}
	}
	if grew := heapAlloc() - before; grew > 16<<20 {
		t.Fatalf("the heap grew by %d bytes with %d bytes of long data sent", grew, chunks*len(chunk))
	}
	const tooLong = "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes"
	if p, _ := c.execute(one, 1); !isError(p, 1105, "HY000", tooLong) {
		t.Fatalf("EXECUTE after long data past max_allowed_packet: %s, want 1105 (HY000) %s", describe(p), tooLong)
	}
	c.longData(one, 0, []byte("abc"))
	if p, rows := c.execute(one, 1); p[0] == 0xff || len(rows) != 1 || oneString(rows[0]) != "abc" {
		t.Fatalf("the statement again, with long data within bounds: %s %q", describe(p), rows)
	}
	// Five parameters each within max_allowed_packet, together past the
	// statement memory budget.
	five := c.prepare("SELECT CONCAT(?, ?, ?, ?, ?)")
	for i := range 5 {
		c.longData(five, uint16(i), chunk)
		c.ping()
		if held := s.l.LongDataBuffered(); held > budget {
			t.Fatalf("%d bytes of long data held, past the statement memory budget (%d)", held, budget)
		}
	}
	together := fmt.Sprintf("Parameters of prepared statement which are set through mysql_send_long_data() are longer than %d bytes together", budget)
	if p, _ := c.execute(five, 5); !isError(p, 1105, "HY000", together) {
		t.Fatalf("EXECUTE after long data past the statement budget: %s", describe(p))
	}
	if held := s.l.LongDataBuffered(); held != 0 {
		t.Fatalf("%d bytes of long data held after the EXECUTEs", held)
	}
	if p := c.ping(); p[0] != 0 {
		t.Fatalf("the connection after: %s", describe(p))
	}
	if err := open(t, addr, "app", "").Ping(); err != nil {
		t.Fatalf("another connection: %v", err)
	}
}

// heapAlloc is the heap's live bytes after a collection.
func heapAlloc() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestStmtErrors: COM_STMT_RESET of a statement the connection does not
// have is MySQL's 1243, and the connection goes on (it used to
// dereference nil and end); long data after a reset is kept (it used to
// dereference nil too); long data for a statement that is not there is
// ignored, and its EXECUTE is 1243; long data for a parameter the
// statement does not have fails its next EXECUTE with 1210, as in
// MariaDB.
// TestReplicationCommands: COM_REGISTER_SLAVE and COM_BINLOG_DUMP_GTID,
// which seqd does not serve, are answered as unknown commands and the
// connection goes on (the library's next read panicked).
func TestReplicationCommands(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	for _, cmd := range []byte{0x15, 0x1e} {
		c.command(cmd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
		if p := c.mustRead(); p[0] != 0xff {
			t.Fatalf("command 0x%02x: %s, want an error", cmd, describe(p))
		} else if n, _ := errorOf(p); n != 1047 {
			t.Fatalf("command 0x%02x: %s, want 1047", cmd, describe(p))
		}
		if p := c.ping(); p[0] != 0 {
			t.Fatalf("COM_PING after command 0x%02x: %s", cmd, describe(p))
		}
	}
}

func TestStmtErrors(t *testing.T) {
	addr, _ := startServer(t, Config{})
	c := dialRaw(t, addr)
	c.mustLogin("app", "app pw")
	c.command(binary.LittleEndian.AppendUint32([]byte{comStmtReset}, 99)...)
	if p := c.mustRead(); !isError(p, 1243, "HY000", "Unknown prepared statement handler (99) given to mysqld_stmt_reset") {
		t.Fatalf("COM_STMT_RESET 99: %s", describe(p))
	}
	if p := c.ping(); p[0] != 0 {
		t.Fatalf("COM_PING after: %s", describe(p))
	}
	id := c.prepare("SELECT CONCAT(?)")
	c.longData(id, 0, []byte("before"))
	c.command(binary.LittleEndian.AppendUint32([]byte{comStmtReset}, id)...)
	if p := c.mustRead(); p[0] != 0 {
		t.Fatalf("COM_STMT_RESET: %s", describe(p))
	}
	c.longData(id, 0, []byte("after"))
	if p, rows := c.execute(id, 1); p[0] == 0xff || len(rows) != 1 || oneString(rows[0]) != "after" {
		t.Fatalf("long data after COM_STMT_RESET: %s %q", describe(p), rows)
	}
	c.longData(99, 0, []byte("nowhere"))
	if p, _ := c.execute(99, 0); !isError(p, 1243, "HY000", "Unknown prepared statement handler (99) given to mysqld_stmt_execute") {
		t.Fatalf("COM_STMT_EXECUTE 99: %s", describe(p))
	}
	c.longData(id, 5, []byte("no such parameter"))
	if p, _ := c.execute(id, 1); !isError(p, 1210, "HY000", "Incorrect arguments to mysqld_stmt_send_long_data") {
		t.Fatalf("EXECUTE after long data for parameter 5 of 1: %s", describe(p))
	}
	c.longData(id, 0, []byte("again"))
	if p, rows := c.execute(id, 1); p[0] == 0xff || len(rows) != 1 || oneString(rows[0]) != "again" {
		t.Fatalf("the statement after: %s %q", describe(p), rows)
	}
}

// TestStmtErrorsOracle: MariaDB 10.11 answers the statement commands of
// TestStmtErrors that have an answer with the same numbers, SQLSTATEs
// and words.
func TestStmtErrorsOracle(t *testing.T) {
	cfg, err := gomysql.ParseDSN(testenv.MariaDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	run := func(addr, user, password string) []string {
		c := dialRaw(t, addr)
		c.mustLogin(user, password)
		var out []string
		c.command(binary.LittleEndian.AppendUint32([]byte{comStmtReset}, 99)...)
		out = append(out, describe(c.mustRead()))
		c.longData(99, 0, []byte("nowhere"))
		p, _ := c.execute(99, 0)
		out = append(out, describe(p))
		id := c.prepare("SELECT CONCAT(?)")
		c.longData(id, 5, []byte("no such parameter"))
		p, _ = c.execute(id, 1)
		return append(out, describe(p))
	}
	want := run(cfg.Addr, cfg.User, cfg.Passwd)
	addr, _ := startServer(t, Config{})
	if got := run(addr, "app", "app pw"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("seqd:\n%s\nMariaDB:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
