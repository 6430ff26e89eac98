package mysqlwire

import (
	"context"
	"errors"
	"strconv"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	tmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/seqd/seqd/internal/vitess/mysql"
	"google.golang.org/protobuf/proto"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

// Server-side prepared statements (COM_STMT_PREPARE, COM_STMT_EXECUTE,
// the binary protocol): the statement is translated and compiled once,
// its ? markers the executor's parameters $1, $2, ..., their types
// inferred from where they stand (SETVAL(s, ?): bigint).

// Prepared statements are bounded twice (a client could otherwise hold
// memory without end, a statement at a time): in count across the server,
// as MariaDB's max_prepared_stmt_count bounds them, and in the memory one
// connection's hold.
const (
	// DefaultMaxPreparedStatements is Config.MaxPreparedStatements'
	// default, MariaDB's max_prepared_stmt_count's.
	DefaultMaxPreparedStatements = 16382
	// DefaultMaxPreparedMemory is Config.MaxPreparedMemory's default.
	DefaultMaxPreparedMemory = 16 << 20
)

// prepared is a connection's prepared statement.
type prepared struct {
	st     *step
	p      *executor.Prepared // nil for a statement answered here
	params []*eval.Type       // nil where typed when executed (bound)
	cost   int64              // its estimated memory (preparedCost)
	// query is the statement's text; bound: it is built again with the
	// values bound at every execution (bound.go, rule 2).
	query string
	bound bool
	// reading is how the parser read it (sql_mode): built again, it is
	// read so again, whatever SET sql_mode says by then, as MariaDB reads
	// a prepared statement once, with the mode of its COM_STMT_PREPARE.
	reading tmysql.SQLMode
}

// preparedCost estimates the memory a prepared statement holds: its text
// twice over (the library's copy, the translation's), the executor's plan
// about 8 bytes per byte of its parse tree's encoding, and half a KiB for
// each result column and for the rest. Measured with statements of 100 KB
// (held: estimated), a literal 0.2 MB: 1.0 MB, 50,000 columns 23.5 MB:
// 34 MB, an IN list of 50,000 5.3 MB: 5.3 MB, 5,000 parameters 1.1 MB:
// 4.9 MB; one of 1 KB and 30 parameters 8 KB: 36 KB.
func preparedCost(text string, tree *pg.Node, columns int) int64 {
	cost := 2*int64(len(text)) + 512*int64(columns) + 1024
	if tree != nil {
		cost += 8 * int64(proto.Size(tree))
	}
	return cost
}

// reservePrepared takes one of the server's places for a prepared
// statement (MaxPreparedStatements); false when none is left.
func (s *Server) reservePrepared() bool {
	max := int64(s.cfg.MaxPreparedStatements)
	for {
		n := s.prepared.Load()
		if max > 0 && n >= max {
			return false
		}
		if s.prepared.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// keep adds a statement prepared under id to the connection's.
func (cn *conn) keep(id uint32, ps *prepared) {
	if cn.stmts == nil {
		cn.stmts = map[uint32]*prepared{}
	}
	cn.stmts[id] = ps
	cn.stmtBytes += ps.cost
}

// forget ends the connection's statement id, giving its place back.
func (cn *conn) forget(id uint32) {
	if ps, ok := cn.stmts[id]; ok {
		delete(cn.stmts, id)
		cn.stmtBytes -= ps.cost
		cn.srv.prepared.Add(-1)
	}
}

// forgetAll ends all the connection's statements.
func (cn *conn) forgetAll() {
	cn.srv.prepared.Add(-int64(len(cn.stmts)))
	cn.stmts, cn.stmtBytes = nil, 0
}

// ComStmtClose forgets a statement the client closed (the library's
// StmtCloser).
func (h handler) ComStmtClose(c *mysql.Conn, id uint32) { h.conn(c).forget(id) }

func (h handler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, pd *mysql.PrepareData) (fields []*querypb.Field, err error) {
	cn := h.conn(c)
	began := cn.began()
	if !cn.srv.reservePrepared() {
		delete(c.PrepareData, pd.StatementID)
		return nil, mysql.NewSQLError(mysql.ERMaxPreparedStmtCountReached, "42000", "Can't create more than max_prepared_stmt_count statements (current value: %d)", cn.srv.cfg.MaxPreparedStatements)
	}
	defer func() {
		if err != nil {
			cn.begins(&step{})
			cn.ended(&step{}, err)
			cn.observe("", err, began)
			cn.srv.prepared.Add(-1)
			delete(c.PrepareData, pd.StatementID)
			cn.srv.logFailure(c, err, query)
			err = toSQLError(err)
		}
	}()
	release, err := cn.parseRoom(ctx, query)
	if err != nil {
		return nil, err
	}
	defer release()
	ps, fields, tree, err := cn.prepareStatement(query, false)
	if err != nil {
		// Rule 2 of bound.go: typed at each execution.
		later, lfields, ltree, lerr := cn.prepareStatement(query, true)
		if lerr != nil && errors.Is(err, errBuiltWithValues) {
			return nil, lerr
		}
		if lerr != nil || len(later.params) == 0 {
			return nil, err
		}
		ps, fields, tree = later, lfields, ltree
	}
	if ps.st.discard {
		fields = nil // DO: no rows
	} else if !ps.bound && len(ps.params) > 0 && len(fields) > 0 && cn.columnsFollowValues(query, fields) {
		ps.bound = true // rule 3 of bound.go
	}
	ps.cost = preparedCost(query, tree, len(fields))
	if max := cn.srv.cfg.MaxPreparedMemory; max > 0 && cn.stmtBytes+ps.cost > max {
		return nil, sqlerr.Errorf(sqlerr.OutOfMemory, "this connection's prepared statements would hold more than %d bytes; close some (COM_STMT_CLOSE) first", max)
	}
	pd.ParamsCount = uint16(len(ps.params))
	pd.ParamsType = make([]int32, len(ps.params))
	pd.BindVars = make(map[string]*querypb.BindVariable, len(ps.params))
	cn.keep(pd.StatementID, ps)
	return fields, nil
}

// A statement of more ? markers than the protocol numbers (its
// parameter count is 16 bits) is refused as MariaDB refuses it, before it
// is prepared: PostgreSQL's side answered 1105 "there is no parameter
// $65536", after building it several times.
const (
	maxPlaceholders = 65535
	erPSManyParam   = 1390 // ER_PS_MANY_PARAM
)

// prepareStatement translates query and prepares it, its markers typed
// by where they stand or, bound, read as empty strings (rule 2 of
// bound.go): ps, its result columns and its tree.
func (cn *conn) prepareStatement(query string, bound bool) (ps *prepared, fields []*querypb.Field, tree *pg.Node, err error) {
	if !bound {
		return cn.prepareBound(query, nil)
	}
	return cn.prepareBound(query, func(int) ast.ExprNode { return ast.NewValueExpr("", "utf8mb4", "utf8mb4_bin") })
}

// prepareBound is prepareStatement with bind's value for each marker (nil
// bind: none, the markers typed by where they stand); ps.bound is set
// where bind is.
func (cn *conn) prepareBound(query string, bind func(i int) ast.ExprNode) (ps *prepared, fields []*querypb.Field, tree *pg.Node, err error) {
	var steps []step
	markers := 0
	bound := bind != nil
	if bound {
		steps, err = translateBound(cn.parser, query, cn.env(), func(i int) ast.ExprNode {
			markers = max(markers, i+1)
			return bind(i)
		})
	} else {
		steps, err = translate(cn.parser, query, cn.env())
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if len(steps) != 1 {
		return nil, nil, nil, unsupported("preparing several statements at once")
	}
	if n := max(steps[0].params, markers); n > maxPlaceholders {
		return nil, nil, nil, mysql.NewSQLError(erPSManyParam, "HY000", "Prepared statement contains too many placeholders")
	}
	ps = &prepared{st: &steps[0], query: query, bound: bound, reading: cn.reading}
	if stepHook != nil {
		stepHook(ps.st)
	}
	switch {
	case ps.st.acts:
		// Answered when executed, with no rows; SET @v = ? built again
		// with the values bound (uservars.go).
		if n := ps.st.params; n > 0 {
			ps.params, ps.bound = make([]*eval.Type, n), true
		}
	case ps.st.answer != nil:
		a, err := ps.st.answer(cn)
		if err != nil {
			return nil, nil, nil, err
		}
		if a != nil {
			fields = a.result().Fields
		}
	default:
		sess, err := cn.session()
		if err != nil {
			return nil, nil, nil, err
		}
		st, n := ps.st.stmt, ps.st.params
		tree = st.Node
		if ps.p, err = sess.Prepare(st, nil); err != nil {
			return nil, nil, nil, ps.st.failed(ps.st.tableErr(ps.st.callErr(ps.st.columnErr(st.Locate(err)))))
		}
		ps.params = ps.p.ParamTypes
		if bound {
			ps.params = make([]*eval.Type, markers)
		} else if len(ps.params) != n {
			return nil, nil, nil, unsupported("parameters where seqd cannot tell their type")
		}
		for i, col := range ps.p.Columns {
			name := col.Name
			if i < len(ps.st.names) && ps.st.names[i] != "" {
				name = ps.st.names[i]
			}
			f := &querypb.Field{}
			setColumn(f, name, col.Type, ps.st.types, i)
			fields = append(fields, f)
		}
	}
	return ps, fields, tree, nil
}

func (h handler) ComStmtExecute(ctx context.Context, c *mysql.Conn, pd *mysql.PrepareData, callback func(*sqltypes.Result) error) (err error) {
	cn := h.conn(c)
	began := cn.began()
	ps := cn.stmts[pd.StatementID]
	if ps == nil {
		err := sqlerr.Errorf(sqlerr.InvalidStatementName, "Unknown prepared statement handler (%d) given to mysqld_stmt_execute", pd.StatementID)
		cn.observe("", err, began)
		return toSQLError(err)
	}
	cn.begins(ps.st)
	cn.executing = true
	res, err := cn.execute(ctx, ps, pd)
	cn.executing = false
	if err == nil && res != nil {
		err = binaryFits(res)
	}
	cn.ended(ps.st, err)
	if err != nil {
		cn.observe(ps.st.command, err, began)
		cn.srv.logFailure(c, err, ps.st.text)
		return toSQLError(err)
	}
	err = callback(res)
	cn.observe(ps.st.command, nil, began)
	return err
}

// execute runs a prepared statement with the parameters the client bound.
func (cn *conn) execute(ctx context.Context, ps *prepared, pd *mysql.PrepareData) (res *sqltypes.Result, err error) {
	if ps.st.reads && !ps.st.acts || ps.st.acts && ps.bound { // the user variables as they are now, SET @v = ? (uservars.go)
		return cn.executeBound(ctx, ps, pd)
	}
	if ps.p == nil {
		return cn.run(ctx, ps.st)
	}
	if ps.bound || ps.misread(pd) || ps.modesMoved(cn) {
		return cn.executeBound(ctx, ps, pd)
	}
	cn.show(ps.st.text)
	defer cn.idle()
	sess, err := cn.session()
	if err != nil {
		return nil, err
	}
	defer cn.status(sess)
	if err := cn.before(ctx, sess, ps.st); err != nil {
		return nil, err
	}
	if ps.st.check != nil {
		if err := ps.st.check(ctx, cn, sess); err != nil {
			return nil, err
		}
	}
	params := make([]eval.Datum, len(ps.params))
	for i, t := range ps.params {
		bv := pd.BindVars["v"+strconv.Itoa(i+1)]
		if bv == nil {
			return nil, sqlerr.Errorf(sqlerr.ProtocolViolation, "parameter %d was not sent", i+1)
		}
		if bv.Type == querypb.Type_NULL_TYPE {
			params[i] = eval.Null
			continue
		}
		if params[i], err = sess.Input(t, string(bv.Value)); err != nil {
			return nil, err
		}
	}
	res, err = cn.atomically(ctx, sess, ps.st, func() (*sqltypes.Result, error) { return cn.runPrepared(ctx, sess, ps.p, ps.st, params) })
	if err == nil && ps.st.discard {
		res = &sqltypes.Result{}
	}
	return res, ps.st.failed(ps.st.tableErr(ps.st.callErr(ps.st.columnErr(err))))
}
