// The server's sessions as pg_stat_activity lists them (the catalog
// makes its rows): who is connected, what each runs or last ran, since
// when, and which lock it waits for.

package executor

import (
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// Activity is the sessions of one server, of every front end, as
// pg_stat_activity shows them. It is safe for concurrent use.
type Activity struct {
	mu    sync.Mutex
	byPID map[uint32]*backend
	// since is when counting began (pg_stat_database.stats_reset); the
	// rest are pg_stat_database's counters of the sessions that ended,
	// under mu, the times in milliseconds.
	since                                 time.Time
	commits, rollbacks                    int64
	deadlocks, sessions                   int64
	sessionTime, activeTime, idleInTxTime float64
	// values are the values the sessions that ended took, by protocol
	// (Config.Protocol).
	values map[string]int64
}

// NewActivity is an empty Activity.
func NewActivity() *Activity {
	return &Activity{byPID: map[uint32]*backend{}, since: time.Now(), values: map[string]int64{}}
}

// maxActivityQuery bounds the statement text pg_stat_activity keeps of a
// session, as PostgreSQL's track_activity_query_size (1024 bytes).
const maxActivityQuery = 1024

// backend is one session's entry. pid, start, addr, port, user, db and
// protocol never change; values is atomic; the rest is read under mu.
type backend struct {
	pid        uint32
	start      time.Time
	addr       string // client_addr; "" when unknown
	port       int    // client_port; -1 when unknown (a Unix socket)
	user, db   string
	tls        *tls.ConnectionState
	protocol   string // Config.Protocol
	wait       engine.WaitState
	mu         sync.Mutex
	app        string
	schema     string // the MySQL database the front end shows (ShowDatabase)
	active     bool
	execute    bool // it runs a statement the client prepared (ShowExecuting)
	disabled   bool // track_activities is off
	status     byte // the transaction status when it last went idle
	query      string
	queryStart time.Time
	changed    time.Time // state_change
	xactStart  time.Time
	// pg_stat_database's counters of the session: transactions ended,
	// deadlocks it was the victim of, and the milliseconds it spent
	// running statements and idle in a transaction.
	commits, rollbacks, deadlocks int64
	activeTime, idleInTxTime      float64
	activeSince                   time.Time // when it went active
	// values counts the values the session took (Session.took), not
	// under mu: written by the session alone, so the add contends with
	// nobody; Values reads it.
	values atomic.Int64
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// counted records a transaction's end (commit or rollback) in the
// session's counters.
func (s *Session) counted(commit bool) {
	b := s.backend
	b.mu.Lock()
	if commit {
		b.commits++
	} else {
		b.rollbacks++
	}
	b.mu.Unlock()
}

// add registers a session; remove forgets it.
func (a *Activity) add(b *backend) {
	a.mu.Lock()
	a.byPID[b.pid] = b
	a.sessions++
	a.mu.Unlock()
}

func (a *Activity) remove(b *backend) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byPID[b.pid] != b {
		return
	}
	delete(a.byPID, b.pid)
	b.mu.Lock()
	a.commits, a.rollbacks, a.deadlocks = a.commits+b.commits, a.rollbacks+b.rollbacks, a.deadlocks+b.deadlocks
	a.sessionTime += ms(time.Since(b.start))
	a.activeTime, a.idleInTxTime = a.activeTime+b.activeTime, a.idleInTxTime+b.idleInTxTime
	b.mu.Unlock()
	a.values[b.protocol] += b.values.Load()
}

// Values are the values the server's sessions took from sequences since
// it started, by protocol (Config.Protocol): nextval's one, a series'
// and a reserved range's every one. The ended sessions' and the live
// ones' so far, read under one lock, so that a session ending between
// two reads is counted once and the sums only grow.
func (a *Activity) Values() map[string]int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]int64, len(a.values)+4)
	for p, n := range a.values {
		out[p] = n
	}
	for _, b := range a.byPID {
		out[b.protocol] += b.values.Load()
	}
	return out
}

// took counts n values the session took from a sequence (Values): once
// per call, whatever n is.
func (s *Session) took(n int64) { s.backend.values.Add(n) }

// lookup is session pid's entry, nil if none.
func (a *Activity) lookup(pid uint32) *backend {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.byPID[pid]
}

// blockingPIDs is pg_blocking_pids(pid): the session whose transaction
// holds the lock session pid waits for (seqd waits for one at a time);
// empty when it waits for none, or there is no such session.
func (s *Session) blockingPIDs(pid int64) eval.Datum {
	if pid < 0 || pid > 1<<32-1 {
		return eval.Array()
	}
	if b := s.cfg.Activity.lookup(uint32(pid)); b != nil {
		if h := b.wait.Holder(); h != 0 {
			return eval.Array(eval.Int(int64(h)))
		}
	}
	return eval.Array()
}

// snapshot is every session's entry.
func (a *Activity) snapshot() []*backend {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]*backend, 0, len(a.byPID))
	for _, b := range a.byPID {
		out = append(out, b)
	}
	return out
}

// newBackend is the session's entry in cfg.Activity (a private one when
// the front end keeps none, so that the session still sees itself).
func newBackend(s *Session) {
	if s.cfg.Activity == nil {
		s.cfg.Activity = NewActivity()
	}
	now := time.Now()
	b := &backend{pid: uint32(s.backendPID()), start: now, port: -1, user: s.loginUser, db: s.cfg.Database,
		tls: s.cfg.TLS, protocol: s.cfg.Protocol, status: 'I', changed: now}
	if host, port, err := net.SplitHostPort(s.cfg.ClientAddr); err == nil {
		b.addr = host
		b.port, _ = strconv.Atoi(port)
	}
	b.app, _ = s.settingValue("application_name")
	s.backend, s.appVersion = b, s.pathVersion
	s.cfg.Activity.add(b)
}

// ShowAs names what the session's statements run for until it is Idle,
// as its client sent it, for pg_stat_activity: a front end that
// translates its dialect (MySQL's) into one or more statements shows
// what it was sent.
func (s *Session) ShowAs(text string) { s.clientText, s.clientExecute = text, false }

// ShowExecuting is ShowAs for a statement the client prepared and now
// executes (MySQL's COM_STMT_EXECUTE), which MySQL's PROCESSLIST shows
// as an Execute, not a Query.
func (s *Session) ShowExecuting(text string) { s.clientText, s.clientExecute = text, true }

// ShowDatabase names the MySQL database the session uses, "" for none,
// as information_schema.PROCESSLIST's DB shows it: the front end's USE
// and its DROP DATABASE of it say so.
func (s *Session) ShowDatabase(db string) {
	b := s.backend
	b.mu.Lock()
	b.schema = db
	b.mu.Unlock()
}

// StartsAt gives the time the front end read as the next statement
// began (for its own metrics), which pg_stat_activity's query_start then
// shares rather than reading the clock again; zero takes it back (the
// session reads the clock itself). A front end sets it before Execute and
// clears it after, so that no later statement takes it.
func (s *Session) StartsAt(t time.Time) { s.startsAt = t }

// activityBegin records that the session runs a statement of text (or
// what ShowAs named).
func (s *Session) activityBegin(text string) {
	if s.clientText != "" {
		text = s.clientText
	}
	if len(text) > maxActivityQuery {
		cut := maxActivityQuery
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		// A copy: the cut would keep the whole statement, up to the
		// largest message, alive for as long as the session is idle.
		text = strings.Clone(text[:cut])
	}
	if !s.tracking() {
		s.disableActivity()
		return
	}
	b := s.backend
	now := s.startsAt
	if now.IsZero() {
		now = time.Now()
	}
	b.mu.Lock()
	if !b.active {
		if b.status != 'I' && !b.changed.IsZero() {
			b.idleInTxTime += ms(now.Sub(b.changed))
		}
		b.activeSince = now
	}
	b.active, b.query, b.queryStart, b.changed, b.disabled, b.execute = true, text, now, now, false, s.clientExecute
	if b.status == 'I' {
		b.xactStart = now
	}
	b.mu.Unlock()
}

// tracking reports whether track_activities is on (the session's
// statements show in pg_stat_activity; off spares two clock reads per
// statement).
func (s *Session) tracking() bool {
	if s.trackVersion != s.pathVersion+1 {
		v, _ := s.settingValue("track_activities")
		s.track, s.trackVersion = v == "on", s.pathVersion+1
	}
	return s.track
}

// disableActivity shows the session as PostgreSQL shows one with
// track_activities off: state disabled, no statement, no times.
func (s *Session) disableActivity() {
	b := s.backend
	if b.disabled { // only the session writes it
		return
	}
	b.mu.Lock()
	b.disabled, b.active, b.query, b.activeSince = true, false, "", time.Time{}
	b.queryStart, b.changed, b.xactStart = time.Time{}, time.Time{}, time.Time{}
	b.mu.Unlock()
}

// Idle records that the session waits for its client again, in its
// transaction status: a front end calls it when it has answered a
// request in full (the rows of a result are computed as they are sent),
// where PostgreSQL's is ready for the next query. Until then the session
// shows as active, with what Execute last ran.
func (s *Session) Idle() { s.IdleAt(time.Time{}) }

// IdleAt is Idle at time now, a time the front end has read already
// (zero: the session reads the clock).
func (s *Session) IdleAt(now time.Time) {
	s.clientText, s.clientExecute = "", false
	b := s.backend
	if s.appVersion != s.pathVersion { // a setting changed: application_name may have
		app, _ := s.settingValue("application_name")
		b.mu.Lock()
		b.app = app
		b.mu.Unlock()
		s.appVersion = s.pathVersion
	}
	var commits, rollbacks int64
	if !s.tx.open && !s.implicit { // a transaction ended, if a statement ran
		if s.xactRan && s.xactFailed {
			rollbacks = 1
		} else if s.xactRan {
			commits = 1
		}
		s.xactRan, s.xactFailed = false, false
	}
	if !s.tracking() {
		if commits+rollbacks > 0 {
			s.counted(commits > 0)
		}
		s.disableActivity()
		return
	}
	status := s.tx.status()
	if status == 'I' && s.implicit {
		status = 'T' // the implicit transaction goes on to its Sync
	}

	if now.IsZero() {
		now = time.Now()
	}
	b.mu.Lock()
	b.commits, b.rollbacks = b.commits+commits, b.rollbacks+rollbacks
	if b.active && !b.activeSince.IsZero() {
		b.activeTime += ms(now.Sub(b.activeSince))
	}
	if b.active || b.status != status || b.disabled {
		b.changed = now
	}
	b.active, b.status, b.disabled = false, status, false
	if status == 'I' {
		b.xactStart = time.Time{}
	}
	b.mu.Unlock()
}

// backends are every session's entries as the catalog reads them
// (catalog.Backend).
func (a *Activity) backends() []catalog.Backend {
	live := a.snapshot()
	out := make([]catalog.Backend, 0, len(live))
	for _, b := range live {
		e := catalog.Backend{PID: b.pid, User: b.user, Database: b.db, Addr: b.addr, Port: b.port, TLS: b.tls, Start: b.start,
			WaitEvent: b.wait.Event()}
		b.mu.Lock()
		e.Application, e.Schema, e.Active, e.Disabled, e.Status, e.Query = b.app, b.schema, b.active, b.disabled, b.status, b.query
		e.Execute = b.execute
		e.QueryStart, e.Changed, e.XactStart = b.queryStart, b.changed, b.xactStart
		b.mu.Unlock()
		out = append(out, e)
	}
	return out
}

// databaseStats are pg_stat_database's counters of database db: the
// ended sessions' and the live ones' so far (catalog.DatabaseStats).
func (a *Activity) databaseStats(db string) catalog.DatabaseStats {
	a.mu.Lock()
	st := catalog.DatabaseStats{Commits: a.commits, Rollbacks: a.rollbacks, Deadlocks: a.deadlocks, Sessions: a.sessions,
		SessionTime: a.sessionTime, ActiveTime: a.activeTime, IdleInTransactionTime: a.idleInTxTime, Since: a.since}
	live := make([]*backend, 0, len(a.byPID))
	for _, b := range a.byPID {
		live = append(live, b)
	}
	a.mu.Unlock()
	now := time.Now()
	for _, b := range live {
		if b.db == db {
			st.Backends++
		}
		b.mu.Lock()
		st.Commits, st.Rollbacks, st.Deadlocks = st.Commits+b.commits, st.Rollbacks+b.rollbacks, st.Deadlocks+b.deadlocks
		st.SessionTime += ms(now.Sub(b.start))
		st.ActiveTime, st.IdleInTransactionTime = st.ActiveTime+b.activeTime, st.IdleInTransactionTime+b.idleInTxTime
		if b.active && !b.activeSince.IsZero() {
			st.ActiveTime += ms(now.Sub(b.activeSince))
		} else if b.status != 'I' && !b.changed.IsZero() {
			st.IdleInTransactionTime += ms(now.Sub(b.changed))
		}
		b.mu.Unlock()
	}
	return st
}
