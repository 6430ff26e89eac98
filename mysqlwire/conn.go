package mysqlwire

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/vitess/go/sqltypes"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser"
	tmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// conn is one client connection's state: its executor session (made at
// its first statement, once authenticated), its database, its session
// variables and the cancel function of its running statement.
type conn struct {
	srv *Server
	c   *mysql.Conn
	// admitted is the connection under c's, counted in the budget.
	admitted *admitted
	thread   uint32 // the thread ID its handshake announced, reserved in the Registry
	id       uint32 // thread once its session is registered (authenticated), else 0; set under srv.mu
	sess     *executor.Session
	parser   *parser.Parser
	reading  tmysql.SQLMode // the modes parser reads with (readWith)
	modes    sqlMode        // sql_mode's, as SET last set it (0 for its default)
	db       string
	vars     map[string]string // the session variables SET changed
	// userVars are the user variables SET set, by lower-case name,
	// userVarBytes their memory (uservars.go).
	userVars     map[string]userValue
	userVarBytes int64
	// stmts are its prepared statements, stmtBytes their memory
	// (preparedCost).
	stmts     map[uint32]*prepared
	stmtBytes int64
	// showing is the client's statement being run (show); executing,
	// that it runs as one the client prepared (COM_STMT_EXECUTE).
	showing   string
	executing bool
	// plans are translations of the query strings the connection sent
	// (most send the same few again and again), by database and text.
	plans map[planKey][]step
	// diag is its diagnostics area (warnings.go); notices what the
	// executor said of the statement running, which its step's noted
	// makes MariaDB's notes.
	diag    diagnostics
	notices []executor.Notice
	// rowWarnings are the running statement's expressions' warnings
	// taken as its rows are read (warnings.go).
	rowWarnings rowWarnings
	// observed is OnStatement's answer for its last statement's
	// (command, SQLSTATE) (observe.go).
	observed observed
	// locked: LOCK TABLES was the last of LOCK and UNLOCK TABLES, so
	// that UNLOCK TABLES commits (locks.go).
	locked bool

	mu sync.Mutex
	// ctx is the context statements run under, cancel its cancel: kept
	// from statement to statement (a statement costs no context of its
	// own) and renewed after a cancel; running counts the statements
	// under way, which cancelStatement cancels.
	ctx     context.Context
	cancel  context.CancelFunc
	running int
	eng     *engine.Engine // its session's, for StopEngine
}

// handler is the listener's Handler: it finds a connection's conn.
type handler struct{ srv *Server }

func (h handler) conn(c *mysql.Conn) *conn { return c.ClientData.(*conn) }

// NewConnection gives the connection the thread ID its handshake
// announces (the budget counted it when it was accepted: accepting): an
// ID the Registry reserves, which becomes its session's once it
// authenticates, so that CONNECTION_ID() and pg_backend_pid() show it.
func (h handler) NewConnection(c *mysql.Conn) {
	cn := &conn{srv: h.srv, c: c, admitted: admittedOf(c.Conn), parser: newParser()}
	c.ClientData = cn
	c.StatusFlags |= mysql.ServerStatusAutocommit
	cn.thread = h.srv.cfg.Registry.ReserveID()
	h.srv.mu.Lock()
	h.srv.conns[cn.thread] = cn
	h.srv.mu.Unlock()
	c.ConnectionID = cn.thread
}

// ConnectionAuthenticated ends the connection's authentication timeout:
// its client proved who it is (the library's AuthenticatedHandler). Its
// session is registered only now, so that connections not yet
// authenticated, silent ones included, take none of the places the
// Registry counts for MayUseSlot (they are bounded as every protocol's
// are: accepting); its session ID is the thread ID its handshake
// announced. Past the places any role
// may take, only a superuser (or, under trust, a name that is no role)
// may stay, as in PostgreSQL: others get 1040.
func (h handler) ConnectionAuthenticated(c *mysql.Conn) error {
	cn := h.conn(c)
	if a := cn.admitted; a != nil {
		a.fc.Authenticated()
	}
	if _, ok := h.srv.cfg.Registry.RegisterID(cn.thread, cn.cancelStatement); !ok {
		return tooMany
	}
	h.srv.mu.Lock()
	cn.id = cn.thread
	h.srv.mu.Unlock()
	eng, _ := h.srv.engine()
	r, isRole := eng.Role(c.User)
	if !h.srv.cfg.Registry.MayUseSlot(!isRole || r.Superuser) {
		return tooMany
	}
	// Its session now, not at its first statement: every connection
	// authenticated shows in PROCESSLIST and pg_stat_activity, as in
	// MariaDB, those that ran nothing yet (or only what the front end
	// answers itself) too.
	if _, err := cn.session(); err != nil {
		return toSQLError(err)
	}
	return nil
}

func (h handler) ConnectionClosed(c *mysql.Conn) {
	cn := h.conn(c)
	cn.forgetAll()
	cn.mu.Lock()
	if cn.cancel != nil {
		cn.cancel() // the statements' context
	}
	cn.mu.Unlock()
	if cn.sess != nil {
		cn.sess.Close()
	}
	h.srv.mu.Lock()
	delete(h.srv.conns, cn.thread)
	h.srv.mu.Unlock()
	h.srv.cfg.Registry.Unregister(cn.thread) // its session, or the ID reserved
}

func (h handler) ConnectionAborted(c *mysql.Conn, reason string) error { return nil }

func (h handler) ComInitDB(c *mysql.Conn, db string) error {
	cn := h.conn(c)
	began := cn.began()
	cn.begins(&step{})
	err := cn.use(db)
	cn.idle() // the session waits for its client again, not in USE's SET
	cn.ended(&step{}, err)
	cn.observe("USE", err, began)
	if err != nil {
		return toSQLError(err)
	}
	return nil
}

func (h handler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	return h.query(ctx, c, query, callback, false)
}

// ComMultiQuery answers a query of one statement or several, the client
// having asked for several (CLIENT_MULTI_STATEMENTS): each statement's
// result in turn, all but the last with SERVER_MORE_RESULTS_EXISTS, up to
// the first that fails, whose error ends the query, as MariaDB answers.
func (h handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	return "", h.query(ctx, c, query, callback, true)
}

// query runs the statements of query; several only where the client
// asked for several (multi): otherwise a second statement is MariaDB's
// syntax error, before any runs, as MariaDB's parser stops there (a
// statement an injection appends to another does not run).
func (h handler) query(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, multi bool) error {
	cn := h.conn(c)
	began := cn.began()
	release, err := cn.parseRoom(ctx, query)
	if err != nil {
		return h.refused(cn, c, err, query, began)
	}
	if len(query) >= frontend.LongStatement && cn.admitted != nil {
		// Held while the results of all but the last statement are
		// sent: each write must be taken within roomWriteWait.
		cn.admitted.holding.Store(true)
		given := release
		release = func() { cn.admitted.holding.Store(false); given() }
	}
	defer release()
	read := cn.reading
	steps, err := cn.translate(query)
	if err == nil && len(steps) > 1 && !multi {
		err = stackedError(query, steps)
	}
	if err != nil {
		return h.refused(cn, c, err, query, began)
	}
	for i, n := 0, len(steps); i < n; i++ {
		if i > 0 {
			began = cn.began()
		}
		st := &steps[i]
		var fresh []step
		if st.reads { // built again with the user variables as they are now (uservars.go, rule 2)
			if fresh, err = translate(cn.parser, st.source, cn.env()); err == nil && len(fresh) != 1 {
				err = unsupported("this statement reading user variables")
			}
			if err == nil {
				st = &fresh[0]
			}
		}
		cn.begins(st)
		var res *sqltypes.Result
		if err == nil {
			res, err = cn.run(ctx, st)
		}
		cn.ended(st, err)
		if err != nil {
			cn.observe(st.command, err, began)
			h.srv.logFailure(c, err, st.text)
			return toSQLError(err)
		}
		var again error
		if i < n-1 && cn.reading != read {
			// It set how sql_mode reads (SET sql_mode): MariaDB reads each
			// statement of several when it comes to it, so those after
			// it are read again, from their text, as the mode now says
			// (where each ends too: NO_BACKSLASH_ESCAPES moves the end
			// of 'x\';).
			var rest strings.Builder
			for _, s := range steps[i+1:] {
				rest.WriteString(s.text)
			}
			var later []step
			later, again = translate(cn.parser, rest.String(), cn.env())
			if again == nil {
				steps, n = append(steps[:i+1:i+1], later...), i+1+len(later) // the kept translation unchanged
			}
			read = cn.reading
		}
		command, more := st.command, i < n-1
		if !more {
			// The last result is made: what the statements were built
			// from is not needed to send it, so a client that does not
			// read it holds neither that nor the room it took.
			steps, st, fresh = nil, nil, nil
			release()
		}
		err = callback(res, more)
		cn.observe(command, nil, began) // it ran, whether or not its answer reached the client
		if err != nil {
			return err
		}
		if again != nil { // those after it do not read so: the query's error, as when it came
			return h.refused(cn, c, again, query, cn.began())
		}
	}
	return nil
}

// refused ends a query with err before (or instead of) the statement
// err is about: the failure counted from began, logged and answered in
// MySQL's terms.
func (h handler) refused(cn *conn, c *mysql.Conn, err error, query string, began time.Time) error {
	cn.begins(&step{})
	cn.ended(&step{}, err)
	cn.observe("", err, began)
	h.srv.logFailure(c, err, query)
	return toSQLError(err)
}

// stackedError is MariaDB's 1064 for query, whose statements steps are
// more than one, sent without CLIENT_MULTI_STATEMENTS: near the second
// statement, at its line.
func stackedError(query string, steps []step) error {
	at := 0
	if i := strings.Index(query, steps[0].text); i >= 0 {
		at = i + len(steps[0].text)
	}
	if i := strings.Index(query[at:], strings.TrimSpace(steps[1].text)); i >= 0 {
		at += i
	}
	return syntaxErrorAt(query, at, nil)
}

// WarningCount is the conditions the statement just run raised.
func (h handler) WarningCount(c *mysql.Conn) uint16 { return h.conn(c).diag.warningCount() }

// begins begins st's diagnostics (warnings.go); ended ends them, err
// its failure.
func (cn *conn) begins(st *step) {
	if st.txControl && st.stmt != nil && st.stmt.Node.GetTransactionStmt().GetKind() == pg.TransactionStmtKind_TRANS_STMT_BEGIN {
		cn.locked = false // MariaDB's BEGIN releases LOCK TABLES' locks (locks.go)
	}
	cn.diag.start(st.clears)
	cn.notices = cn.notices[:0]
	cn.rowWarnings.reset()
	if cn.sess != nil {
		cn.sess.TakeWarnings() // none should be left: forget them
	}
}

func (cn *conn) ended(st *step, err error) {
	if cn.sess != nil {
		cn.rowWarnings.take(cn.sess, 1) // raised before its rows, or for none
		ws := &cn.rowWarnings
		for _, c := range exprConditions(ws.kept, ws.rows, st.clears) {
			cn.diag.push(c)
		}
		cn.diag.pushUnkept(ws.count - len(ws.kept))
		ws.reset()
	}
	switch {
	case err != nil:
		cn.diag.failed(err)
	case st.noted != nil:
		for _, c := range st.noted(cn.notices) {
			cn.diag.push(c)
		}
	}
}

// ComResetConnection starts the connection's session again (settings,
// sequence memory, transaction, prepared statements), in the database it
// is in, as MySQL's COM_RESET_CONNECTION does.
func (h handler) ComResetConnection(c *mysql.Conn) error {
	cn := h.conn(c)
	if cn.sess != nil {
		cn.sess.Close()
		cn.sess = nil
	}
	cn.vars, cn.userVars, cn.userVarBytes = nil, nil, 0
	cn.modes = 0
	cn.readWith(0) // sql_mode's default reads as no mode does
	cn.locked = false
	cn.diag = diagnostics{}
	cn.forgetAll() // prepared statements end with the session
	cn.status(nil)
	defer cn.idle() // waiting for its client, not in USE's SET
	if err := cn.enter(cn.db); err != nil {
		return toSQLError(err)
	}
	return nil
}

// ComChangeUser makes u, just authenticated, the connection's user in
// database db (none when empty), as MariaDB's COM_CHANGE_USER (the
// library's ChangeUserHandler; it called ComResetConnection before): a
// session of u's, with u's privileges, which CURRENT_USER(), KILL,
// PROCESSLIST and pg_stat_activity name. As for a new connection
// (ConnectionAuthenticated), past the places any role may take only a
// superuser may be had (1040); a database that is not there is 1049, and
// one u may not use the error USE gives. Refused, the connection is left
// its former user's, in its former database, its session started again.
func (h handler) ComChangeUser(c *mysql.Conn, u string, data mysql.Getter, db string) error {
	cn := h.conn(c)
	eng, _ := h.srv.engine()
	r, isRole := eng.Role(u)
	if !h.srv.cfg.Registry.MayUseSlot(!isRole || r.Superuser) {
		return tooMany
	}
	was, wasData, wasDB := c.User, c.UserData, cn.db
	defer cn.idle() // waiting for its client, not in USE's SET
	cn.become(u, data)
	err := cn.enter(db)
	if err == nil {
		return nil
	}
	cn.become(was, wasData)
	if err := cn.enter(wasDB); err != nil {
		frontend.Warn(h.srv.log, "mysql: connection %d: back in database %q after a refused COM_CHANGE_USER: %v", c.ConnectionID, wasDB, err)
	}
	return toSQLError(err)
}

// enter makes the connection's session (shown in PROCESSLIST and
// pg_stat_activity at once, as a new connection's), in database db (none
// when empty).
func (cn *conn) enter(db string) error {
	if db != "" {
		return cn.use(db)
	}
	_, err := cn.session()
	return err
}

// become makes u the connection's user (COM_CHANGE_USER): its session,
// made at next use, is u's, and the translations kept, which may name
// the user, are forgotten. The name is changed under the server's lock,
// under which kill reads it.
func (cn *conn) become(u string, data mysql.Getter) {
	if cn.sess != nil {
		cn.sess.Close()
		cn.sess = nil
	}
	cn.srv.mu.Lock()
	cn.c.User, cn.c.UserData = u, data
	cn.srv.mu.Unlock()
	cn.plans = nil
	cn.db = ""
}

// readWith has the connection's parser read with mode (sql_mode).
func (cn *conn) readWith(mode tmysql.SQLMode) {
	cn.parser.SetSQLMode(mode)
	cn.reading = mode
}

// planKey is a kept translation's database and text.
type planKey struct {
	db, query string
	mode      tmysql.SQLMode // how the parser read it (sql_mode)
	lenient   bool           // stmtEnv's
}

// Translations kept per connection: at most maxPlans, of texts of at most
// maxPlanText bytes.
const (
	maxPlans    = 256
	maxPlanText = 8192
)

// translate is translate's result for query in the connection's
// database, kept for the next time the connection sends it. A kept
// translation is only read: steps are not changed once made.
func (cn *conn) translate(query string) ([]step, error) {
	key := planKey{cn.db, query, cn.reading, cn.lenient()}
	if steps, ok := cn.plans[key]; ok {
		return steps, nil
	}
	steps, err := translate(cn.parser, query, cn.env())
	if err != nil || len(query) > maxPlanText {
		return steps, err
	}
	if cn.plans == nil || len(cn.plans) >= maxPlans {
		cn.plans = map[planKey][]step{}
	}
	kept := steps
	for i, s := range steps {
		if s.reads { // built again each time it runs: kept without the user variables' values it was built with
			if &kept[0] == &steps[0] {
				kept = slices.Clone(steps)
			}
			kept[i] = step{reads: true, source: s.source, text: s.text, command: s.command}
		}
	}
	cn.plans[key] = kept
	return steps, nil
}

// env is what the connection's session functions stand for.
func (cn *conn) env() stmtEnv {
	return stmtEnv{db: cn.db, user: cn.c.User + "@" + hostOf(cn.c), thread: cn.c.ConnectionID, userVars: cn.userVars,
		noBackslash: cn.reading&tmysql.ModeNoBackslashEscapes != 0, fullGroupBy: cn.reading&tmysql.ModeOnlyFullGroupBy != 0,
		signedSub: cn.reading&tmysql.ModeNoUnsignedSubtraction != 0, lenient: cn.lenient()}
}

// lenient reports whether the connection's sql_mode has neither
// STRICT_TRANS_TABLES nor STRICT_ALL_TABLES, which its default has.
func (cn *conn) lenient() bool {
	_, set := cn.vars["sql_mode"]
	return set && cn.modes&(modeStrictTrans|modeStrictAll) == 0
}

// parseRoom takes the room a statement of text needs from the room long
// statements share while it is parsed and built (and run, sent to run at once)
// (frontend.TakeParseRoom): nothing, for all but long ones. Its wait is
// the statement's, which KILL QUERY and statement_timeout end.
func (cn *conn) parseRoom(ctx context.Context, text string) (release func(), err error) {
	reg := cn.srv.cfg.Registry
	if len(text) < frontend.LongStatement {
		return reg.TakeParseRoom(ctx, len(text))
	}
	sess, err := cn.session()
	if err != nil {
		return nil, err
	}
	sctx, end := cn.statement(ctx, sess)
	defer cn.endStatement(end)
	return reg.TakeParseRoom(sctx, len(text))
}

// cancelStatement cancels the connection's running statement, if any
// (KILL QUERY, shutdown).
func (cn *conn) cancelStatement() {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.running > 0 {
		cn.cancel()
	}
}

// statement begins a statement: the context it runs under, cancelled by
// cancelStatement (KILL QUERY, shutdown) and bounded by the session's
// statement_timeout, and what endStatement ends. The connection's
// context serves every statement until one is cancelled, so a statement
// costs no context of its own; a caller's context that can end (none of
// the listener's can) cancels the statement too.
func (cn *conn) statement(caller context.Context, sess *executor.Session) (context.Context, statementEnd) {
	cn.mu.Lock()
	if cn.ctx == nil || cn.ctx.Err() != nil {
		cn.ctx, cn.cancel = context.WithCancel(context.Background())
	}
	ctx := cn.ctx
	cn.running++
	cn.mu.Unlock()
	var end statementEnd
	if caller.Done() != nil {
		end.unlink = context.AfterFunc(caller, cn.cancelStatement)
	}
	ctx, end.cancel = sess.StatementContext(ctx)
	return ctx, end
}

// statementEnd is what ending a statement releases besides its count.
type statementEnd struct {
	unlink func() bool        // from its caller's context
	cancel context.CancelFunc // its statement_timeout's (Session.StatementContext)
}

// endStatement ends a statement statement began.
func (cn *conn) endStatement(end statementEnd) {
	if end.unlink != nil {
		end.unlink()
	}
	end.cancel()
	cn.mu.Lock()
	cn.running--
	cn.mu.Unlock()
}

// show has pg_stat_activity show text, the client's statement, while
// the session runs it (the translation and the statements seqd adds
// around it, such as its savepoints, are not shown); idle, when its
// result is whole, shows the session idle.
func (cn *conn) show(text string) {
	cn.showing = text
	if cn.sess == nil {
		return
	}
	if cn.executing {
		cn.sess.ShowExecuting(text)
	} else {
		cn.sess.ShowAs(text)
	}
}

func (cn *conn) idle() {
	cn.showing = ""
	if cn.sess != nil {
		cn.sess.Idle()
	}
}

// session is the connection's executor session, made at first use.
func (cn *conn) session() (*executor.Session, error) {
	if cn.sess != nil {
		return cn.sess, nil
	}
	// The engine is taken under the server's lock, so that a snapshot
	// replaced meanwhile shows in Uses.
	cn.srv.mu.Lock()
	eng, standby := cn.srv.engine()
	cn.mu.Lock()
	cn.eng = eng
	cn.mu.Unlock()
	cn.srv.mu.Unlock()
	if standby {
		// The node stood by after the connection was accepted.
		cn.c.Close()
		return nil, errStandby
	}
	cfg := cn.srv.cfg
	s, err := executor.NewSession(executor.Config{Engine: eng, MaxBulkRows: cfg.MaxBulkRows, MaxStatementMemory: cfg.MaxStatementMemory,
		Defaults: cfg.SessionDefaults, Superuser: cfg.Superuser, User: cn.c.User, Database: cfg.Database, BackendPID: cn.id, Standby: standby,
		Activity: cfg.Registry.Activity(), ClientAddr: cn.c.RemoteAddr().String(), TLS: frontend.TLSState(cn.c.Conn), Protocol: "mysql"})
	if err != nil {
		return nil, err
	}
	cn.sess = s
	s.ShowVariables(cn.systemVariables)
	cn.show(cn.showing)
	return s, nil
}

// run runs one translated statement.
func (cn *conn) run(ctx context.Context, st *step) (res *sqltypes.Result, err error) {
	defer frontend.Contain(cn.srv.log, cn.c.ConnectionID, &err)
	if stepHook != nil {
		stepHook(st)
	}
	cn.show(st.text)
	defer cn.idle()
	if st.answer != nil {
		a, err := st.answer(cn)
		if err != nil || a == nil {
			return &sqltypes.Result{}, err
		}
		return a.result(), nil
	}
	sess, err := cn.session()
	if err != nil {
		return nil, err
	}
	defer cn.status(sess)
	if err := cn.before(ctx, sess, st); err != nil {
		return nil, err
	}
	if st.check != nil {
		if err := st.check(ctx, cn, sess); err != nil {
			return nil, err
		}
	}
	if st.exec != nil {
		res, err = st.exec(ctx, cn, sess)
	} else {
		res, err = cn.atomically(ctx, sess, st, func() (*sqltypes.Result, error) { return cn.runStep(ctx, sess, st) })
	}
	if err == nil && st.discard {
		res = &sqltypes.Result{}
	}
	return res, st.failed(st.tableErr(st.callErr(st.columnErr(err))))
}

// failed is err as the step's fail words it.
func (st *step) failed(err error) error {
	if err == nil || st.fail == nil {
		return err
	}
	return st.fail(err)
}

// stepHook, when set (by tests), is told each step a connection runs
// or prepares.
var stepHook func(st *step)

// tableErr is err, but for a table of the statement's FROM clauses
// that is not there (nor its database) MariaDB's 1146 naming it.
func (st *step) tableErr(err error) error {
	var se *sqlerr.Error
	if errors.As(err, &se) && se.Kind == sqlerr.UndefinedTable && se.Table != "" {
		// t.* of a table the FROM clause has not: ER_BAD_TABLE_ERROR,
		// naming it in the current database where it is not qualified.
		name := se.Table
		if !strings.Contains(name, ".") && st.db != "" {
			name = st.db + "." + name
		}
		return mysql.NewSQLError(1051, "42S02", "Unknown table '%s'", name)
	}
	if err == nil || len(st.tables) == 0 {
		return err
	}
	var missing string
	switch frontend.KindOf(err) {
	case sqlerr.UndefinedTable:
		if m := missingRelation.FindStringSubmatch(err.Error()); m != nil {
			missing = m[1]
		}
	case sqlerr.UndefinedSchema:
		if m := missingSchema.FindStringSubmatch(err.Error()); m != nil {
			missing = m[1] + "."
		}
	default:
		return err
	}
	for _, t := range st.tables {
		if name := tableName(t.schema, t.name); name == missing || t.schema != "" && t.schema+"." == missing {
			return noSuchTable(t.named)
		}
	}
	return err
}

// callErr is err, but for a function a call of the statement names
// that is not there, or not with as many arguments, MariaDB's 1305 or
// 1582 naming it as written.
func (st *step) callErr(err error) error {
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Kind != sqlerr.UndefinedFunction || se.Function == "" {
		return err
	}
	for _, c := range st.calls {
		if c.built != se.Function {
			continue
		}
		if se.WrongArgCount {
			return wrongArgCount(c.named)
		}
		return noSuchFunction(st.db, c.named)
	}
	return err
}

// columnErr is err, but naming the column reference it is about
// (sqlerr.Error's Column) as the statement wrote it, where the executor
// knows it in lower case.
func (st *step) columnErr(err error) error {
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Column == "" {
		return err
	}
	named, ok := st.columns[se.Column]
	if !ok {
		return err
	}
	written := *se
	written.Column = named
	return &written
}

// missingSchema is the executor's message for a schema that is not there.
var missingSchema = regexp.MustCompile(`^schema "(.*)" does not exist$`)

// guarded runs one of the session's typed operations for a statement
// answered here: in a transaction, as atomically runs a statement, its
// failure undoes it alone, not the transaction.
func (cn *conn) guarded(sess *executor.Session, op func(ctx context.Context) error) error {
	ctx := context.Background()
	_, err := cn.atomically(ctx, sess, &step{}, func() (*sqltypes.Result, error) { return nil, cn.typed(ctx, sess, op) })
	return err
}

// atomically runs a statement as MySQL runs one in a transaction: a
// failure undoes the statement, not the transaction (PostgreSQL's would
// fail the whole block), by a savepoint around it, which the session
// sets, rolls back to and releases as its typed operations.
func (cn *conn) atomically(ctx context.Context, sess *executor.Session, st *step, f func() (*sqltypes.Result, error)) (*sqltypes.Result, error) {
	if st.txControl || sess.TxStatus() != 'T' {
		return f()
	}
	if err := cn.typed(ctx, sess, func(ctx context.Context) error { return sess.Savepoint(ctx, statementSavepoint) }); err != nil {
		return nil, err
	}
	res, err := f()
	if err != nil {
		cn.typed(ctx, sess, func(ctx context.Context) error { return sess.RollbackToSavepoint(ctx, statementSavepoint) })
		cn.typed(ctx, sess, func(ctx context.Context) error { return sess.ReleaseSavepoint(ctx, statementSavepoint) })
		return nil, err
	}
	if err := cn.typed(ctx, sess, func(ctx context.Context) error { return sess.ReleaseSavepoint(ctx, statementSavepoint) }); err != nil {
		return nil, err
	}
	return res, nil
}

// statementSavepoint is the savepoint atomically sets around a statement.
const statementSavepoint = "seqd_statement"

// before does what MariaDB does before a statement: DDL commits the open
// transaction; with autocommit off any other statement begins one, which
// COMMIT or ROLLBACK ends.
func (cn *conn) before(ctx context.Context, sess *executor.Session, st *step) error {
	switch {
	case st.ddl && sess.TxStatus() != 'I':
		return cn.commit(ctx, sess)
	case !st.ddl && !st.txControl && cn.manual() && sess.TxStatus() == 'I':
		return cn.begin(ctx, sess)
	}
	return nil
}

// begin, commit and rollback are the session's BEGIN, COMMIT and
// ROLLBACK, run as the client's statements are (typed).
func (cn *conn) begin(ctx context.Context, sess *executor.Session) error {
	return cn.typed(ctx, sess, func(ctx context.Context) error { _, err := sess.Begin(ctx, nil); return err })
}

func (cn *conn) commit(ctx context.Context, sess *executor.Session) error {
	return cn.typed(ctx, sess, func(ctx context.Context) error { _, err := sess.Commit(ctx); return err })
}

func (cn *conn) rollback(ctx context.Context, sess *executor.Session) error {
	return cn.typed(ctx, sess, func(ctx context.Context) error { _, err := sess.Rollback(ctx); return err })
}

// typed runs one of the session's typed operations as a statement of
// the connection's: cancelled by KILL QUERY and shutdown, as a statement
// run from its text is (runPrepared).
func (cn *conn) typed(ctx context.Context, sess *executor.Session, op func(ctx context.Context) error) error {
	ctx, end := cn.statement(ctx, sess)
	defer cn.endStatement(end)
	return op(ctx)
}

// manual reports whether autocommit is off.
// (SET stores it as "0" or "1"; it is "1" until set.)
func (cn *conn) manual() bool { return cn.vars["autocommit"] == "0" }

// status sets the status flags the next OK and EOF packets carry:
// SERVER_STATUS_AUTOCOMMIT and SERVER_STATUS_IN_TRANS.
func (cn *conn) status(sess *executor.Session) {
	f := cn.c.StatusFlags &^ (mysql.ServerStatusAutocommit | serverStatusInTrans)
	if !cn.manual() {
		f |= mysql.ServerStatusAutocommit
	}
	if sess != nil && sess.TxStatus() != 'I' {
		f |= serverStatusInTrans
	}
	cn.c.StatusFlags = f
}

// serverStatusInTrans is SERVER_STATUS_IN_TRANS.
const serverStatusInTrans = 0x0001

// runStep runs a translated statement: BEGIN, COMMIT and ROLLBACK as
// the session's typed operations, another statement as its tree.
func (cn *conn) runStep(ctx context.Context, sess *executor.Session, st *step) (*sqltypes.Result, error) {
	if st.params > 0 {
		return nil, markerError(st)
	}
	if t := st.stmt.Node.GetTransactionStmt(); st.txControl && t != nil {
		var err error
		switch t.Kind {
		case pg.TransactionStmtKind_TRANS_STMT_BEGIN:
			err = cn.begin(ctx, sess)
		case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
			err = cn.commit(ctx, sess)
		default:
			err = cn.rollback(ctx, sess)
		}
		if err != nil {
			return nil, err
		}
		return &sqltypes.Result{}, nil
	}
	p, err := sess.PrepareCached(st.stmt)
	if err != nil {
		sess.Abort()
		return nil, st.stmt.Locate(err)
	}
	return cn.runPrepared(ctx, sess, p, st, nil)
}

// execStmt runs a statement on the session, its result's columns named
// as names says.
func (cn *conn) execStmt(ctx context.Context, sess *executor.Session, st *pgsql.Statement, names []string) (*sqltypes.Result, error) {
	p, err := sess.PrepareCached(st)
	if err != nil {
		sess.Abort()
		return nil, st.Locate(err)
	}
	return cn.runPrepared(ctx, sess, p, &step{names: names}, nil)
}

// runPrepared executes p with params, within the statement timeout and
// cancellable (KILL QUERY), and builds its result, its columns named as
// st says.
func (cn *conn) runPrepared(ctx context.Context, sess *executor.Session, p *executor.Prepared, st *step, params []eval.Datum) (*sqltypes.Result, error) {
	ctx, end := cn.statement(ctx, sess)
	defer cn.endStatement(end)
	res, err := sess.Execute(ctx, p, params)
	if err != nil {
		sess.Abort()
		sess.EndImplicit(ctx, false)
		return nil, err
	}
	defer sess.Release(res)
	cn.notices = append(cn.notices, res.Notices...)
	if res.Columns == nil {
		if err := sess.EndImplicit(ctx, true); err != nil {
			return nil, err
		}
		return &sqltypes.Result{}, nil
	}
	r := newResult(len(res.Columns))
	r.binaryRows = cn.executing
	out := &r.res
	for i, col := range res.Columns {
		name := col.Name
		if i < len(st.names) && st.names[i] != "" {
			name = st.names[i]
		}
		r.setColumn(i, name, col.Type, st.types)
	}
	for n := 0; ; n++ {
		row, ok, err := res.Rows.Next()
		if err != nil {
			sess.Abort()
			sess.EndImplicit(ctx, false)
			return nil, err
		}
		if !ok {
			break
		}
		cn.rowWarnings.take(sess, n+1+skipped(res.Rows)) // those raised computing this row
		if n >= cn.srv.cfg.MaxRows {
			sess.Abort()
			sess.EndImplicit(ctx, false)
			return nil, sqlerr.Errorf(sqlerr.ProgramLimitExceeded, "a result of more than %d rows is not supported over MySQL's protocol", cn.srv.cfg.MaxRows)
		}
		vals := r.row()
		for i, d := range row {
			if vals[i], err = r.value(i, res.Columns[i].Type, d); err != nil {
				sess.Abort()
				sess.EndImplicit(ctx, false)
				return nil, err
			}
		}
		out.Rows = append(out.Rows, vals)
	}
	if err := sess.EndImplicit(ctx, true); err != nil {
		return nil, err
	}
	return out, nil
}

// skipped is how many rows an OFFSET has passed by in rows so far, which
// MariaDB counts in the row its warnings name (eval's limitRows).
func skipped(rows eval.Rows) int {
	if s, ok := rows.(interface{ Skipped() int64 }); ok {
		return int(s.Skipped())
	}
	return 0
}

// use makes db the connection's database: its schema, which must exist,
// first on the search path (the session's UseSchema).
func (cn *conn) use(db string) error {
	sess, err := cn.session()
	if err != nil {
		return err
	}
	err = cn.guarded(sess, func(ctx context.Context) error { return sess.UseSchema(ctx, db) })
	if frontend.KindOf(err) == sqlerr.UndefinedSchema {
		return sqlerr.Errorf(sqlerr.UndefinedSchema, "Unknown database '%s'", db)
	}
	if err != nil {
		return err
	}
	cn.db = db
	sess.ShowDatabase(db)
	return nil
}
