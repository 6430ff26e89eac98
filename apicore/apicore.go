// Package apicore is what seqd's driverless APIs share: the HTTP/JSON API
// (httpapi) and the gRPC service (grpcapi) authenticate a role the same
// way, run its calls in pooled executor sessions of that role, and take
// values, reserve and release ranges with the same statements. Each API
// is then only its transport: decoding a request, and answering a value
// or an Error (a SQLSTATE and a message) in its own terms.
//
// A call runs statements of the shared executor as the role it
// authenticated as, so privileges, limits, statement_timeout,
// pg_stat_activity and the engine's guarantees are the SQL front ends'.
// Names reach a statement only as escape string literals (E'...') or
// quoted identifiers, never as SQL text of their own.
package apicore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// Authentication methods (Config.Auth).
const (
	// AuthTrust lets anyone in as the user the request names (the
	// bootstrap superuser without one), as PostgreSQL's trust.
	AuthTrust = "trust"
	// AuthPassword wants the credentials of a role that may log in,
	// checked against its stored verifier.
	AuthPassword = "password"
)

// MaxValues bounds the values one call takes (with -max-bulk-rows): an
// answer of them is held whole until sent. A larger batch is a range
// (Reserve), whose answer is three numbers however many values it holds.
const MaxValues = 100_000

// Config configures a Core.
type Config struct {
	// Engine serves the calls; Node, when set, is asked at each call
	// which engine serves it, and whether as a standby (which refuses
	// what writes: 25006).
	Engine *engine.Engine
	Node   func() (eng *engine.Engine, standby bool)
	// Registry is the connection budget and session IDs shared with the
	// other front ends: a pooled session holds a slot.
	Registry *frontend.Registry
	// Auth is AuthTrust or AuthPassword; the zero value is AuthTrust.
	Auth string
	// Superuser is the bootstrap superuser (executor.Config's): the user
	// of a call without credentials under trust.
	Superuser string
	// MaxBulkRows bounds the values one call takes; MaxStatementMemory
	// and SessionDefaults are the executor's, as the SQL front ends'.
	MaxBulkRows        int64
	MaxStatementMemory int64
	SessionDefaults    map[string]string
	// AppName is the sessions' application_name (pg_stat_activity).
	AppName string
	// AuthTimeout bounds a connection's time from accept until a request
	// on it authenticates (HTTP) or it makes its first call (gRPC): the
	// listener closes it then (frontend.ListenerConfig's). 0 is
	// frontend.DefaultAuthTimeout, 10 s; negative, no bound.
	AuthTimeout time.Duration
}

// Core authenticates calls and runs them in pooled sessions.
type Core struct {
	cfg   Config
	pool  sessionPool
	creds credentialCache
	// sweeper links long calls to their callers' contexts.
	sweeper sweeper
	auth    atomic.Pointer[string] // the method, read by every call
}

// New makes a Core.
func New(cfg Config) *Core {
	if cfg.Registry == nil {
		cfg.Registry = frontend.NewRegistry(10000, 3)
	}
	if cfg.Superuser == "" {
		cfg.Superuser = "seqd"
	}
	if cfg.MaxBulkRows <= 0 {
		cfg.MaxBulkRows = 1 << 20
	}
	c := &Core{cfg: cfg}
	c.auth.Store(&cfg.Auth)
	c.pool.byUser = map[string][]*session{}
	c.creds.ok = map[[32]byte]struct{ version uint64 }{}
	return c
}

// Registry is the connection budget the calls share.
func (c *Core) Registry() *frontend.Registry { return c.cfg.Registry }

// MaxCount is the most values one call may take.
func (c *Core) MaxCount() int64 { return min(c.cfg.MaxBulkRows, MaxValues) }

// SetAuth changes the authentication of new calls.
func (c *Core) SetAuth(method string) { c.auth.Store(&method) }

// AuthMethod is the authentication of new calls.
func (c *Core) AuthMethod() string { return *c.auth.Load() }

// Engine is the engine a call runs on, and whether as a standby.
func (c *Core) Engine() (*engine.Engine, bool) {
	if c.cfg.Node != nil {
		return c.cfg.Node()
	}
	return c.cfg.Engine, false
}

// Close closes the pooled sessions; a session in use is closed when its
// call ends.
func (c *Core) Close() {
	c.pool.closeAll()
	c.sweeper.stop()
}

// Error is a call's failure as the APIs answer it: the SQLSTATE the SQL
// front ends give and the message.
type Error struct {
	Code string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// BadRequest is an invalid argument (22023).
func BadRequest(msg string) error { return &Error{Code: "22023", Msg: msg} }

// ErrorOf is err as an Error, with the SQLSTATE the SQL front ends give
// for it.
func ErrorOf(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	e = &Error{Code: sqlerr.SQLState(frontend.KindOf(err)), Msg: err.Error()}
	switch {
	case errors.Is(err, context.DeadlineExceeded): // the statement's timeout or the caller's deadline
		e.Msg = "canceling statement due to statement timeout or the call's deadline"
	case errors.Is(err, context.Canceled):
		e.Msg = "canceling statement due to user request"
	}
	return e
}

// Class is what the caller of an API can do about a failure, by its
// SQLSTATE (ClassOf): each transport answers each class with a status of
// its own, from this one table.
type Class int

const (
	Internal        Class = iota
	NotFound              // no such sequence, schema or object
	Forbidden             // a privilege is missing
	Unauthenticated       // no or wrong credentials
	Exists                // what it would make exists
	Contended             // a lock, a deadlock, a serialization failure
	Precondition          // the sequence's state refuses it (run out, in use)
	TooMany               // every connection slot in use
	TooLarge              // a request or statement too large
	OutOfMemory           // the statement asked for more than one may hold
	Canceled              // cancelled or past its deadline
	Unavailable           // the rest of Retryable: a standby, a shutdown, a store unavailable
	Invalid               // the request is wrong
)

// ClassOf is the class of a failure of SQLSTATE code.
func ClassOf(code string) Class {
	switch code {
	case "42P01", "3F000", "42704":
		return NotFound
	case "42501":
		return Forbidden
	case "28000", "28P01":
		return Unauthenticated
	case "42P07", "42P06":
		return Exists
	case "55P03", "40P01", "40001":
		return Contended
	case "2200H", "55006", "2BP01":
		return Precondition
	case "53300":
		return TooMany
	case "54000":
		return TooLarge
	case "53200":
		return OutOfMemory
	case "57014":
		return Canceled
	}
	switch {
	case Retryable(code):
		return Unavailable
	case strings.HasPrefix(code, "22"), strings.HasPrefix(code, "42"), code == "0A000", code == "08P01":
		return Invalid
	}
	return Internal
}

// Retryable reports whether a call failing with SQLSTATE code may
// succeed if sent again shortly (to this node or, after a failover, the
// next leader): too many clients, a standby, a server shutting down or
// starting, a store unavailable, a cancelled statement.
func Retryable(code string) bool {
	switch code {
	case "53300", "25006", "57P01", "57P03", "58030", "53100", "57014":
		return true
	}
	return false
}

// Credentials are what a call presents: a role's name and password
// (Basic: HTTP Basic, or the same in gRPC's metadata), a bearer token
// (Token), or nothing.
type Credentials struct {
	User, Password string
	Basic          bool
	// Bearer: the call presented Token as a bearer token.
	Bearer bool
	Token  string
}

// Authenticate is the call's user, for a call from the address from. A
// bearer token authenticates the role it was made by (one that may log
// in; 28P01 for a token malformed, revoked or expired), under any method.
// Otherwise, under AuthPassword: Basic credentials checked against a
// login role's verifier (28000 without, 28P01 for wrong ones); under
// trust: the name given, or the bootstrap superuser without one. A
// failure is logged at WARN with its reason, as the SQL front ends log
// theirs; the caller is told only that it failed.
func (c *Core) Authenticate(cr Credentials, from string) (string, error) {
	eng, _ := c.Engine()
	if cr.Bearer {
		user, err := executor.VerifyToken(eng, cr.Token, time.Now())
		if err != nil {
			slog.Warn("authentication failed", "api", c.cfg.AppName, "from", from, "reason", "bearer token not valid")
		}
		return user, err
	}
	if c.AuthMethod() != AuthPassword {
		if !cr.Basic || cr.User == "" {
			return c.cfg.Superuser, nil
		}
		return cr.User, nil
	}
	if !cr.Basic {
		slog.Warn("authentication failed", "api", c.cfg.AppName, "from", from, "reason", "no credentials")
		return "", &Error{Code: "28000", Msg: "this API wants the credentials of a role that may log in (Basic) or a bearer token"}
	}
	role, found := eng.Role(cr.User)
	v, why := role.Verifier, "wrong password"
	switch {
	case !found:
		why = "no such role"
	case !role.Login:
		why = "role cannot log in"
	case role.Verifier == nil:
		why = "role has no password"
	}
	if why != "wrong password" {
		// The same check, at the same cost, as for a role: no telling
		// which roles exist.
		v = dummyVerifier()
	}
	if ok := c.creds.check(cr.User, cr.Password, v, eng.AuthVersion()); !ok || why != "wrong password" {
		slog.Warn("authentication failed", "api", c.cfg.AppName, "user", cr.User, "from", from, "reason", why)
		return "", &Error{Code: "28P01", Msg: fmt.Sprintf("password authentication failed for user \"%s\"", cr.User)}
	}
	return cr.User, nil
}

// dummyVerifier is checked against for a role that does not exist or may
// not log in, so that such a refusal takes as long as a wrong password.
// Its password is random, known to no one: no credentials match it,
// so none is cached for a name that is no role's.
var dummyVerifier = sync.OnceValue(func() *engine.Verifier {
	v, _ := auth.NewVerifier(rand.Text())
	return v
})

// credentialCache remembers the credentials checked since the roles last
// changed, so that a client sending its password with every call pays
// the verifier's key derivation once, not per call. It keeps a digest of
// each, never the password, and at most maxCredentials.
type credentialCache struct {
	mu sync.Mutex
	ok map[[32]byte]struct{ version uint64 }
}

const maxCredentials = 4096

func (c *credentialCache) check(user, password string, v *engine.Verifier, version uint64) bool {
	key := sha256.Sum256([]byte(user + "\x00" + password + "\x00" + auth.VerifierText(v)))
	c.mu.Lock()
	cr, hit := c.ok[key]
	c.mu.Unlock()
	if hit && cr.version == version {
		return true
	}
	if !auth.CheckPassword(v, password) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ok) >= maxCredentials {
		for k := range c.ok { // drop one at random
			delete(c.ok, k)
			break
		}
	}
	c.ok[key] = struct{ version uint64 }{version}
	return true
}

// Client is who a call comes from, as pg_stat_activity shows it.
type Client struct {
	Addr string
	TLS  *tls.ConnectionState
}

// Call is one authenticated call's session: a pooled session of its
// role on the engine serving now. End gives it back.
type Call struct {
	// Standby reports whether the engine serves as a standby.
	Standby bool
	ctx     context.Context
	sess    *session
	core    *Core
	user    string
	done    context.CancelFunc // the call's deadline's, when it has one
}

// Begin starts a call of user's from client: a pooled session of the
// role (a new one when none is idle: 53300 when the budget has no slot
// for it). The call's statements run under the session's context, which
// a cancel through the registry (pg_cancel_backend) ends, bounded by
// ctx's deadline; ctx's end (the caller gone or cancelling) ends them
// too once the call has run for a while (see sweep).
func (c *Core) Begin(ctx context.Context, user string, client Client) (*Call, error) {
	q := new(Call)
	if err := c.Start(ctx, q, user, client); err != nil {
		return nil, err
	}
	return q, nil
}

// Start is Begin into a Call the caller holds (one allocation less on
// the hot path).
func (c *Core) Start(ctx context.Context, q *Call, user string, client Client) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	eng, standby := c.Engine()
	sess, err := c.pool.get(user, eng, standby, func() (*session, error) { return c.newSession(user, eng, standby, client) })
	if err != nil {
		return err
	}
	*q = Call{Standby: standby, sess: sess, core: c, user: user}
	q.ctx = sess.begin(ctx)
	if d, ok := ctx.Deadline(); ok {
		q.ctx, q.done = context.WithDeadline(q.ctx, d)
	}
	return nil
}

// End ends the call: its session goes back to the pool, or is closed if
// a transaction is left open in it.
func (q *Call) End() {
	if q.done != nil {
		q.done()
	}
	q.sess.end()
	q.sess.Idle()
	if q.sess.TxStatus() == 'I' {
		q.core.pool.put(q.user, q.sess)
	} else {
		q.sess.close()
	}
}

// Fail is err as the call answers it: on a standby, 25006 says where
// writes go.
func (q *Call) Fail(err error) *Error {
	e := ErrorOf(err)
	if q.Standby && e.Code == "25006" {
		e = &Error{Code: e.Code, Msg: "this node is a standby: send writes to the leader"}
	}
	return e
}

// newSession starts a session of user's for the pool.
func (c *Core) newSession(user string, eng *engine.Engine, standby bool, client Client) (*session, error) {
	sess := &session{eng: eng, standby: standby, reg: c.cfg.Registry, sw: &c.sweeper}
	// The session takes no place of its own: the connections of the
	// calls it serves hold theirs, counted from accept (a gRPC
	// connection's streams may each hold a session, and the pool keeps
	// idle ones; counted, they locked other roles out).
	id, ok := c.cfg.Registry.Track(sess.interrupt)
	if !ok {
		return nil, &Error{Code: "53300", Msg: "sorry, too many clients already"}
	}
	// The last places are superusers', as for the SQL front ends
	// (-superuser-reserved-connections): past the others, an ordinary
	// role's calls are refused.
	if role, isRole := eng.Role(user); !c.cfg.Registry.MayTrack(!isRole || role.Superuser) {
		c.cfg.Registry.Unregister(id)
		return nil, &Error{Code: "53300", Msg: "remaining connection slots are reserved for roles with the SUPERUSER attribute"}
	}
	app := c.cfg.AppName
	if app == "" {
		app = "seqd api"
	}
	es, err := executor.NewSession(executor.Config{Engine: eng, MaxBulkRows: c.cfg.MaxBulkRows, MaxStatementMemory: c.cfg.MaxStatementMemory,
		Defaults: c.cfg.SessionDefaults, Superuser: c.cfg.Superuser, User: user, Database: "seqd", Standby: standby, BackendPID: id,
		Params: map[string]string{"application_name": app}, Activity: c.cfg.Registry.Activity(), ClientAddr: client.Addr, TLS: client.TLS})
	if err != nil {
		c.cfg.Registry.Unregister(id)
		return nil, err
	}
	sess.id, sess.Session = id, es
	c.sweeper.add(sess)
	return sess, nil
}

// Run executes one statement in the call's session and returns its rows
// (the statement timeout applies, as in the SQL front ends). The
// statement holds its values as literals: names quoted, integers
// formatted here, so that a statement seen before (the same sequence's
// next value) reuses its parse and its plan (PrepareCached).
func (q *Call) Run(sql string) ([][]eval.Datum, error) {
	var rows [][]eval.Datum
	err := q.Each(sql, func(row []eval.Datum) {
		rows = append(rows, append([]eval.Datum(nil), row...))
	})
	return rows, err
}

// Each runs sql as Run does, handing each row to f as it is read (f may
// not keep it).
func (q *Call) Each(sql string, f func([]eval.Datum)) error {
	stmts, err := pgsql.Parse(sql)
	if err != nil {
		return err
	}
	return q.each(&stmts[0], f)
}

// each runs a parsed statement as Each does.
func (q *Call) each(st *pgsql.Statement, f func([]eval.Datum)) error {
	p, err := q.sess.PrepareCached(st)
	if err != nil {
		q.sess.Abort()
		return err
	}
	// The call's context: a cancel through the registry ends it.
	ctx, cancel := q.sess.StatementContext(q.ctx)
	defer cancel()
	res, err := q.sess.Execute(ctx, p, nil)
	if err != nil {
		q.sess.Abort()
		return err
	}
	defer q.sess.Release(res)
	if res.Rows == nil {
		return nil
	}
	for {
		row, ok, err := res.Rows.Next()
		if err != nil {
			q.sess.Abort()
			return err
		}
		if !ok {
			return nil
		}
		f(row)
	}
}

// Next takes count values of the sequence schema.name.
func (q *Call) Next(schema, name string, count int64) ([]int64, error) {
	return q.NextInto(nil, schema, name, count)
}

// NextInto is Next appending the values to dst.
func (q *Call) NextInto(dst []int64, schema, name string, count int64) ([]int64, error) {
	if limit := q.core.MaxCount(); count < 1 || count > limit {
		return nil, BadRequest(fmt.Sprintf("count must be between 1 and %d (reserve takes a range of any size)", limit))
	}
	values := slices.Grow(dst, int(count))
	add := func(row []eval.Datum) { values = append(values, row[0].I) }
	var err error
	if count == 1 {
		var st *pgsql.Statement
		if st, err = q.sess.statement(statementKey{schema: schema, name: name}); err == nil { // nextval's own path, not a range's
			err = q.each(st, add)
		}
	} else {
		err = q.Each(fmt.Sprintf("select nextval(%s) from generate_series(1, %d)", QuoteLiteral(Qualified(schema, name)), count), add)
	}
	if err != nil {
		return nil, err
	}
	return values, nil
}

// Range is a reserved range, as seqd_reserve gives it: the values from
// First to Last by Increment, or for a shaped (NOORDER) sequence the
// counters First to Last mapped to values by Shape ("" for an ordered
// sequence: seqd_reserve's NULL).
type Range struct {
	First, Last, Increment int64
	Shape                  string
}

// Reserve reserves count values of the sequence as one range: count
// from 1 to MaxBulkRows.
func (q *Call) Reserve(schema, name string, count int64) (Range, error) {
	if limit := q.core.cfg.MaxBulkRows; count < 1 || count > limit {
		return Range{}, BadRequest(fmt.Sprintf("count must be between 1 and %d, not %d", limit, count))
	}
	st, err := q.sess.statement(statementKey{schema: schema, name: name, reserve: true, count: count})
	if err != nil {
		return Range{}, err
	}
	var rg Range
	err = q.each(st, func(r []eval.Datum) {
		rg = Range{First: r[0].I, Last: r[1].I, Increment: r[2].I, Shape: r[3].S}
	})
	return rg, err
}

// Release gives back the unused tail first..last of a reserved range, as
// seqd_release: true when it was the tail of what the sequence handed
// out last (the next caller gets first again), false when anything came
// between (the values stay burned). Bounds that run against the
// sequence's increment (first > last for an ascending sequence, first <
// last for a descending one) are no range it handed out: 22023.
func (q *Call) Release(schema, name string, first, last int64) (bool, error) {
	seq := QuoteLiteral(Qualified(schema, name))
	rows, err := q.Run(fmt.Sprintf("select seqd_release(%s, %d, %d)", seq, first, last))
	if err != nil {
		return false, err
	}
	if released := rows[0][0].Truth(); released || first == last {
		return released, nil
	}
	// Not given back: say why when the bounds themselves are wrong (a
	// second statement, only on this path; seqd_release checked the
	// privilege already and gave nothing back for such bounds).
	rows, err = q.Run("select seqincrement from pg_sequence where seqrelid = " + seq + "::regclass")
	if err != nil || len(rows) != 1 {
		return false, err
	}
	if inc := rows[0][0].I; inc > 0 && first > last || inc < 0 && first < last {
		dir := "up"
		if inc < 0 {
			dir = "down"
		}
		return false, BadRequest(fmt.Sprintf("first (%d) and last (%d) run against the sequence's increment (%d): a range of it runs from first %s to last", first, last, inc, dir))
	}
	return false, nil
}

// Text is the datum as a decimal string, nil for NULL.
func Text(d eval.Datum) any {
	if d.IsNull() {
		return nil
	}
	if d.Kind == eval.KText {
		return d.S
	}
	return strconv.FormatInt(d.I, 10)
}

// Qualified is the sequence schema.name as SQL names it, each name quoted
// (taken as it is: no case folding).
func Qualified(schema, name string) string { return QuoteIdent(schema) + "." + QuoteIdent(name) }

// QuoteIdent is s as a quoted identifier.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// QuoteLiteral is s as an escape string literal (E'...'), whose meaning
// standard_conforming_strings does not change.
func QuoteLiteral(s string) string {
	return "E'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// ValidName refuses a name no statement can hold: not UTF-8, or with a
// NUL byte, as PostgreSQL refuses such bytes in any text (22021).
func ValidName(n string) error {
	if !utf8.ValidString(n) || strings.IndexByte(n, 0) >= 0 {
		return &Error{Code: "22021", Msg: fmt.Sprintf("invalid byte sequence for encoding \"UTF8\" in name %q", n)}
	}
	return nil
}

// CheckName refuses a sequence's schema or name (the request's field
// field) that names no sequence as given: empty (22023), not valid text
// (ValidName: 22021), or longer than an identifier may be (42622:
// PostgreSQL would cut it to its first 63 bytes and name another
// sequence).
func CheckName(field, n string) error {
	switch {
	case n == "":
		return BadRequest(field + " is empty")
	case ValidName(n) != nil:
		return &Error{Code: "22021", Msg: fmt.Sprintf("%s: invalid byte sequence for encoding \"UTF8\" in %q", field, n)}
	case len(n) > pgsql.MaxIdentifierLength:
		return &Error{Code: "42622", Msg: fmt.Sprintf("%s is %d bytes long: at most %d", field, len(n), pgsql.MaxIdentifierLength)}
	}
	return nil
}

// session is a pooled session: its ID in the registry (its
// pg_backend_pid in pg_stat_activity; a cancel through the registry ends
// the call under way, as the caller's going away does) and the engine it
// serves.
type session struct {
	*executor.Session
	id      uint32
	eng     *engine.Engine
	standby bool
	reg     *frontend.Registry
	sw      *sweeper
	mu      sync.Mutex
	// ctx is what the session's statements run under, cancel its
	// cancel: made once and used by call after call until a cancel ends
	// it (then a new one), so that a call costs no context of its own.
	ctx    context.Context
	cancel context.CancelFunc
	// call is the caller's context of the call under way (nil between
	// calls), calls counts the calls begun, seen is calls as the sweeper
	// last saw it, and unlink undoes the link the sweeper made from
	// call's end to cancel.
	call   context.Context
	calls  uint64
	seen   uint64
	unlink func() bool
	// statements are the nextval and seqd_reserve statements of the
	// sequences the session took values of lately, parsed: made once, not
	// per call (a stream asks for the same range again and again).
	statements map[statementKey]*pgsql.Statement
}

// statementKey names a statement of statements: a nextval of
// schema.name, or (reserve) a seqd_reserve of count values of it.
type statementKey struct {
	schema, name string
	reserve      bool
	count        int64
}

// statement is the statement key names, parsed.
func (s *session) statement(key statementKey) (*pgsql.Statement, error) {
	if st, ok := s.statements[key]; ok {
		return st, nil
	}
	seq := QuoteLiteral(Qualified(key.schema, key.name))
	sql := "select nextval(" + seq + ")"
	if key.reserve {
		sql = fmt.Sprintf("select first, last, increment, shape from seqd_reserve(%s, %d)", seq, key.count)
	}
	stmts, err := pgsql.Parse(sql)
	if err != nil {
		return nil, err
	}
	if s.statements == nil || len(s.statements) >= 64 {
		s.statements = map[statementKey]*pgsql.Statement{}
	}
	s.statements[key] = &stmts[0]
	return &stmts[0], nil
}

// begin makes call the call under way and returns the context its
// statements run under.
func (s *session) begin(call context.Context) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil || s.ctx.Err() != nil {
		s.ctx, s.cancel = context.WithCancel(context.Background())
	}
	s.call = call
	s.calls++
	return s.ctx
}

// end ends the call under way.
func (s *session) end() {
	s.mu.Lock()
	unlink := s.unlink
	s.call, s.unlink = nil, nil
	s.mu.Unlock()
	if unlink != nil {
		unlink()
	}
}

// interrupt cancels the call under way, if any.
func (s *session) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call != nil {
		s.cancel()
	}
}

// sweep links the end of the caller's context to the session's cancel
// for a call that was under way at the last sweep too.
func (s *session) sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call != nil && s.calls == s.seen && s.unlink == nil {
		call := s.calls
		s.unlink = context.AfterFunc(s.call, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.calls == call && s.call != nil { // still that call
				s.cancel()
			}
		})
	}
	s.seen = s.calls
}

func (s *session) close() {
	s.Session.Close()
	s.reg.Unregister(s.id)
	s.sw.remove(s)
}

// A call whose caller goes away or cancels should stop, but a context
// derived from the caller's for each call costs more than the rest of a
// call's own work (allocations, and a map in the caller's context), for
// the rare call that lasts. So the calls run under their sessions'
// contexts, and once every sweepInterval one goroutine of the Core looks
// at every session: a call under way at its last look too (it has run
// for at least sweepInterval) gets its caller's context linked to its
// session's cancel (context.AfterFunc), and from then on ends as soon as
// its caller does. A deadline is applied to each call exactly (Start).
const sweepInterval = 250 * time.Millisecond

// sweeper is the Core's sessions and the goroutine that sweeps them,
// started with the first session.
type sweeper struct {
	mu       sync.Mutex
	sessions map[*session]struct{}
	quit     chan struct{}
	stopped  bool
}

func (w *sweeper) add(s *session) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sessions == nil {
		w.sessions = map[*session]struct{}{}
	}
	w.sessions[s] = struct{}{}
	if w.quit == nil && !w.stopped {
		w.quit = make(chan struct{})
		go w.run(w.quit)
	}
}

func (w *sweeper) remove(s *session) {
	w.mu.Lock()
	delete(w.sessions, s)
	w.mu.Unlock()
}

func (w *sweeper) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped && w.quit != nil {
		close(w.quit)
	}
	w.stopped = true
}

func (w *sweeper) run(quit chan struct{}) {
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	var sessions []*session
	for {
		select {
		case <-quit:
			return
		case <-t.C:
		}
		w.mu.Lock()
		sessions = sessions[:0]
		for s := range w.sessions {
			sessions = append(sessions, s)
		}
		w.mu.Unlock()
		for _, s := range sessions {
			s.sweep()
		}
		clear(sessions)
	}
}

// sessionPool keeps idle sessions per role, so that a call does not pay
// a session's start; a session of an engine no longer serving (a new
// term), or made while the node was a standby and it leads now (or the
// other way), is closed instead of reused.
type sessionPool struct {
	mu     sync.Mutex
	byUser map[string][]*session
	closed bool
}

// maxIdlePerUser bounds the idle sessions kept of a role: each holds one
// of the server's connection slots (-max-conns) while it waits.
const maxIdlePerUser = 8

func (p *sessionPool) get(user string, eng *engine.Engine, standby bool, make func() (*session, error)) (*session, error) {
	var stale []*session
	defer func() {
		for _, s := range stale {
			s.close()
		}
	}()
	p.mu.Lock()
	for list := p.byUser[user]; len(list) > 0; list = p.byUser[user] {
		s := list[len(list)-1]
		p.byUser[user] = list[:len(list)-1]
		if s.eng == eng && s.standby == standby {
			p.mu.Unlock()
			return s, nil
		}
		stale = append(stale, s)
	}
	p.mu.Unlock()
	return make()
}

func (p *sessionPool) put(user string, s *session) {
	p.mu.Lock()
	if p.closed || len(p.byUser[user]) >= maxIdlePerUser {
		p.mu.Unlock()
		s.close()
		return
	}
	p.byUser[user] = append(p.byUser[user], s)
	p.mu.Unlock()
}

func (p *sessionPool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, list := range p.byUser {
		for _, s := range list {
			s.close()
		}
	}
	p.byUser = map[string][]*session{}
}
