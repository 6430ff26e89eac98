package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgsql"
)

// Authentication methods (Config.Auth).
const (
	// AuthTrust lets anyone in as the user HTTP Basic names (the
	// bootstrap superuser without credentials), as PostgreSQL's trust.
	AuthTrust = "trust"
	// AuthPassword wants HTTP Basic credentials of a role that may log
	// in, checked against its stored verifier.
	AuthPassword = "password"
)

// Config configures a Server.
type Config struct {
	// Engine serves the requests; Node, when set, is asked at each
	// request which engine serves it, and whether as a standby (which
	// refuses what writes, 503 with Retry-After).
	Engine *engine.Engine
	Node   func() (eng *engine.Engine, standby bool)
	// Registry is the connection budget and session IDs shared with the
	// other front ends: a request holds a slot while it runs.
	Registry *frontend.Registry
	// Auth is AuthTrust or AuthPassword; the zero value is AuthTrust.
	Auth string
	// Superuser is the bootstrap superuser (executor.Config's): the user
	// of a request without credentials under trust.
	Superuser string
	// TLS, when set, serves HTTPS only.
	TLS *tls.Config
	// MaxBulkRows bounds the values one request takes (count);
	// MaxStatementMemory and SessionDefaults are the executor's, as the
	// SQL front ends'.
	MaxBulkRows        int64
	MaxStatementMemory int64
	SessionDefaults    map[string]string
	// OnStatement, when set, is told of each request, as pgwire's: its
	// operation ("HTTP nextval"), SQLSTATE ("00000": success) and
	// duration (the server's metrics).
	OnStatement func(command, sqlstate string) func(d time.Duration)
	Logger      *log.Logger
}

// maxBody bounds a request's body: the largest a request needs is a
// sequence's options.
const maxBody = 64 << 10

// maxValues bounds the values one nextval request takes (with
// -max-bulk-rows): an answer of them is about 20 bytes each, held whole
// until sent. A larger batch is a range (reserve), whose answer is three
// numbers however many values it holds.
const maxValues = 100_000

// decimals is {"values": [...]} of vs, each a decimal string, made
// without reflection.
type decimals []int64

func (d decimals) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 13+22*len(d))
	b = append(b, `{"values":[`...)
	for i, v := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = strconv.AppendInt(b, v, 10)
		b = append(b, '"')
	}
	return append(b, "]}"...), nil
}

// Server serves the API on a listener.
type Server struct {
	cfg   Config
	http  *http.Server
	log   *log.Logger
	pool  sessionPool
	creds credentialCache
	mu    sync.Mutex
	auth  string
}

// NewServer makes a server; Serve starts it.
func NewServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = log.New(io.Discard, "", 0)
	}
	if cfg.Registry == nil {
		cfg.Registry = frontend.NewRegistry(10000, 3)
	}
	if cfg.Superuser == "" {
		cfg.Superuser = "seqd"
	}
	if cfg.MaxBulkRows <= 0 {
		cfg.MaxBulkRows = 1 << 20
	}
	s := &Server{cfg: cfg, log: cfg.Logger, auth: cfg.Auth}
	s.pool.byUser = map[string][]*session{}
	s.creds.ok = map[[32]byte]credential{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openAPI)
	})
	seq := "/v1/sequences/{schema}/{name}"
	mux.HandleFunc("POST "+seq+"/nextval", s.handle("nextval", s.nextval))
	mux.HandleFunc("POST "+seq+"/reserve", s.handle("reserve", s.reserve))
	mux.HandleFunc("POST "+seq+"/release", s.handle("release", s.release))
	mux.HandleFunc("GET "+seq, s.handle("describe", s.describe))
	mux.HandleFunc("PUT "+seq, s.handle("create", s.create))
	mux.HandleFunc("PATCH "+seq, s.handle("alter", s.alter))
	mux.HandleFunc("DELETE "+seq, s.handle("drop", s.drop))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, http.StatusNotFound, "XX000", "no such endpoint: "+r.Method+" "+r.URL.Path+" (see /v1/openapi.json)")
	})
	s.http = &http.Server{Handler: mux, TLSConfig: cfg.TLS, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10, ErrorLog: cfg.Logger}
	return s
}

// Serve serves l until Shutdown.
func (s *Server) Serve(l net.Listener) error {
	var err error
	if s.cfg.TLS != nil {
		err = s.http.ServeTLS(l, "", "")
	} else {
		err = s.http.Serve(l)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting requests, waits for those under way (until
// ctx ends) and closes the pooled sessions.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	s.pool.closeAll()
	return err
}

// SetAuth changes the authentication of new requests.
func (s *Server) SetAuth(method string) {
	s.mu.Lock()
	s.auth = method
	s.mu.Unlock()
}

func (s *Server) authMethod() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auth
}

// engine is the engine a request runs on, and whether as a standby.
func (s *Server) engine() (*engine.Engine, bool) {
	if s.cfg.Node != nil {
		return s.cfg.Node()
	}
	return s.cfg.Engine, false
}

// request is one authenticated request's session and what it names.
type request struct {
	ctx          context.Context
	sess         *executor.Session
	schema, name string
	body         map[string]json.RawMessage
}

// qualified is the request's sequence as SQL names it, each name
// quoted (taken as it is: no case folding).
func (q *request) qualified() string {
	return quoteIdent(q.schema) + "." + quoteIdent(q.name)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// handle runs f for an authenticated request with a pooled session of
// its role, within the connection budget, and writes its answer: a JSON
// value, or the problem its error is.
func (s *Server) handle(op string, f func(*request) (int, any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		if !s.cfg.Registry.Admit() {
			w.Header().Set("Retry-After", "1")
			writeProblem(w, http.StatusTooManyRequests, "53300", "sorry, too many clients already")
			return
		}
		defer s.cfg.Registry.Leave()
		user, err := s.authenticate(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Basic realm="seqd", charset="UTF-8"`)
			s.fail(w, err)
			return
		}
		q := &request{ctx: r.Context(), schema: r.PathValue("schema"), name: r.PathValue("name")}
		for _, n := range []string{q.schema, q.name} {
			if err := validName(n); err != nil {
				s.fail(w, err)
				return
			}
		}
		if err := readBody(w, r, &q.body); err != nil {
			s.fail(w, err)
			return
		}
		eng, standby := s.engine()
		sess, err := s.pool.get(user, eng, standby, func() (*session, error) { return s.newSession(r, user, eng, standby) })
		if err != nil {
			s.fail(w, err)
			return
		}
		ctx, done := sess.running(r.Context())
		q.ctx, q.sess = ctx, sess.Session
		status, v, err := f(q)
		done()
		sess.Idle()
		if sess.TxStatus() == 'I' {
			s.pool.put(user, sess)
		} else {
			sess.close()
		}
		var p *problem
		code := "00000"
		if err != nil {
			if p = problemOf(err); standby && p.code == "25006" {
				p.msg = "this node is a standby: send writes to the leader"
			}
			code = p.code
		}
		if s.cfg.OnStatement != nil {
			s.cfg.OnStatement("HTTP "+op, code)(time.Since(began))
		}
		if p != nil {
			s.fail(w, p)
			return
		}
		if v == nil {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
}

// newSession starts a session of user's for the pool.
func (s *Server) newSession(r *http.Request, user string, eng *engine.Engine, standby bool) (*session, error) {
	sess := &session{eng: eng, standby: standby, reg: s.cfg.Registry}
	id, _, ok := s.cfg.Registry.Register(sess.interrupt)
	if !ok {
		return nil, &problem{status: http.StatusTooManyRequests, code: "53300", msg: "sorry, too many clients already", retry: true}
	}
	// The last slots are superusers', as for the SQL front ends
	// (-reserved-conns).
	if role, isRole := eng.Role(user); !s.cfg.Registry.MayUseSlot(!isRole || role.Superuser) {
		s.cfg.Registry.Unregister(id)
		return nil, &problem{status: http.StatusTooManyRequests, code: "53300", retry: true,
			msg: "remaining connection slots are reserved for roles with the SUPERUSER attribute"}
	}
	es, err := executor.NewSession(executor.Config{Engine: eng, MaxBulkRows: s.cfg.MaxBulkRows, MaxStatementMemory: s.cfg.MaxStatementMemory,
		Defaults: s.cfg.SessionDefaults, Superuser: s.cfg.Superuser, User: user, Database: "seqd", Standby: standby, BackendPID: id,
		Params: map[string]string{"application_name": "seqd http api"}, Activity: s.cfg.Registry.Activity(), ClientAddr: r.RemoteAddr, TLS: r.TLS})
	if err != nil {
		s.cfg.Registry.Unregister(id)
		return nil, err
	}
	sess.id, sess.Session = id, es
	return sess, nil
}

// readBody decodes a request's JSON object, if it has a body.
func readBody(w http.ResponseWriter, r *http.Request, into *map[string]json.RawMessage) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	b, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return &problem{status: http.StatusRequestEntityTooLarge, code: "54000", msg: fmt.Sprintf("request body exceeds %d bytes", maxBody)}
	case err != nil:
		return &problem{status: http.StatusBadRequest, code: "08P01", msg: "could not read the request body: " + err.Error()}
	case len(strings.TrimSpace(string(b))) == 0:
		*into = map[string]json.RawMessage{}
		return nil
	}
	if err := json.Unmarshal(b, into); err != nil || *into == nil {
		return badRequest("the request body is not a JSON object")
	}
	return nil
}

// run executes one statement of the request's session and returns its
// rows (the statement timeout applies, as in the SQL front ends). The
// statement holds its values as literals: names quoted, integers
// formatted here, so that a statement seen before (the same sequence's
// next value) reuses its parse and its plan (PrepareCached).
func (q *request) run(sql string) ([][]eval.Datum, error) {
	var rows [][]eval.Datum
	err := q.each(sql, func(row []eval.Datum) {
		rows = append(rows, append([]eval.Datum(nil), row...))
	})
	return rows, err
}

// each runs sql as run does, handing each row to f as it is read (f may
// not keep it).
func (q *request) each(sql string, f func([]eval.Datum)) error {
	stmts, err := pgsql.Parse(sql)
	if err != nil {
		return err
	}
	p, err := q.sess.PrepareCached(&stmts[0])
	if err != nil {
		q.sess.Abort()
		return err
	}
	ctx, cancel := context.WithCancel(q.ctx)
	if d := q.sess.StatementTimeout(); d > 0 {
		ctx, cancel = context.WithTimeoutCause(q.ctx, d, eval.ErrStatementTimeout)
	}
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

// integer reads field name of the body as a decimal string (or a JSON
// integer), def when absent.
func (q *request) integer(name string, def int64) (int64, error) {
	raw, ok := q.body[name]
	if !ok {
		return def, nil
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		text = string(raw) // a JSON number
	}
	v, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return 0, badRequest(fmt.Sprintf("%s: %s is not a 64-bit integer (give it as a decimal string)", name, raw))
	}
	return v, nil
}

// text is the datum as a decimal string.
func text(d eval.Datum) any {
	if d.IsNull() {
		return nil
	}
	if d.Kind == eval.KText {
		return d.S
	}
	return strconv.FormatInt(d.I, 10)
}

// nextval takes count values (1 by default): {"values": [...]}.
func (s *Server) nextval(q *request) (int, any, error) {
	count, err := q.integer("count", 1)
	if err != nil {
		return 0, nil, err
	}
	if limit := min(s.cfg.MaxBulkRows, maxValues); count < 1 || count > limit {
		return 0, nil, badRequest(fmt.Sprintf("count must be between 1 and %d (reserve takes a range of any size)", limit))
	}
	sql := fmt.Sprintf("select nextval(%s) from generate_series(1, %d)", quoteLiteral(q.qualified()), count)
	if count == 1 {
		sql = "select nextval(" + quoteLiteral(q.qualified()) + ")" // nextval's own path, not a range's
	}
	values := make([]int64, 0, count)
	if err := q.each(sql, func(row []eval.Datum) { values = append(values, row[0].I) }); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, decimals(values), nil
}

// reserve reserves count values as a range seqd_reserve gives:
// {"first", "last", "increment", "shape"}.
func (s *Server) reserve(q *request) (int, any, error) {
	count, err := q.integer("count", 1)
	if err != nil {
		return 0, nil, err
	}
	rows, err := q.run(fmt.Sprintf("select first, last, increment, shape from seqd_reserve(%s, %d)", quoteLiteral(q.qualified()), count))
	if err != nil {
		return 0, nil, err
	}
	r := rows[0]
	return http.StatusOK, map[string]any{"first": text(r[0]), "last": text(r[1]), "increment": text(r[2]), "shape": text(r[3])}, nil
}

// release gives back the unused tail of a reserved range, as
// seqd_release: {"released": true} when it was the tail of what the
// sequence handed out last (the next caller gets first again), false
// when anything came between (the values stay burned).
func (s *Server) release(q *request) (int, any, error) {
	first, err := q.integer("first", 0)
	if err != nil {
		return 0, nil, err
	}
	last, err := q.integer("last", 0)
	if err != nil {
		return 0, nil, err
	}
	if _, ok := q.body["first"]; !ok {
		return 0, nil, badRequest("release needs first and last")
	}
	if _, ok := q.body["last"]; !ok {
		return 0, nil, badRequest("release needs first and last")
	}
	rows, err := q.run(fmt.Sprintf("select seqd_release(%s, %d, %d)", quoteLiteral(q.qualified()), first, last))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"released": rows[0][0].Truth()}, nil
}

// describe is the sequence's definition and position, as pg_sequences
// shows them.
func (s *Server) describe(q *request) (int, any, error) {
	rows, err := q.run(`select format_type(s.seqtypid, null), s.seqstart, s.seqmin, s.seqmax, s.seqincrement, s.seqcycle, s.seqcache,
		pg_sequence_last_value(c.oid), pg_get_userbyid(c.relowner)
		from pg_class c join pg_sequence s on s.seqrelid = c.oid where c.oid = ` + quoteLiteral(q.qualified()) + `::regclass`)
	if err != nil {
		return 0, nil, err
	}
	if len(rows) == 0 {
		return 0, nil, &problem{status: http.StatusNotFound, code: "42P01", msg: fmt.Sprintf("relation \"%s\" is not a sequence", q.qualified())}
	}
	r := rows[0]
	return http.StatusOK, map[string]any{"schema": q.schema, "name": q.name, "type": text(r[0]), "start": text(r[1]), "minvalue": text(r[2]),
		"maxvalue": text(r[3]), "increment": text(r[4]), "cycle": r[5].Truth(), "cache": text(r[6]), "last_value": text(r[7]), "owner": text(r[8])}, nil
}

// options are CREATE and ALTER SEQUENCE's options from the body: each
// value checked (an integer, a type of the three, a boolean), so that
// what reaches the statement is only what it says.
func (q *request) options(alter bool) (string, error) {
	var b strings.Builder
	known := map[string]bool{"type": true, "start": true, "increment": true, "minvalue": true, "maxvalue": true, "cache": true, "cycle": true, "restart": alter}
	for k := range q.body {
		if !known[k] {
			return "", badRequest(fmt.Sprintf("unknown option %q", k))
		}
	}
	if raw, ok := q.body["type"]; ok {
		var t string
		if json.Unmarshal(raw, &t) != nil || t != "smallint" && t != "integer" && t != "bigint" {
			return "", badRequest("type must be smallint, integer or bigint")
		}
		b.WriteString(" as " + t)
	}
	for _, o := range []struct{ field, sql string }{{"increment", "increment by"}, {"minvalue", "minvalue"}, {"maxvalue", "maxvalue"},
		{"start", "start with"}, {"restart", "restart with"}, {"cache", "cache"}} {
		if _, ok := q.body[o.field]; !ok {
			continue
		}
		v, err := q.integer(o.field, 0)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, " %s %d", o.sql, v)
	}
	if raw, ok := q.body["cycle"]; ok {
		var c bool
		if json.Unmarshal(raw, &c) != nil {
			return "", badRequest("cycle must be true or false")
		}
		if c {
			b.WriteString(" cycle")
		} else {
			b.WriteString(" no cycle")
		}
	}
	return b.String(), nil
}

// create makes the sequence (201; 409 if the name is taken).
func (s *Server) create(q *request) (int, any, error) {
	opts, err := q.options(false)
	if err != nil {
		return 0, nil, err
	}
	if _, err := q.run("create sequence " + q.qualified() + opts); err != nil {
		return 0, nil, err
	}
	return s.describeAs(q, http.StatusCreated)
}

// alter changes the sequence's options.
func (s *Server) alter(q *request) (int, any, error) {
	opts, err := q.options(true)
	if err != nil {
		return 0, nil, err
	}
	if opts == "" {
		return 0, nil, badRequest("no option to change")
	}
	if _, err := q.run("alter sequence " + q.qualified() + opts); err != nil {
		return 0, nil, err
	}
	return s.describeAs(q, http.StatusOK)
}

func (s *Server) describeAs(q *request, status int) (int, any, error) {
	_, v, err := s.describe(q)
	return status, v, err
}

// drop drops the sequence (204).
func (s *Server) drop(q *request) (int, any, error) {
	if len(q.body) > 0 {
		return 0, nil, badRequest("DELETE takes no body")
	}
	if _, err := q.run("drop sequence " + q.qualified()); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

// validName refuses a name no statement can hold: not UTF-8, or with a
// NUL byte, as PostgreSQL refuses such bytes in any text (22021).
func validName(n string) error {
	if !utf8.ValidString(n) || strings.IndexByte(n, 0) >= 0 {
		return &problem{status: http.StatusBadRequest, code: "22021", msg: fmt.Sprintf("invalid byte sequence for encoding \"UTF8\" in name %q", n)}
	}
	return nil
}

// quoteLiteral is s as an escape string literal (E'...'), whose meaning
// standard_conforming_strings does not change.
func quoteLiteral(s string) string {
	return "E'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// authenticate is the request's user: HTTP Basic's, checked against the
// role's verifier under AuthPassword (a login role's only), or under
// trust the name it gives (the bootstrap superuser without one).
func (s *Server) authenticate(r *http.Request) (string, error) {
	user, password, ok := r.BasicAuth()
	if s.authMethod() != AuthPassword {
		if !ok || user == "" {
			return s.cfg.Superuser, nil
		}
		return user, nil
	}
	fail := &problem{status: http.StatusUnauthorized, code: "28P01", msg: fmt.Sprintf("password authentication failed for user \"%s\"", user)}
	if !ok {
		return "", &problem{status: http.StatusUnauthorized, code: "28000", msg: "this API wants HTTP Basic credentials of a role that may log in"}
	}
	eng, _ := s.engine()
	role, found := eng.Role(user)
	if !found || !role.Login || role.Verifier == nil {
		auth.CheckPassword(dummyVerifier(), password) // the same cost as for a role: no telling which roles exist
		return "", fail
	}
	if !s.creds.check(user, password, role.Verifier, eng.AuthVersion()) {
		return "", fail
	}
	return user, nil
}

// dummyVerifier is checked against for a role that does not exist or may
// not log in, so that such a refusal takes as long as a wrong password.
var dummyVerifier = sync.OnceValue(func() *engine.Verifier {
	v, _ := auth.NewVerifier("no role has this password")
	return v
})

// credentialCache remembers the credentials checked since the roles last
// changed, so that a client sending its password with every request
// pays the verifier's key derivation once, not per request. It keeps a
// digest of each, never the password, and at most maxCredentials.
type credentialCache struct {
	mu sync.Mutex
	ok map[[32]byte]credential
}

type credential struct{ version uint64 }

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
	c.ok[key] = credential{version: version}
	return true
}

// session is a pooled session: its ID in the registry (its
// pg_backend_pid in pg_stat_activity; a cancel through the registry ends
// the request under way, as the client's going away does) and the
// engine it serves.
type session struct {
	*executor.Session
	id      uint32
	eng     *engine.Engine
	standby bool
	reg     *frontend.Registry
	mu      sync.Mutex
	cancel  context.CancelFunc // the request under way's
}

// running makes ctx the request under way's, which a cancel ends.
func (s *session) running(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}
}

func (s *session) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

func (s *session) close() {
	s.Session.Close()
	s.reg.Unregister(s.id)
}

// sessionPool keeps idle sessions per role, so that a request does not
// pay a session's start; a session of an engine no longer serving (a
// new term), or made while the node was a standby and it leads now (or
// the other way), is closed instead of reused.
type sessionPool struct {
	mu     sync.Mutex
	byUser map[string][]*session
	closed bool
}

// maxIdlePerUser bounds the idle sessions kept of a role: each holds one of
// the server's connection slots (-max-conns) while it waits.
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

//go:embed openapi.json
var openAPI []byte
