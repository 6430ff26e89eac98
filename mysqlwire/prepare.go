package mysqlwire

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// Server-side prepared statements (COM_STMT_PREPARE, COM_STMT_EXECUTE,
// the binary protocol): the statement is translated and compiled once,
// its ? markers the executor's parameters $1, $2, ..., their types
// inferred from where they stand (SETVAL(s, ?): bigint).

// maxPrepared is MySQL's max_prepared_stmt_count default: the prepared
// statements one connection may hold.
const maxPrepared = 16382

// prepared is a connection's prepared statement.
type prepared struct {
	st     *step
	p      *executor.Prepared // nil for a statement answered here
	params []*eval.Type
}

func (h handler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, pd *mysql.PrepareData) (fields []*querypb.Field, err error) {
	cn := h.conn(c)
	defer func() {
		if err != nil {
			delete(c.PrepareData, pd.StatementID)
			cn.srv.logFailure(c, err, query)
			err = toSQLError(err)
		}
	}()
	// Forget the statements the client closed (COM_STMT_CLOSE is the
	// listener's).
	for id := range cn.stmts {
		if _, open := c.PrepareData[id]; !open {
			delete(cn.stmts, id)
		}
	}
	if len(cn.stmts) >= maxPrepared {
		return nil, mysql.NewSQLError(1461, "42000", "Can't create more than max_prepared_stmt_count statements (current value: %d)", maxPrepared)
	}
	steps, err := translate(cn.parser, query, cn.db)
	if err != nil {
		return nil, err
	}
	if len(steps) != 1 {
		return nil, unsupported("preparing several statements at once")
	}
	ps := &prepared{st: &steps[0]}
	switch {
	case ps.st.acts:
		// Answered when executed, with no rows.
	case ps.st.answer != nil:
		a, err := ps.st.answer(cn)
		if err != nil {
			return nil, err
		}
		if a != nil {
			fields = a.result().Fields
		}
	default:
		sess, err := cn.session()
		if err != nil {
			return nil, err
		}
		text, n := numberMarkers(ps.st.sql)
		stmts, err := pgsql.Parse(text)
		if err != nil {
			return nil, err
		}
		if len(stmts) != 1 {
			return nil, unsupported("this statement")
		}
		if ps.p, err = sess.Prepare(&stmts[0], nil); err != nil {
			return nil, ps.st.tableErr(stmts[0].Locate(err))
		}
		ps.params = ps.p.ParamTypes
		if len(ps.params) != n {
			return nil, unsupported("parameters where seqd cannot tell their type")
		}
		for i, col := range ps.p.Columns {
			name := col.Name
			if i < len(ps.st.names) && ps.st.names[i] != "" {
				name = ps.st.names[i]
			}
			fields = append(fields, field(name, fieldType(col.Type)))
		}
	}
	pd.ParamsCount = uint16(len(ps.params))
	pd.ParamsType = make([]int32, len(ps.params))
	pd.BindVars = make(map[string]*querypb.BindVariable, len(ps.params))
	if cn.stmts == nil {
		cn.stmts = map[uint32]*prepared{}
	}
	cn.stmts[pd.StatementID] = ps
	return fields, nil
}

func (h handler) ComStmtExecute(ctx context.Context, c *mysql.Conn, pd *mysql.PrepareData, callback func(*sqltypes.Result) error) (err error) {
	cn := h.conn(c)
	ps := cn.stmts[pd.StatementID]
	if ps == nil {
		return toSQLError(sqlerr.Errorf(sqlerr.InvalidStatementName, "Unknown prepared statement handler (%d) given to mysqld_stmt_execute", pd.StatementID))
	}
	res, err := cn.execute(ctx, ps, pd)
	if err != nil {
		cn.srv.logFailure(c, err, ps.st.text)
		return toSQLError(err)
	}
	return callback(res)
}

// execute runs a prepared statement with the parameters the client bound.
func (cn *conn) execute(ctx context.Context, ps *prepared, pd *mysql.PrepareData) (res *sqltypes.Result, err error) {
	if ps.p == nil {
		return cn.run(ctx, ps.st)
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
	return res, ps.st.tableErr(err)
}

// numberMarkers turns the ? markers of restored text (outside quotes)
// into PostgreSQL's $1, $2, ...; n is how many there were.
func numberMarkers(q string) (string, int) {
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(ch)
	}
	return b.String(), n
}
