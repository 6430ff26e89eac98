package executor

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// ServerVersion is the version seqd reports: the PostgreSQL release whose
// behaviour it follows.
const ServerVersion = "15.0 (seqd)"

// Config configures a Session.
type Config struct {
	Engine *engine.Engine
	// MaxBulkRows bounds the rows of one generate_series and one
	// seqd_reserve.
	MaxBulkRows int64
	// User and Database are the startup message's.
	User, Database string
	// Defaults are the server's settings for every session (its
	// configuration file's statement_timeout, ...): under the role's own
	// (ALTER ROLE ... SET) and the startup parameters.
	Defaults map[string]string
	// Params are the other startup parameters (application_name,
	// options, ...), applied as SET would.
	Params map[string]string
	// MaxStatementMemory bounds the memory one statement may keep
	// (budget.go); 0 takes DefaultMaxStatementMemory, negative none.
	MaxStatementMemory int64
	// BackendPID is what pg_backend_pid() returns.
	BackendPID uint32
	// Standby makes the session a hot standby's, as a cluster follower
	// presents itself: in_hot_standby on, every transaction read-only
	// (25006 for nextval, setval and DDL; read-write mode refused),
	// pg_is_in_recovery() true.
	Standby bool
	// Activity is the server's sessions, which pg_stat_activity lists:
	// the session joins it for its life (Close). Nil: the session lists
	// only itself.
	Activity *Activity
	// ClientAddr is the client's host:port, "" when unknown (a Unix
	// socket): pg_stat_activity's client_addr and client_port.
	ClientAddr string
	// TLS is the connection's TLS state, nil without TLS (pg_stat_ssl).
	TLS *tls.ConnectionState
	// Protocol names the front end the session serves (its listener's
	// name: pgwire, mysql, http, grpc), by which Activity.Values counts
	// the values the session takes.
	Protocol string
	// Superuser is the bootstrap superuser's name (the role seqd makes
	// at its first start): OID 10 in the catalog, the owner of its
	// relations, the grantor of role grants. Empty: the connecting user.
	Superuser string
}

// Session is one client's state: settings, transaction block, cursors,
// currval/lastval memory, prepared plans. It is not safe for concurrent
// use.
type Session struct {
	eng     *engine.Engine
	cfg     Config
	maxRows int64
	// sqlPrepared are the statements PREPARE made, by name.
	sqlPrepared map[string]*Prepared
	// statements are those and the protocol's named statements, as
	// pg_prepared_statements lists them (session_views.go).
	statements map[string]listedStatement
	// seqRowsMade counts the catalog rows made of sequences (a full read
	// of a relation over every sequence makes one per sequence; a lookup
	// one per sequence it names).
	seqRowsMade int

	seqs      seqMemory   // currval/lastval memory
	privCache privCache   // the last sequence's privileges (privileges.go)
	lastName  engine.Name // the sequence lastval refers to
	regText   string      // the last sequence name resolved from text, and its Name
	regName   engine.Name
	regEpoch  planEpoch // the epoch regName was resolved in

	typed map[typedKey]*typedSeq // sequences the typed operations named (seqops.go)

	reg *oidRegistry // this engine's OIDs
	// tempEng holds the temporary sequences, in tempSchema; nil until the
	// first is created.
	tempEng    *engine.Engine
	tempSchema string
	// txn and tempTxn are the transaction block's DDL on the server's and
	// the temporary engine, begun at the block's first DDL on each.
	txn, tempTxn *engine.Txn
	// implicit: a simple Query of several statements, or an
	// extended-protocol exchange up to its Sync, is running; outside a
	// block its statements are one transaction, as in PostgreSQL
	// (BeginImplicit). multi: it is a Query of several statements;
	// executed counts the statements it ran.
	implicit, multi bool
	executed        int
	settings        settings
	tx              txState
	cursors         map[string]*cursor
	cursorSeq       uint64                  // counts the cursors declared (cursor.seq)
	kept            eval.Kept               // what its cursors and the front end's suspended portals keep
	plans           map[*pg.Node]cachedPlan // simple-protocol plans by parse tree
	planBytes       int64                   // the plans' trees' estimated size
	// pathVersion counts setting changes: with the engine's catalog
	// version it says when a name may resolve differently.
	pathVersion uint64
	// roDefault caches default_transaction_read_only while roVersion is
	// pathVersion+1.
	roDefault bool
	roVersion uint64
	reported  []ParamStatus // reportable settings changed since the last Result
	warnings  exprWarnings  // what its expressions raised (warnings.go)
	// userWasRole: the user was a role when the session began (not a
	// name trust authentication let in), so that its role's being dropped
	// later takes its privileges away rather than making it a superuser.
	userWasRole bool
	// xactRan: a statement ran since the last transaction ended;
	// xactFailed: an error or a rollback ends it (pg_stat_database's
	// xact_commit and xact_rollback, counted at Idle).
	xactRan, xactFailed bool
	timeouts            timeoutCache // parsed statement_timeout, lock_timeout, ... (budget.go)
	// loginUser is who authenticated (PostgreSQL's session user before any
	// SET SESSION AUTHORIZATION); cfg.User is the current user, which
	// SET SESSION AUTHORIZATION changes (syncUser).
	loginUser string
	// authSeen is the engine's AuthVersion when the session last looked
	// for renamed roles (followRenames).
	authSeen uint64
	// tempRenames are renames the temporary sequences have yet to follow.
	tempRenames []engine.RoleRename
	// backend is the session's entry in the server's Activity;
	// appVersion the pathVersion it last read application_name at.
	backend    *backend
	appVersion uint64
	// track caches track_activities while trackVersion is pathVersion+1.
	track         bool
	trackVersion  uint64
	clientText    string    // ShowAs
	clientExecute bool      // ShowExecuting
	startsAt      time.Time // StartsAt
	// variables are the front end's system variables (ShowVariables).
	variables func() []catalog.SystemVariable
	// waitCtx is waitParent with the backend's WaitState: front ends
	// that run statements under one long-lived context derive it once.
	waitCtx, waitParent context.Context
}

// NewSession starts a session. A startup parameter seqd cannot honour is
// an error, as PostgreSQL refuses the connection.
func NewSession(cfg Config) (*Session, error) {
	s := &Session{eng: cfg.Engine, cfg: cfg, maxRows: cfg.MaxBulkRows}
	if s.maxRows <= 0 {
		s.maxRows = 10_000_000
	}
	switch {
	case s.cfg.MaxStatementMemory == 0:
		s.cfg.MaxStatementMemory = DefaultMaxStatementMemory
	case s.cfg.MaxStatementMemory < 0:
		s.cfg.MaxStatementMemory = 0
	}
	if s.cfg.User == "" {
		s.cfg.User = "seqd"
	}
	if s.cfg.Database == "" {
		s.cfg.Database = s.cfg.User
	}
	s.authSeen = s.eng.AuthVersion() // before the role is read: no rename is missed
	role, isRole := s.eng.Role(s.cfg.User)
	s.userWasRole, s.loginUser = isRole, s.cfg.User
	// As PostgreSQL, after authentication: CONNECT on the database.
	if s.databasePrivileges(s.cfg.User)&engine.PrivConnect == 0 {
		return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied for database \"%s\"", s.cfg.Database).
			WithDetail("User does not have CONNECT privilege.")
	}
	s.settings.init(s.cfg.User)
	if cfg.Standby {
		s.settings.values = map[string]string{"in_hot_standby": "on"}
	}
	for k, v := range cfg.Defaults {
		if err := s.settings.set(k, v, false); err != nil {
			return nil, err
		}
	}
	// The role's own defaults (ALTER ROLE ... SET), then the client's
	// startup parameters over them, as PostgreSQL applies them. A value
	// that no longer checks is skipped, as PostgreSQL warns and goes on.
	for _, st := range role.Settings {
		s.settings.set(st.Name, st.Value, false)
	}
	for k, v := range cfg.Params {
		if k == "options" {
			if err := s.applyOptions(v); err != nil {
				return nil, err
			}
			continue
		}
		if err := s.startupSetting(k, v); err != nil {
			return nil, err
		}
	}
	s.settings.markDefaults()
	s.reported = nil
	newBackend(s)
	return s, nil
}

// startupSetting applies a parameter the client's startup packet sets,
// refused as PostgreSQL refuses it there: a parameter fixed at server
// start or read from its configuration file, or a superuser's for
// another role.
func (s *Session) startupSetting(name, value string) error {
	if d := settingDefs[strings.ToLower(name)]; d.pg != nil {
		if err := d.pg.checkContext(true, s.isSuperuser(s.cfg.User)); err != nil {
			return err
		}
	}
	return s.settings.set(name, value, false)
}

// applyOptions applies the startup "options" parameter: -c name=value and
// --name=value switches, as a server's command line takes them.
func (s *Session) applyOptions(opts string) error {
	f := strings.Fields(opts)
	for i := 0; i < len(f); i++ {
		var kv string
		switch {
		case f[i] == "-c" && i+1 < len(f):
			kv = f[i+1]
			i++
		case strings.HasPrefix(f[i], "-c"):
			kv = f[i][2:]
		case strings.HasPrefix(f[i], "--"):
			kv = f[i][2:]
		default:
			return sqlerr.Errorf(sqlerr.ProtocolViolation, "invalid command-line argument for server process: %s", f[i])
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return sqlerr.Errorf(sqlerr.SyntaxError, "-c %s requires a value", kv)
		}
		if err := s.startupSetting(strings.ReplaceAll(k, "-", "_"), v); err != nil {
			return err
		}
	}
	return nil
}

// Reported returns the reportable settings (PostgreSQL's GUC_REPORT ones)
// with their current values, as a front end announces them at startup.
func (s *Session) Reported() []ParamStatus {
	var out []ParamStatus
	for _, name := range reportedSettings {
		v, _ := s.settingValue(name)
		out = append(out, ParamStatus{Name: settingDefs[strings.ToLower(name)].display, Value: v})
	}
	return out
}

// TxStatus is the transaction status: 'I' idle, 'T' in a block, 'E' in a
// failed block.
func (s *Session) TxStatus() byte { return s.tx.status() }

// Move makes the session read eng from its next statement on: a newer
// view of the same catalog (engine.Lineage), as a cluster follower's
// sessions move to its newest snapshot between transactions, so that
// they see sequences made since they connected. It reports false, and
// stays, inside a transaction, an implicit one or while a cursor is open
// (they read the view they began with). Names and plans are resolved
// again in the new view; the memory of currval and lastval stays (a
// sequence's ID is the same in every view).
func (s *Session) Move(eng *engine.Engine) bool {
	if eng == s.eng || eng.Lineage() != s.eng.Lineage() || s.tx.open || s.implicit || s.txn != nil || len(s.cursors) > 0 {
		return false
	}
	s.eng, s.cfg.Engine = eng, eng
	s.pathVersion++ // every cached resolution and plan is of the old view
	s.privCache = privCache{}
	s.authSeen = eng.AuthVersion()
	return true
}

// Abort records that a statement failed: an open block then refuses
// commands until it ends. Front ends call it for every error, including
// those of row streams and of the protocol. As in PostgreSQL, a failed
// block releases at once the locks it took since its last savepoint (all
// of them without one): what it did since can only be undone now, and a
// deadlock's victim so frees the other block.
func (s *Session) Abort() {
	s.xactFailed = true
	s.tx.abort()
	switch {
	case s.tx.open && len(s.tx.savepoints) > 0:
		s.rewindDDL(s.tx.savepoints[len(s.tx.savepoints)-1])
	case s.tx.open || s.implicit:
		s.endDDL(context.Background(), false)
	}
}

// BeginImplicit starts the implicit transaction of a simple Query with
// several statements (multi) or of extended-protocol messages up to a
// Sync. As in PostgreSQL, outside a block their DDL commits together when
// they all succeed (EndImplicit), and an error in any of them undoes all
// of it. BEGIN among them turns it into a block; COMMIT or ROLLBACK among
// them ends it (or the block) and the statements after them start
// another. A call while one is running changes nothing.
func (s *Session) BeginImplicit(multi bool) {
	if !s.implicit {
		s.implicit, s.multi, s.executed = true, multi, 0
	}
}

// EndImplicit ends the implicit transaction: commit (all succeeded) makes
// its DDL durable in one write, else it is rolled back. A failed commit
// is the error of the Query or of the Sync.
func (s *Session) EndImplicit(ctx context.Context, commit bool) error {
	if !s.implicit {
		return nil
	}
	s.implicit, s.multi, s.executed = false, false, 0
	if s.tx.open {
		return nil
	}
	err := s.endDDL(ctx, commit && !s.tx.aborted)
	if err != nil {
		s.xactFailed = true
	}
	return err
}

// preventInBlock refuses a command that cannot run in a transaction, as
// PostgreSQL's PreventInTransactionBlock: in a block or a Query of
// several statements, or after another statement before a Sync.
func (s *Session) preventInBlock(command string) error {
	switch {
	case s.tx.open || s.implicit && s.multi:
		return sqlerr.Errorf(sqlerr.ActiveTransaction, "%s cannot run inside a transaction block", command)
	case s.implicit && s.executed > 0:
		return sqlerr.Errorf(sqlerr.ActiveTransaction, "%s cannot be executed within a pipeline", command)
	}
	return nil
}

// Notice is a message that does not fail the statement.
type Notice struct {
	Severity string // NOTICE or WARNING
	Kind     sqlerr.Kind
	Msg      string
	Detail   string
	Hint     string
}

// ParamStatus is a reportable setting's new value.
type ParamStatus struct{ Name, Value string }

// Result is what one statement produced.
type Result struct {
	// Columns is nil for a statement that returns no rows.
	Columns []eval.Column
	Rows    eval.Rows
	// Tag is the command tag; a front end appends the number of rows it
	// sent when Rows is set ("SELECT 3", "FETCH 2").
	Tag     string
	Notices []Notice
	// Params are the reportable settings this statement changed.
	Params []ParamStatus
	// Deallocate names a prepared statement DEALLOCATE removes;
	// DeallocateAll removes every one (DEALLOCATE ALL, DISCARD ALL). The
	// front end owns prepared statements and carries these out.
	Deallocate    string
	DeallocateAll bool
	// Binary: the rows are a BINARY cursor's (FETCH), which PostgreSQL's
	// simple protocol sends in binary format.
	Binary bool
	// Memory is what a query's rows keep (nil for other statements): a
	// front end that keeps the result with rows left (a portal
	// suspended) keeps it counted (eval.Memory.Keep) until it drops the
	// result (Release), against the session's later statements' limit.
	Memory *eval.Memory

	// row is the one-row result this Result lives in, when it does:
	// Release gives its memory to the statement's next execution.
	row *oneRow
}

// oneRow is a one-row result in one allocation with its row; Release
// gives it back to the statement it came from (home).
type oneRow struct {
	res  Result
	row  eval.SingleRow
	home **oneRow
}

// Release tells the session that res (from Execute) is no longer used,
// nor anything it holds: what its rows keep counts as kept no more
// (Result.Memory), and its memory may serve the next execution of the
// same statement. The pipelined path then allocates nothing per
// statement for its result. Releasing is optional; a released result
// must not be touched again.
func (s *Session) Release(res *Result) {
	if res != nil && res.Memory != nil {
		res.Memory.Release() // no more the session's (a portal suspended)
	}
	if res == nil || res.row == nil {
		return
	}
	r := res.row
	res.row = nil
	if *r.home == nil {
		// Parked for the statement's next execution with nothing of
		// this one: its parameters and row would be kept by every
		// prepared statement, counted in none of their bounds.
		r.res, r.row = Result{}, eval.SingleRow{}
		*r.home = r
	}
}

// Prepared is a compiled statement. It is bound to its session.
type Prepared struct {
	// ParamTypes are the parameters' types, as declared or inferred.
	ParamTypes []*eval.Type
	// Columns are the result's columns, nil when the statement returns no
	// rows.
	Columns []eval.Column
	// txEnd: COMMIT/ROLLBACK/ROLLBACK TO, allowed in a failed block.
	txEnd bool
	// text is the statement's text, which pg_stat_activity shows while
	// it runs and after.
	text string
	// runs counts its executions, for pg_prepared_statements.
	runs int64
	run  func(ctx context.Context, params []eval.Datum) (*Result, error)
}

// Prepare compiles st. paramOIDs are the parameter types the client
// declared; 0 (or a missing entry) lets the statement's context decide.
func (s *Session) Prepare(st *pgsql.Statement, paramOIDs []uint32) (*Prepared, error) {
	s.followRenames()
	if s.tx.failed() && !isTxExit(st.Node) {
		// Before names are looked up, as in PostgreSQL: what the failed
		// block did is gone already.
		return nil, errInFailedBlock()
	}
	c := newPlanner(s, st.Query)
	c.clauses = st.Clauses
	for i, oid := range paramOIDs {
		if oid == 0 {
			continue
		}
		t := eval.TypeByOID(oid)
		if t == nil {
			return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "type with OID %d does not exist", oid)
		}
		c.SetParam(i+1, t)
	}
	p, err := c.statement(st.Node)
	if err != nil {
		return nil, st.Locate(err)
	}
	p.ParamTypes = c.ParamTypes()
	p.text = st.Query
	return p, nil
}

// maxPlans and maxPlanBytes bound the simple-protocol plan cache of one
// session: by count, and by the estimated size of the statements' trees
// (a plan is built from its tree and is about its size).
const (
	maxPlans     = 256
	maxPlanBytes = 8 << 20
)

// PrepareCached is Prepare for statements without parameters (the simple
// protocol): a statement seen before reuses its plan.
func (s *Session) PrepareCached(st *pgsql.Statement) (*Prepared, error) {
	epoch := s.planEpoch()
	if c, ok := s.plans[st.Node]; ok && c.epoch == epoch {
		return c.p, nil
	}
	p, err := s.Prepare(st, nil)
	if err != nil {
		return nil, err
	}
	if len(p.ParamTypes) > 0 {
		return nil, sqlerr.Errorf(sqlerr.UndefinedParameter, "there is no parameter $1")
	}
	if !pgsql.Cacheable(st.Query) {
		// Its parse tree is not kept either, so the plan would never be
		// found again: a long statement's plan would only hold memory.
		return p, nil
	}
	if s.plans == nil {
		s.plans = map[*pg.Node]cachedPlan{}
	}
	if len(s.plans) >= maxPlans || s.planBytes+st.Cost > maxPlanBytes {
		s.clearPlans()
	}
	s.plans[st.Node] = cachedPlan{p: p, epoch: epoch}
	s.planBytes += st.Cost
	return p, nil
}

// clearPlans empties the plan cache.
func (s *Session) clearPlans() {
	clear(s.plans)
	s.planBytes = 0
}

// cachedPlan is a plan and the epoch it was compiled in.
type cachedPlan struct {
	p     *Prepared
	epoch planEpoch
}

func errInFailedBlock() error {
	return sqlerr.Errorf(sqlerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// isTxExit reports whether a statement may run in a failed block:
// COMMIT, ROLLBACK, ROLLBACK TO (PostgreSQL's IsTransactionExitStmt).
func isTxExit(n *pg.Node) bool {
	t := n.GetTransactionStmt()
	return t != nil && isTxExitKind(t.Kind)
}

func isTxExitKind(k pg.TransactionStmtKind) bool {
	switch k {
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return true
	}
	return false
}

// Execute runs a prepared statement with its parameters.
func (s *Session) Execute(ctx context.Context, p *Prepared, params []eval.Datum) (*Result, error) {
	s.followRenames()
	if s.tx.failed() && !p.txEnd {
		return nil, errInFailedBlock()
	}
	if len(params) < len(p.ParamTypes) {
		return nil, sqlerr.Errorf(sqlerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(p.ParamTypes))
	}
	ctx = s.statementBegin(ctx, p.text)
	p.runs++
	r, err := p.run(ctx, params)
	if err := s.statementEnd(err); err != nil {
		return nil, err
	}
	if len(s.reported) > 0 {
		r.Params = s.reported
		s.reported = nil
	}
	if len(r.Notices) > 0 {
		r.Notices = s.visibleNotices(r.Notices)
	}
	return r, nil
}

// statementBegin is what every statement does as it starts to run, a
// prepared one (Execute) or a typed operation (seqops.go): its context
// with the session's wait state (pg_stat_activity's wait events) and
// lock_timeout, the session shown active running text, the transaction
// marked as having run one.
func (s *Session) statementBegin(ctx context.Context, text string) context.Context {
	if ctx != s.waitParent {
		s.waitParent, s.waitCtx = ctx, engine.WithWaitState(ctx, &s.backend.wait)
	}
	ctx = s.waitCtx
	if d := s.timeout(lockTimeout); d > 0 {
		ctx = engine.WithLockTimeout(ctx, d)
	}
	s.activityBegin(text)
	s.xactRan = true
	return ctx
}

// statementEnd is what every statement does once it ran, with its error
// (returned): counted in a Query's implicit transaction, and a
// deadlock's victim counted.
func (s *Session) statementEnd(err error) error {
	if s.implicit {
		s.executed++
	}
	if err != nil && errors.Is(err, engine.ErrDeadlock) {
		s.backend.mu.Lock()
		s.backend.deadlocks++
		s.backend.mu.Unlock()
	}
	return err
}

// messageLevels orders client_min_messages' values.
var messageLevels = map[string]int{"debug5": 0, "debug4": 0, "debug3": 0, "debug2": 0, "debug1": 0, "log": 1, "notice": 2, "warning": 3, "error": 4}

// visibleNotices are the notices client_min_messages lets through.
func (s *Session) visibleNotices(ns []Notice) []Notice {
	v, _ := s.settingValue("client_min_messages")
	min, ok := messageLevels[strings.ToLower(v)]
	if !ok || min <= messageLevels["notice"] {
		return ns
	}
	var out []Notice
	for _, n := range ns {
		if messageLevels[strings.ToLower(n.Severity)] >= min {
			out = append(out, n)
		}
	}
	return out
}

// backendPIDs hands out pg_backend_pid() values when the front end gives
// none.
var backendPIDs atomic.Uint32

func (s *Session) backendPID() int64 {
	if s.cfg.BackendPID == 0 {
		s.cfg.BackendPID = backendPIDs.Add(1)
	}
	return int64(s.cfg.BackendPID)
}

// commandResult is a result without rows.
func commandResult(tag string, notices ...Notice) *Result {
	return &Result{Tag: tag, Notices: notices}
}

func notice(kind sqlerr.Kind, format string, args ...any) Notice {
	return Notice{Severity: "NOTICE", Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func warning(kind sqlerr.Kind, format string, args ...any) Notice {
	return Notice{Severity: "WARNING", Kind: kind, Msg: fmt.Sprintf(format, args...)}
}
