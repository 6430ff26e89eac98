// The server's sessions as pg_stat_activity lists them: who is connected,
// what each runs or last ran, since when, and which lock it waits for.

package executor

import (
	"crypto/tls"
	"net"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// Activity is the sessions of one server, of every front end, as
// pg_stat_activity shows them. It is safe for concurrent use.
type Activity struct {
	mu    sync.Mutex
	byPID map[uint32]*backend
}

// NewActivity is an empty Activity.
func NewActivity() *Activity { return &Activity{byPID: map[uint32]*backend{}} }

// maxActivityQuery bounds the statement text pg_stat_activity keeps of a
// session, as PostgreSQL's track_activity_query_size (1024 bytes).
const maxActivityQuery = 1024

// backend is one session's entry. pid, start, addr, port, user and db
// never change; the rest is read under mu.
type backend struct {
	pid        uint32
	start      time.Time
	addr       string // client_addr; "" when unknown
	port       int    // client_port; -1 when unknown (a Unix socket)
	user, db   string
	tls        *tls.ConnectionState
	wait       engine.WaitState
	mu         sync.Mutex
	app        string
	active     bool
	disabled   bool // track_activities is off
	status     byte // the transaction status when it last went idle
	query      string
	queryStart time.Time
	changed    time.Time // state_change
	xactStart  time.Time
}

// add registers a session; remove forgets it.
func (a *Activity) add(b *backend) {
	a.mu.Lock()
	a.byPID[b.pid] = b
	a.mu.Unlock()
}

func (a *Activity) remove(b *backend) {
	a.mu.Lock()
	if a.byPID[b.pid] == b {
		delete(a.byPID, b.pid)
	}
	a.mu.Unlock()
}

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
		tls: s.cfg.TLS, status: 'I', changed: now}
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
func (s *Session) ShowAs(text string) { s.clientText = text }

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
		text = text[:cut]
	}
	if !s.tracking() {
		s.disableActivity()
		return
	}
	b := s.backend
	now := time.Now()
	b.mu.Lock()
	b.active, b.query, b.queryStart, b.changed, b.disabled = true, text, now, now, false
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
	b.disabled, b.active, b.query = true, false, ""
	b.queryStart, b.changed, b.xactStart = time.Time{}, time.Time{}, time.Time{}
	b.mu.Unlock()
}

// Idle records that the session waits for its client again, in its
// transaction status: a front end calls it when it has answered a
// request in full (the rows of a result are computed as they are sent),
// where PostgreSQL's is ready for the next query. Until then the session
// shows as active, with what Execute last ran.
func (s *Session) Idle() {
	s.clientText = ""
	b := s.backend
	if s.appVersion != s.pathVersion { // a setting changed: application_name may have
		app, _ := s.settingValue("application_name")
		b.mu.Lock()
		b.app = app
		b.mu.Unlock()
		s.appVersion = s.pathVersion
	}
	if !s.tracking() {
		s.disableActivity()
		return
	}
	status := s.tx.status()
	if status == 'I' && s.implicit {
		status = 'T' // the implicit transaction goes on to its Sync
	}
	now := time.Now()
	b.mu.Lock()
	if b.active || b.status != status || b.disabled {
		b.changed = now
	}
	b.active, b.status, b.disabled = false, status, false
	if status == 'I' {
		b.xactStart = time.Time{}
	}
	b.mu.Unlock()
}

// activityRows are pg_stat_activity's rows: every session, the reading
// session's included. Of a session whose role the reader does not hold
// (and it is no superuser), only who it is shows, as in PostgreSQL: its
// query reads <insufficient privilege>, the rest is NULL.
func (s *Session) activityRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	for _, b := range s.cfg.Activity.snapshot() {
		row := []eval.Datum{eval.Int(seqdDatabaseOID), eval.Text(b.db), eval.Int(int64(b.pid)), eval.Null,
			eval.Int(s.ownerOID(b.user)), eval.Text(b.user)}
		if !s.hasPrivsOfRole(b.user) {
			b.mu.Lock()
			app := b.app
			b.mu.Unlock()
			row = append(row, eval.Text(app))
			for range 12 { // client_addr ... backend_xmin
				row = append(row, eval.Null)
			}
			row = append(row, eval.Null, eval.Text("<insufficient privilege>"), eval.Null)
			out = append(out, row)
			continue
		}
		addr, port := eval.Null, eval.Int(-1) // PostgreSQL's for a Unix socket
		if b.addr != "" {
			addr, port = eval.Text(b.addr), eval.Int(int64(b.port))
		}
		event := b.wait.Event()
		b.mu.Lock()
		app, active, status, query, disabled := b.app, b.active, b.status, b.query, b.disabled
		queryStart, changed, xactStart := b.queryStart, b.changed, b.xactStart
		b.mu.Unlock()
		state, waitType, wait := "active", eval.Null, eval.Null
		switch {
		case disabled:
			state = "disabled"
			if event != "" {
				waitType, wait = eval.Text("Lock"), eval.Text(event)
			}
		case active && event != "":
			waitType, wait = eval.Text("Lock"), eval.Text(event)
		case !active:
			waitType, wait = eval.Text("Client"), eval.Text("ClientRead")
			state = map[byte]string{'I': "idle", 'T': "idle in transaction", 'E': "idle in transaction (aborted)"}[status]
		}
		row = append(row, eval.Text(app), addr, eval.Null, port, s.timestamptz(b.start), s.timestamptz(xactStart),
			s.timestamptz(queryStart), s.timestamptz(changed), waitType, wait, eval.Text(state), eval.Null, eval.Null, eval.Null,
			eval.Text(query), eval.Text("client backend"))
		out = append(out, row)
	}
	return out, nil
}

// timestamptz is t as a timestamp with time zone, shown in the session's
// TimeZone; NULL for the zero time.
func (s *Session) timestamptz(t time.Time) eval.Datum {
	if t.IsZero() {
		return eval.Null
	}
	return eval.Timestamptz(t, s.location())
}
