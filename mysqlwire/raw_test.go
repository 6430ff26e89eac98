package mysqlwire

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/seqd/seqd/internal/vitess/mysql"
)

// rawConn is a MySQL client that speaks the protocol packet by packet,
// for what the server answers to what no driver sends: commands out of
// order, long data without end, a handshake it does not finish. Every
// packet the server sent since the handshake is kept in seen.
type rawConn struct {
	t    testing.TB
	nc   net.Conn
	seq  byte
	salt []byte // the handshake's 20 bytes
	// thread is the connection ID the handshake announced.
	thread uint32
	seen   [][]byte
}

// Client capabilities the raw client announces.
const (
	rawCaps = 0x1 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000 | 0x200000 // long password, 4.1, transactions, secure connection, multi results, plugin auth, lenenc auth data
	capSSL  = 0x800
)

// COM_ commands the raw client sends.
const (
	comQuery           = 0x03
	comPing            = 0x0e
	comResetConnection = 0x1f
	comStmtPrepare     = 0x16
	comStmtExecute     = 0x17
	comStmtLongData    = 0x18
	comStmtClose       = 0x19
	comStmtReset       = 0x1a
)

// dialRaw connects to addr and reads the server's handshake.
func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	c := &rawConn{t: t, nc: nc}
	hs, err := c.read()
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	if hs[0] != 10 {
		t.Fatalf("handshake: %x", hs)
	}
	// protocol version, server version NUL, connection ID (4), salt (8),
	// filler, capabilities (2), charset, status (2), capabilities (2),
	// salt length, reserved (10), the salt's 12 more bytes and a NUL.
	pos := 1 + bytes.IndexByte(hs[1:], 0) + 1
	c.thread = binary.LittleEndian.Uint32(hs[pos:])
	pos += 4
	c.salt = append(append([]byte{}, hs[pos:pos+8]...), hs[pos+8+1+2+1+2+2+1+10:][:12]...)
	c.seen = nil
	return c
}

// read reads one packet (sequence numbers are not checked).
func (c *rawConn) read() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.nc, hdr[:]); err != nil {
		return nil, err
	}
	p := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(c.nc, p); err != nil {
		return nil, err
	}
	c.seq = hdr[3] + 1
	c.seen = append(c.seen, p)
	return p, nil
}

// mustRead reads one packet.
func (c *rawConn) mustRead() []byte {
	c.t.Helper()
	p, err := c.read()
	if err != nil {
		c.t.Fatalf("reading a packet: %v", err)
	}
	return p
}

// write sends p as the next packet of the exchange.
func (c *rawConn) write(p []byte) error {
	hdr := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), c.seq}
	c.seq++
	_, err := c.nc.Write(append(hdr, p...))
	return err
}

// command sends a command (sequence 0).
func (c *rawConn) command(p ...byte) {
	c.t.Helper()
	c.seq = 0
	if err := c.write(p); err != nil {
		c.t.Fatalf("sending command %#x: %v", p[0], err)
	}
}

// handshakeResponse is HandshakeResponse41 for user with the plugin's
// auth response.
func handshakeResponse(caps uint32, user, plugin string, response []byte) []byte {
	p := binary.LittleEndian.AppendUint32(nil, caps)
	p = binary.LittleEndian.AppendUint32(p, 1<<24)
	p = append(p, 45) // utf8mb4_general_ci
	p = append(p, make([]byte, 23)...)
	p = append(append(p, user...), 0)
	p = append(append(p, byte(len(response))), response...) // a lenenc length below 251
	return append(append(p, plugin...), 0)
}

// login sends the handshake response for user with password under
// plugin (mysql_native_password's scramble, or caching_sha2_password's
// and then its full authentication, the password encrypted with the
// server's RSA key) and returns the server's last packet: OK or ERR.
func (c *rawConn) login(user, password, plugin string) []byte {
	c.t.Helper()
	var response []byte
	switch plugin {
	case "mysql_native_password":
		response = mysql.ScrambleMysqlNativePassword(c.salt, []byte(password))
	case "caching_sha2_password":
		response = mysql.ScrambleCachingSha2Password(c.salt, []byte(password))
	}
	if err := c.write(handshakeResponse(rawCaps, user, plugin, response)); err != nil {
		c.t.Fatal(err)
	}
	for {
		p := c.mustRead()
		switch {
		case p[0] == 0x01 && len(p) == 2 && p[1] == 4: // perform full authentication
			c.write([]byte{2}) // the server's public key, please
		case p[0] == 0x01 && len(p) > 2: // the key
			block, _ := pem.Decode(p[1:])
			if block == nil {
				c.t.Fatalf("the server's public key: %q", p[1:])
			}
			pub, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				c.t.Fatal(err)
			}
			enc, err := mysql.EncryptPasswordWithPublicKey(c.salt, []byte(password), pub.(*rsa.PublicKey))
			if err != nil {
				c.t.Fatal(err)
			}
			c.write(enc)
		case p[0] == 0x01: // fast authentication succeeded: OK follows
		default:
			return p
		}
	}
}

// mustLogin logs in, or fails the test.
func (c *rawConn) mustLogin(user, password string) {
	c.t.Helper()
	if p := c.login(user, password, "mysql_native_password"); p[0] != 0 {
		c.t.Fatalf("login as %s: %s", user, describe(p))
	}
}

// describe is a packet for a message: an error's number, SQLSTATE and
// text, else its bytes.
func describe(p []byte) string {
	if len(p) > 9 && p[0] == 0xff {
		return fmt.Sprintf("ERROR %d (%s): %s", binary.LittleEndian.Uint16(p[1:]), p[4:9], p[9:])
	}
	if len(p) > 64 {
		return fmt.Sprintf("%x...", p[:64])
	}
	return fmt.Sprintf("%x", p)
}

// errorOf is an error packet's number and SQLSTATE, 0 for another packet.
func errorOf(p []byte) (uint16, string) {
	if len(p) > 9 && p[0] == 0xff {
		return binary.LittleEndian.Uint16(p[1:]), string(p[4:9])
	}
	return 0, ""
}

// isError reports whether p is error number with state and message.
func isError(p []byte, number uint16, state, message string) bool {
	n, st := errorOf(p)
	return n == number && st == state && string(p[9:]) == message
}

// prepare prepares q and returns its statement ID.
func (c *rawConn) prepare(q string) uint32 {
	c.t.Helper()
	c.command(append([]byte{comStmtPrepare}, q...)...)
	p := c.mustRead()
	if p[0] != 0 {
		c.t.Fatalf("prepare %q: %s", q, describe(p))
	}
	id := binary.LittleEndian.Uint32(p[1:])
	cols, params := binary.LittleEndian.Uint16(p[5:]), binary.LittleEndian.Uint16(p[7:])
	for _, n := range []uint16{params, cols} {
		if n > 0 {
			for range n + 1 { // the definitions and an EOF
				c.mustRead()
			}
		}
	}
	return id
}

// tryPrepare prepares q and returns the server's first packet (OK or
// ERR), reading the definitions that follow an OK.
func (c *rawConn) tryPrepare(q string) []byte {
	c.t.Helper()
	c.command(append([]byte{comStmtPrepare}, q...)...)
	p := c.mustRead()
	if p[0] == 0 {
		cols, params := binary.LittleEndian.Uint16(p[5:]), binary.LittleEndian.Uint16(p[7:])
		for _, n := range []uint16{params, cols} {
			if n > 0 {
				for range n + 1 {
					c.mustRead()
				}
			}
		}
	}
	return p
}

// longData sends a chunk of parameter param's value (no answer).
func (c *rawConn) longData(stmt uint32, param uint16, chunk []byte) {
	c.t.Helper()
	p := binary.LittleEndian.AppendUint32([]byte{comStmtLongData}, stmt)
	p = binary.LittleEndian.AppendUint16(p, param)
	c.command(append(p, chunk...)...)
}

// execute executes a statement whose n parameters were all sent as long
// data (typed as strings, no values here), and returns the first packet
// of the answer (an error, OK, or a result's column count) and a result's
// rows.
func (c *rawConn) execute(stmt uint32, n int) (first []byte, rows [][]byte) {
	c.t.Helper()
	p := binary.LittleEndian.AppendUint32([]byte{comStmtExecute}, stmt)
	p = append(p, 0, 1, 0, 0, 0) // no cursor, one iteration
	if n > 0 {
		p = append(p, make([]byte, (n+7)/8)...) // no NULLs
		p = append(p, 1)                        // types follow
		for range n {
			p = append(p, 0xfd, 0) // VAR_STRING
		}
	}
	c.command(p...)
	first = c.mustRead()
	if first[0] == 0 || first[0] == 0xff {
		return first, nil
	}
	for eofs := 0; eofs < 2; { // column definitions, EOF, rows, EOF
		r := c.mustRead()
		switch {
		case r[0] == 0xfe && len(r) < 9:
			eofs++
		case eofs == 1:
			rows = append(rows, r)
		}
	}
	return first, rows
}

// oneString is the value of a binary result row of one string column:
// the row's header, its NULL bitmap, then the value, a length below 251
// and the bytes (a longer one's length is shown).
func oneString(row []byte) string {
	if len(row) < 3 {
		return fmt.Sprintf("%x", row)
	}
	if n := int(row[2]); n < 251 && len(row) == 3+n {
		return string(row[3:])
	}
	return fmt.Sprintf("(%d bytes)", len(row)-3)
}

// ping sends COM_PING and returns the answer.
func (c *rawConn) ping() []byte {
	c.t.Helper()
	c.command(comPing)
	return c.mustRead()
}

// closed reports whether the server closed the connection: a read ends
// without a packet within d.
func (c *rawConn) closed(d time.Duration) bool {
	c.nc.SetReadDeadline(time.Now().Add(d))
	defer c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err := c.read()
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return err != nil
}
