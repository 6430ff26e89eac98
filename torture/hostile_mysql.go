package torture

// The hostile soak's attacks on MySQL's protocol. The ones that need
// control of the bytes after logging in speak the protocol themselves
// (mysql_native_password, which seqd announces); the others use
// go-sql-driver/mysql.

import (
	"bytes"
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// Capability flags of the handshake response.
const (
	myLongPassword  = 0x1
	myProtocol41    = 0x200
	myTransactions  = 0x2000
	mySecureConn    = 0x8000
	myMultiResults  = 0x20000
	myPluginAuth    = 0x80000
	myConnectAttrs  = 0x100000
	myComQuery      = 0x03
	myComPing       = 0x0e
	myNativePlugin  = "mysql_native_password"
	mySha2Plugin    = "caching_sha2_password"
	myMaxPacketSize = 1<<24 - 1
)

// myPacket frames payload (under 16 MiB) as packet seq.
func myPacket(seq byte, payload []byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

func readMyPacket(nc net.Conn) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(nc, h[:]); err != nil {
		return nil, err
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	_, err := io.ReadFull(nc, p)
	return p, err
}

// greetingSalt is the 20-byte scramble of a protocol 10 greeting.
func greetingSalt(p []byte) ([]byte, error) {
	bad := fmt.Errorf("not a greeting: % x", p[:min(len(p), 16)])
	if len(p) < 1 || p[0] != 10 {
		return nil, bad
	}
	end := bytes.IndexByte(p[1:], 0)
	if end < 0 {
		return nil, bad
	}
	pos := 1 + end + 1 + 4 // server version, connection id
	if len(p) < pos+8+1+2+1+2+2+1+10+12 {
		return nil, bad
	}
	salt := append([]byte(nil), p[pos:pos+8]...)
	pos += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10 // filler, capabilities, charset, status, capabilities, salt length, reserved
	return append(salt, p[pos:pos+12]...), nil
}

// nativeScramble is mysql_native_password's answer to salt.
func nativeScramble(salt []byte, password string) []byte {
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	h := sha1.New()
	h.Write(salt)
	h.Write(h2[:])
	out := h.Sum(nil)
	for i := range out {
		out[i] ^= h1[i]
	}
	return out
}

func lenenc(s []byte) []byte {
	if len(s) < 251 {
		return append([]byte{byte(len(s))}, s...)
	}
	return append([]byte{0xfc, byte(len(s)), byte(len(s) >> 8)}, s...)
}

// myHandshake is a handshake response for user with auth, and pad bytes
// of connection attributes, asking for mysql_native_password.
func myHandshake(user string, auth []byte, pad int) []byte {
	return myHandshakePlugin(user, myNativePlugin, auth, pad)
}

// myHandshakePlugin is myHandshake asking for plugin.
func myHandshakePlugin(user, plugin string, auth []byte, pad int) []byte {
	caps := uint32(myLongPassword | myProtocol41 | myTransactions | mySecureConn | myMultiResults | myPluginAuth)
	if pad > 0 {
		caps |= myConnectAttrs
	}
	b := binary.LittleEndian.AppendUint32(nil, caps)
	b = binary.LittleEndian.AppendUint32(b, myMaxPacketSize)
	b = append(b, 33) // utf8_general_ci
	b = append(b, make([]byte, 23)...)
	b = append(append(b, user...), 0)
	b = append(b, lenenc(auth)...)
	b = append(append(b, plugin...), 0)
	if pad > 0 {
		kv := append(lenenc([]byte("_pad")), lenenc(bytes.Repeat([]byte("p"), pad))...)
		b = append(b, lenenc(kv)...)
	}
	return b
}

// myError is a MySQL error packet's number, or 0.
func myError(p []byte) int {
	if len(p) >= 3 && p[0] == 0xff {
		return int(binary.LittleEndian.Uint16(p[1:]))
	}
	return 0
}

// myErr is an error packet as go-sql-driver/mysql's error, or an error
// saying what came instead.
func myErr(p []byte, when string) error {
	if n := myError(p); n != 0 {
		msg := ""
		if len(p) > 9 && p[3] == '#' {
			msg = string(p[9:])
		}
		return &gomysql.MySQLError{Number: uint16(n), Message: msg}
	}
	return fmt.Errorf("%s: not an error packet: % x", when, p[:min(len(p), 16)])
}

// myLogin is a raw connection logged in as user.
func (r *hostileRun) myLogin(user, password string) (net.Conn, error) {
	nc, err := r.dial("mysql")
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(hostileCallTimeout))
	p, err := readMyPacket(nc)
	if err == nil && myError(p) != 0 {
		err = myErr(p, "greeting")
	}
	var salt []byte
	if err == nil {
		salt, err = greetingSalt(p)
	}
	if err == nil {
		_, err = nc.Write(myPacket(1, myHandshake(user, nativeScramble(salt, password), 0)))
	}
	if err == nil {
		p, err = readMyPacket(nc)
	}
	if err == nil && (len(p) == 0 || p[0] != 0) {
		err = myErr(p, "login")
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return nc, nil
}

func myQuery(q string) []byte { return myPacket(0, append([]byte{myComQuery}, q...)) }

func (r *hostileRun) mysqlEndpoint() hostileEndpoint {
	return hostileEndpoint{
		proto:  "mysql",
		greets: true,
		first: func(rng *rand.Rand) []byte {
			return myPacket(1, myHandshake(hostileMallory, randomBytes(rng, 20), 300))
		},
		big: func(*rand.Rand) []byte { // a handshake response of oversize bytes
			return myPacket(1, bytes.Repeat([]byte{'a'}, oversize))
		},
		garbage: func(rng *rand.Rand) []byte {
			raw, sql := r.corpus.raw["mysql"], r.corpus.sql["mysql"]
			switch rng.IntN(3) {
			case 0:
				if len(raw) > 0 {
					return myPacket(1, mutate(rng, raw[rng.IntN(len(raw))]))
				}
			case 1: // a statement where the handshake response should be
				return myQuery(sql[rng.IntN(len(sql))])
			}
			return myPacket(byte(rng.IntN(4)), randomBytes(rng, rng.IntN(512)))
		},
	}
}

// mysqlAttacks are the attacks on MySQL's protocol that log in.
func (r *hostileRun) mysqlAttacks() []hostileAttack {
	return []hostileAttack{
		{atkMalformed, "mysql", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.myMalformed(rng) }},
		{atkMalformed, "mysql", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.myCommands(rng) }},
		{atkOversized, "mysql", 200 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.myOversized() }},
		{atkSlowReader, "mysql", time.Second, func(rng *rand.Rand, stop <-chan struct{}) {
			r.together(r.cfg.SlowReaders, func() { r.mySlowReader(rng, stop) })
		}},
		{atkDisconnect, "mysql", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.myDisconnect(rng) }},
		{atkBadLogin, "mysql", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.myBadLogin(rng) }},
		{atkPrivilege, "mysql", 100 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.myPrivilege() }},
	}
}

// myRun runs q on c and reads its rows.
func myRun(c *sql.Conn, q string) error {
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	for i := 0; i < 1_000_000 && rows.Next(); i++ {
	}
	rows.Close()
	return rows.Err()
}

// myCommands logs in as mallory and sends the protocol's commands in
// turn, 0x00 to 0x1f (one a connection), each with random arguments and
// followed by a ping.
func (r *hostileRun) myCommands(rng *rand.Rand) {
	nc, err := r.myLogin(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkMalformed, "mysql", "login failed: "+errClass(err))
		return
	}
	defer nc.Close()
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	cmd := byte(r.myCommand.Add(1) % 0x20)
	nc.Write(append(myPacket(0, append([]byte{cmd}, randomBytes(rng, rng.IntN(64))...)), myPacket(0, []byte{myComPing})...))
	// Up to an OK, the ping's (or the command's own): the connection
	// serves on; or its end.
	nc.SetReadDeadline(time.Now().Add(time.Second))
	outcome := "no OK within 1s"
	for range 10_000 {
		p, err := readMyPacket(nc)
		if err != nil {
			if !isTimeout(err) {
				outcome = "closed by seqd"
			}
			break
		}
		if len(p) > 0 && p[0] == 0 {
			outcome = "served on"
			break
		}
	}
	if outcome == "closed by seqd" {
		outcome = fmt.Sprintf("closed by seqd after command 0x%02x", cmd)
	}
	r.attacked(atkMalformed, "mysql", "every command, then a ping: "+outcome)
}

// myMalformed logs in as mallory and sends statements of the fuzz
// corpus, some mutated, or a packet of random bytes.
func (r *hostileRun) myMalformed(rng *rand.Rand) {
	if rng.IntN(3) == 0 {
		nc, err := r.myLogin(hostileMallory, hostileMalloryPW)
		if err != nil {
			r.attacked(atkMalformed, "mysql", "login failed: "+errClass(err))
			return
		}
		defer nc.Close()
		nc.SetWriteDeadline(time.Now().Add(3 * time.Second))
		nc.Write(myPacket(0, randomBytes(rng, 1+rng.IntN(4096))))
		_, outcome := readAnswer(nc, time.Second)
		r.attacked(atkMalformed, "mysql", "random packet after login: "+outcome)
		return
	}
	db := r.mysqlConnector(hostileMallory, hostileMalloryPW)
	defer db.Close()
	c, err := mysqlConn(db)
	if err != nil {
		r.attacked(atkMalformed, "mysql", "login failed: "+errClass(err))
		return
	}
	defer c.Close()
	stmts := r.corpus.sql["mysql"]
	for range 5 {
		q := stmts[rng.IntN(len(stmts))]
		if rng.IntN(2) == 0 {
			q = string(mutate(rng, []byte(q)))
		}
		err := myRun(c, q)
		if err == nil {
			r.attacked(atkMalformed, "mysql", "statement answered")
			continue
		}
		r.attacked(atkMalformed, "mysql", "statement: "+errClass(err))
		var me *gomysql.MySQLError
		if !errors.As(err, &me) {
			return // the connection failed
		}
	}
}

// myOversized logs in as mallory and sends a statement of oversize
// bytes: it must be refused, not run.
func (r *hostileRun) myOversized() {
	nc, err := r.myLogin(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkOversized, "mysql", "login failed: "+errClass(err))
		return
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	go nc.Write(myQuery("SELECT '" + strings.Repeat("a", oversize) + "'"))
	p, err := readMyPacket(nc)
	switch {
	case err != nil:
		r.attacked(atkOversized, "mysql", "statement after login: closed by seqd")
	case myError(p) != 0:
		r.attacked(atkOversized, "mysql", fmt.Sprintf("statement after login: MySQL %d", myError(p)))
	default:
		r.fail(fmt.Sprintf("oversized on mysql: a statement of %d bytes was run", oversize))
		r.attacked(atkOversized, "mysql", "statement after login: SERVED")
	}
}

// mySlowReader logs in as mallory, sends 3,000 NEXT VALUE FOR h_bulk at
// once and reads no answer for 5 to 15 s.
func (r *hostileRun) mySlowReader(rng *rand.Rand, stop <-chan struct{}) {
	nc, err := r.myLogin(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkSlowReader, "mysql", "login failed: "+errClass(err))
		return
	}
	defer nc.Close()
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 10)
	}
	q := myQuery("SELECT NEXT VALUE FOR public." + hostileBulk)
	nc.SetWriteDeadline(time.Now().Add(2 * time.Second))
	nc.Write(bytes.Repeat(q, 3000))
	pause(stop, jitter(rng, 5*time.Second, 15*time.Second))
	r.attacked(atkSlowReader, "mysql", closedOutcome(nc))
}

// myDisconnect logs in as mallory and goes away mid-statement.
func (r *hostileRun) myDisconnect(rng *rand.Rand) {
	nc, err := r.myLogin(hostileMallory, hostileMalloryPW)
	if err != nil {
		r.attacked(atkDisconnect, "mysql", "login failed: "+errClass(err))
		return
	}
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	q := myQuery("SELECT NEXT VALUE FOR public." + hostileBulk)
	if rng.IntN(2) == 0 {
		nc.Write(q[:len(q)/2])
		r.attacked(atkDisconnect, "mysql", "half a statement, then gone")
	} else {
		nc.Write(q)
		r.attacked(atkDisconnect, "mysql", "gone after sending a statement")
	}
	nc.Close()
}

func (r *hostileRun) myBadLogin(rng *rand.Rand) {
	user, pw := wrongLogin(rng)
	db := r.mysqlConnector(user, pw)
	defer db.Close()
	c, err := mysqlConn(db)
	if err == nil {
		c.Close()
		r.fail(fmt.Sprintf("bad login on mysql: %s with a wrong password logged in", user))
		r.attacked(atkBadLogin, "mysql", "LOGGED IN")
		return
	}
	r.attacked(atkBadLogin, "mysql", errClass(err))
}

// myPrivileged are statements mallory has no privilege for.
var myPrivileged = []string{
	"SELECT NEXT VALUE FOR public.h_nocache",
	"SELECT NEXTVAL(public.h_cache100)",
	"SELECT SETVAL(public.h_cache100, 1000000000000)",
	"SELECT SETVAL(public." + hostileBulk + ", 1000000000000)", // USAGE is not UPDATE
	"SELECT * FROM public.h_nocache",                           // nor SELECT
	"ALTER SEQUENCE public.h_nocache RESTART WITH 1",
	"DROP SEQUENCE public.h_cache1000",
	"RENAME TABLE public.h_cache100 TO public.h_mallory",
	"CREATE SEQUENCE public.mallory_own",
	"CREATE DATABASE mallory_db",
}

func (r *hostileRun) myPrivilege() {
	db := r.mysqlConnector(hostileMallory, hostileMalloryPW)
	defer db.Close()
	c, err := mysqlConn(db)
	if err != nil {
		r.attacked(atkPrivilege, "mysql", "login failed: "+errClass(err))
		return
	}
	defer c.Close()
	for _, q := range myPrivileged {
		if err := myRun(c, q); err == nil {
			r.fail(fmt.Sprintf("privilege on mysql: mallory's %q succeeded", q))
			r.attacked(atkPrivilege, "mysql", "SUCCEEDED")
		} else {
			r.attacked(atkPrivilege, "mysql", errClass(err))
		}
	}
}
