package torture

// The hostile soak's attacks on PostgreSQL's protocol, and how the
// protocol begins for the attacks that do not log in.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

func pgEncode(msgs ...pgproto3.FrontendMessage) []byte {
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			panic(err) // the harness's own messages
		}
	}
	return out
}

func pgStartup(user string, pad int) *pgproto3.StartupMessage {
	return &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": user, "database": "seqd", "application_name": strings.Repeat("s", pad)}}
}

func (r *hostileRun) pgEndpoint() hostileEndpoint {
	return hostileEndpoint{
		proto: "pgwire",
		first: func(*rand.Rand) []byte { return pgEncode(pgStartup(hostileMallory, 300)) },
		big: func(*rand.Rand) []byte { // a startup message of oversize bytes
			b := make([]byte, oversize)
			binary.BigEndian.PutUint32(b, oversize)
			binary.BigEndian.PutUint32(b[4:], pgproto3.ProtocolVersionNumber)
			for i := 8; i < len(b); i++ {
				b[i] = 'a'
			}
			return b
		},
		garbage: func(rng *rand.Rand) []byte {
			raw, sql := r.corpus.raw["pgwire"], r.corpus.sql["pgwire"]
			switch rng.IntN(4) {
			case 0:
				if len(raw) > 0 {
					return mutate(rng, raw[rng.IntN(len(raw))])
				}
			case 1: // a statement where the password should be
				return pgEncode(pgStartup(hostileMallory, 0), &pgproto3.Query{String: sql[rng.IntN(len(sql))]})
			case 2:
				return pgEncode(&pgproto3.SSLRequest{}, &pgproto3.CancelRequest{ProcessID: rng.Uint32(), SecretKey: randomBytes(rng, 4)})
			}
			return mutate(rng, pgEncode(pgStartup(hostileMallory, 10)))
		},
	}
}

// pgAttacks are the attacks on PostgreSQL's protocol that log in.
func (r *hostileRun) pgAttacks() []hostileAttack {
	return []hostileAttack{
		{atkMalformed, "pgwire", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.pgMalformed(rng) }},
		{atkMalformed, "pgwire", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.pgMessageTypes(rng) }},
		{atkOversized, "pgwire", 200 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.pgOversized() }},
		{atkSlowReader, "pgwire", time.Second, func(rng *rand.Rand, stop <-chan struct{}) {
			r.together(r.cfg.SlowReaders, func() { r.pgSlowReader(rng, stop) })
		}},
		{atkDisconnect, "pgwire", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.pgDisconnect(rng) }},
		{atkBadLogin, "pgwire", 20 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.pgBadLogin(rng) }},
		{atkPrivilege, "pgwire", 100 * time.Millisecond, func(rng *rand.Rand, _ <-chan struct{}) { r.pgPrivilege(rng) }},
	}
}

// together runs n copies of f at once and waits for them.
func (r *hostileRun) together(n int, f func()) {
	done := make(chan struct{}, n)
	for range n {
		go func() { f(); done <- struct{}{} }()
	}
	for range n {
		<-done
	}
}

// pgMallory is a connection logged in as mallory, taken over from pgconn.
func (r *hostileRun) pgMallory() (*pgconn.HijackedConn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	pc, err := pgconn.Connect(ctx, r.pgDSN(hostileMallory, hostileMalloryPW))
	if err != nil {
		return nil, err
	}
	h, err := pc.Hijack()
	if err != nil {
		pc.Close(ctx)
	}
	return h, err
}

// pgAnswer reads the answer to what was sent, for up to d: the error
// codes in it, whether it served anything, and "ready", "closed by seqd"
// or "no answer within d".
func pgAnswer(h *pgconn.HijackedConn, d time.Duration) (codes []string, served bool, outcome string) {
	h.Conn.SetReadDeadline(time.Now().Add(d))
	for range 10_000_000 {
		m, err := h.Frontend.Receive()
		if err != nil {
			if isTimeout(err) {
				return codes, served, fmt.Sprintf("no answer within %v", d)
			}
			return codes, served, "closed by seqd"
		}
		switch m := m.(type) {
		case *pgproto3.ErrorResponse:
			codes = append(codes, m.Code)
		case *pgproto3.DataRow, *pgproto3.CommandComplete:
			served = true
		case *pgproto3.ReadyForQuery:
			return codes, served, "ready"
		}
	}
	return codes, served, "no end"
}

// pgMalformed logs in as mallory and sends statements of the fuzz
// corpus, some mutated, or random bytes.
func (r *hostileRun) pgMalformed(rng *rand.Rand) {
	h, err := r.pgMallory()
	if err != nil {
		r.attacked(atkMalformed, "pgwire", "login failed: "+errClass(err))
		return
	}
	defer h.Conn.Close()
	if rng.IntN(4) == 0 {
		h.Conn.SetWriteDeadline(time.Now().Add(3 * time.Second))
		h.Conn.Write(randomBytes(rng, 1+rng.IntN(4096)))
		_, outcome := readAnswer(h.Conn, 3*time.Second)
		r.attacked(atkMalformed, "pgwire", "random bytes after login: "+outcome)
		return
	}
	sql := r.corpus.sql["pgwire"]
	for range 5 {
		q := sql[rng.IntN(len(sql))]
		if rng.IntN(2) == 0 {
			q = string(mutate(rng, []byte(q)))
		}
		h.Frontend.Send(&pgproto3.Query{String: q})
		h.Conn.SetWriteDeadline(time.Now().Add(3 * time.Second))
		if err := h.Frontend.Flush(); err != nil {
			r.attacked(atkMalformed, "pgwire", "statement: write failed")
			return
		}
		_, _, outcome := pgAnswer(h, 5*time.Second)
		r.attacked(atkMalformed, "pgwire", "statement: "+outcome)
		if outcome != "ready" {
			return
		}
	}
}

// pgMessageTypes logs in as mallory and sends a message of every type
// byte in turn (one a connection), with a random body, then a Sync and
// a query: seqd must answer the query or end the connection.
func (r *hostileRun) pgMessageTypes(rng *rand.Rand) {
	h, err := r.pgMallory()
	if err != nil {
		r.attacked(atkMalformed, "pgwire", "login failed: "+errClass(err))
		return
	}
	defer h.Conn.Close()
	typ := byte(r.pgType.Add(1))
	body := randomBytes(rng, rng.IntN(64))
	msg := binary.BigEndian.AppendUint32([]byte{typ}, uint32(4+len(body)))
	msg = append(append(msg, body...), pgEncode(&pgproto3.Sync{}, &pgproto3.Query{String: "select 1"})...)
	h.Conn.SetWriteDeadline(time.Now().Add(time.Second))
	h.Conn.Write(msg)
	_, _, outcome := pgAnswer(h, time.Second)
	if outcome == "ready" {
		_, _, outcome = pgAnswer(h, time.Second) // the query's, after the Sync's
	}
	r.attacked(atkMalformed, "pgwire", "every message type, then a query: "+outcome)
}

// pgOversized logs in as mallory and sends a statement of oversize
// bytes: it must be refused (54000), not run.
func (r *hostileRun) pgOversized() {
	h, err := r.pgMallory()
	if err != nil {
		r.attacked(atkOversized, "pgwire", "login failed: "+errClass(err))
		return
	}
	defer h.Conn.Close()
	h.Frontend.Send(&pgproto3.Query{String: "select '" + strings.Repeat("a", oversize) + "'"})
	h.Conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	go h.Frontend.Flush() // seqd may stop reading; the deadline ends the write
	codes, served, outcome := pgAnswer(h, 5*time.Second)
	if served {
		r.fail(fmt.Sprintf("oversized on pgwire: a statement of %d bytes was run", oversize))
	}
	r.attacked(atkOversized, "pgwire", fmt.Sprintf("statement after login: %s %s", strings.Join(codes, " "), outcome))
}

// pgSlowReader asks for 100,000 rows of h_bulk as mallory and reads none
// for 5 to 15 s.
func (r *hostileRun) pgSlowReader(rng *rand.Rand, stop <-chan struct{}) {
	h, err := r.pgMallory()
	if err != nil {
		r.attacked(atkSlowReader, "pgwire", "login failed: "+errClass(err))
		return
	}
	defer h.Conn.Close()
	if tc, ok := h.Conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 10)
	}
	h.Frontend.Send(&pgproto3.Query{String: "select nextval('" + hostileBulk + "') from generate_series(1, 100000)"})
	h.Conn.SetWriteDeadline(time.Now().Add(time.Second))
	h.Frontend.Flush()
	pause(stop, jitter(rng, 5*time.Second, 15*time.Second))
	r.attacked(atkSlowReader, "pgwire", closedOutcome(h.Conn))
}

func closedOutcome(nc net.Conn) string {
	if serverClosed(nc) {
		return "closed by seqd before release"
	}
	return "open until released"
}

// pgDisconnect goes away in the middle of a statement or of the login.
func (r *hostileRun) pgDisconnect(rng *rand.Rand) {
	if rng.IntN(4) == 0 { // mid-login: the startup message, the SCRAM request read, gone
		nc, err := r.dial("pgwire")
		if err != nil {
			r.attacked(atkDisconnect, "pgwire", "dial failed: "+errClass(err))
			return
		}
		nc.SetDeadline(time.Now().Add(2 * time.Second))
		nc.Write(pgEncode(pgStartup(hostileMallory, 0)))
		nc.Read(make([]byte, 512))
		nc.Close()
		r.attacked(atkDisconnect, "pgwire", "gone during SCRAM")
		return
	}
	h, err := r.pgMallory()
	if err != nil {
		r.attacked(atkDisconnect, "pgwire", "login failed: "+errClass(err))
		return
	}
	h.Conn.SetWriteDeadline(time.Now().Add(time.Second))
	switch rng.IntN(3) {
	case 0:
		msg := pgEncode(&pgproto3.Query{String: "select nextval('" + hostileBulk + "')"})
		h.Conn.Write(msg[:len(msg)/2])
		r.attacked(atkDisconnect, "pgwire", "half a statement, then gone")
	case 1:
		h.Conn.Write(pgEncode(&pgproto3.Query{String: "select nextval('" + hostileBulk + "') from generate_series(1, 100000)"}))
		r.attacked(atkDisconnect, "pgwire", "gone after sending a statement")
	case 2:
		h.Conn.Write(pgEncode(&pgproto3.Parse{Query: "select nextval($1)"}, &pgproto3.Bind{Parameters: [][]byte{[]byte(hostileBulk)}}, &pgproto3.Execute{}))
		r.attacked(atkDisconnect, "pgwire", "gone before Sync")
	}
	h.Conn.Close()
}

// wrongLogin is a user and a password that must not log in: a wrong
// password of a role, or a role that does not exist.
func wrongLogin(rng *rand.Rand) (user, password string) {
	pw := fmt.Sprintf("guess%016x", rng.Uint64())
	switch rng.IntN(3) {
	case 0:
		return hostileApp, pw
	case 1:
		return hostileMallory, pw
	}
	return fmt.Sprintf("ghost%06d", rng.IntN(1_000_000)), pw
}

func (r *hostileRun) pgBadLogin(rng *rand.Rand) {
	user, pw := wrongLogin(rng)
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	pc, err := pgconn.Connect(ctx, r.pgDSN(user, pw))
	if err == nil {
		pc.Close(ctx)
		r.fail(fmt.Sprintf("bad login on pgwire: %s with a wrong password logged in", user))
		r.attacked(atkBadLogin, "pgwire", "LOGGED IN")
		return
	}
	r.attacked(atkBadLogin, "pgwire", errClass(err))
}

// pgPrivileged are statements mallory has no privilege for: each must
// fail.
var pgPrivileged = []string{
	"select nextval('h_nocache')",
	"select setval('h_cache100', 1000000000000)",
	"select * from seqd_reserve('h_cache1000', 10)",
	"select setval('" + hostileBulk + "', 1)", // USAGE is not UPDATE
	"alter sequence h_nocache restart with 1",
	"alter sequence h_cache100 owner to mallory",
	"drop sequence h_cache1000",
	"grant usage on sequence h_nocache to mallory",
	"revoke usage on sequence h_nocache from app",
	"create sequence mallory_own",
	"create schema mallory_schema",
	"alter role mallory superuser",
	"alter role app password 'taken-over'",
	"alter role app nologin",
	"create role mallory2 login superuser",
	"grant app to mallory",
	"set role app",
	"set session authorization seqd",
}

// pgPrivilege logs in as mallory and tries what it may not; then sends
// cancel requests with guessed keys for app's sessions, whose process
// IDs pg_stat_activity shows.
func (r *hostileRun) pgPrivilege(rng *rand.Rand) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, r.pgDSN(hostileMallory, hostileMalloryPW))
	if err != nil {
		r.attacked(atkPrivilege, "pgwire", "login failed: "+errClass(err))
		return
	}
	defer c.Close(ctx)
	for _, q := range pgPrivileged {
		qctx, qcancel := context.WithTimeout(ctx, hostileCallTimeout)
		_, err := c.Exec(qctx, q)
		qcancel()
		if err == nil {
			r.fail(fmt.Sprintf("privilege on pgwire: mallory's %q succeeded", q))
			r.attacked(atkPrivilege, "pgwire", "SUCCEEDED")
			continue
		}
		r.attacked(atkPrivilege, "pgwire", errClass(err))
	}
	rows, err := c.Query(ctx, "select pid from pg_stat_activity where usename = $1", hostileApp)
	if err != nil {
		return
	}
	pids, _ := pgx.CollectRows(rows, pgx.RowTo[int32])
	for _, pid := range pids[:min(len(pids), 3)] {
		nc, err := r.dial("pgwire")
		if err != nil {
			continue
		}
		nc.SetDeadline(time.Now().Add(time.Second))
		nc.Write(pgEncode(&pgproto3.CancelRequest{ProcessID: uint32(pid), SecretKey: randomBytes(rng, 4)}))
		nc.Read(make([]byte, 64))
		nc.Close()
		r.attacked(atkPrivilege, "pgwire", "cancel request of an app session with a guessed key")
	}
}
