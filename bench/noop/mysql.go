package noop

import (
	"context"
	"net"
	"strconv"
	"sync/atomic"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/seqd/seqd/internal/vitess/mysql"
)

// MySQLServer is the ceiling over MySQL's protocol, on the protocol
// library seqd's MySQL front end uses (github.com/dolthub/vitess/go/mysql)
// with the same listener settings: it logs anyone in and answers every
// statement, text or prepared, with one BIGINT row from a counter. What
// seqd's MySQL front end loses against it is the cost of translating and
// running the statement.
type MySQLServer struct {
	counter atomic.Int64
}

// Serve accepts connections on ln until it fails.
func (s *MySQLServer) Serve(ln net.Listener) error {
	l, err := mysql.NewListenerWithConfig(mysql.ListenerConfig{Listener: ln, AuthServer: mysql.NewAuthServerNone(), Handler: mysqlHandler{s},
		ConnReadBufferSize: mysql.DefaultConnBufferSize})
	if err != nil {
		return err
	}
	l.ServerVersion = "5.5.5-10.11.99-MariaDB-noop"
	l.Accept()
	return nil
}

var nextvalField = []*querypb.Field{{Name: "NEXTVAL(s)", Type: sqltypes.Int64, Charset: 63, ColumnLength: 21}}

// result is the counter's next value as a one-row result.
func (s *MySQLServer) result() *sqltypes.Result {
	v := s.counter.Add(1)
	return &sqltypes.Result{Fields: nextvalField, Rows: [][]sqltypes.Value{{sqltypes.MakeTrusted(sqltypes.Int64, strconv.AppendInt(nil, v, 10))}}}
}

type mysqlHandler struct{ s *MySQLServer }

func (h mysqlHandler) NewConnection(*mysql.Conn)                   {}
func (h mysqlHandler) ConnectionClosed(*mysql.Conn)                {}
func (h mysqlHandler) ConnectionAborted(*mysql.Conn, string) error { return nil }
func (h mysqlHandler) ComInitDB(*mysql.Conn, string) error         { return nil }
func (h mysqlHandler) WarningCount(*mysql.Conn) uint16             { return 0 }
func (h mysqlHandler) ComResetConnection(*mysql.Conn) error        { return nil }
func (h mysqlHandler) ComQuery(_ context.Context, _ *mysql.Conn, _ string, callback mysql.ResultSpoolFn) error {
	return callback(h.s.result(), false)
}

func (h mysqlHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, callback mysql.ResultSpoolFn) (string, error) {
	return "", h.ComQuery(ctx, c, q, callback)
}

func (h mysqlHandler) ComPrepare(context.Context, *mysql.Conn, string, *mysql.PrepareData) ([]*querypb.Field, error) {
	return nextvalField, nil
}

func (h mysqlHandler) ComStmtExecute(_ context.Context, _ *mysql.Conn, _ *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	return callback(h.s.result())
}
