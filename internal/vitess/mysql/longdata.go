// seqd: COM_STMT_SEND_LONG_DATA within bounds. Upstream appended every
// chunk to its parameter without end (a COM_PING between chunks kept any
// per-message bound from seeing the total), closed the connection for
// long data to a statement it did not have, and dereferenced nil for long
// data after a COM_STMT_RESET. Here, as MySQL's and MariaDB's servers do
// it (sql_prepare.cc, mysql_stmt_get_longdata): long data never has an
// answer; for a statement the connection does not have it is ignored
// (its EXECUTE fails with 1243); for a parameter the statement does not
// have, or past the bounds, it is remembered as the error the statement's
// next EXECUTE fails with, and what the statement held is dropped, not
// kept growing. A parameter's long data is bounded by
// Listener.MaxLongData (MariaDB's max_allowed_packet), a statement's by
// Listener.MaxLongDataStatement. Long data ends with the EXECUTE, a
// COM_STMT_RESET, COM_STMT_CLOSE, COM_RESET_CONNECTION or the connection.

package mysql

import (
	"strconv"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// appendLongData adds chunk to parameter paramID of statement stmtID,
// within the bounds.
func (c *Conn) appendLongData(stmtID uint32, paramID uint16, chunk []byte) {
	prepare := c.PrepareData[stmtID]
	switch {
	case prepare == nil:
		return // the EXECUTE says so
	case prepare.longDataErr != nil:
		return // failed already: nothing more is kept
	case prepare.BindVars == nil || paramID >= prepare.ParamsCount:
		c.failLongData(prepare, NewSQLError(ERWrongArguments, SSUnknownSQLState, "Incorrect arguments to mysqld_stmt_send_long_data"))
		return
	}
	key := "v" + strconv.Itoa(int(paramID)+1)
	bv := prepare.BindVars[key]
	var have int64
	if bv != nil {
		have = int64(len(bv.Value))
	}
	n := int64(len(chunk))
	if l := c.listener; l != nil {
		switch {
		case l.MaxLongData > 0 && have+n > l.MaxLongData:
			// MariaDB 10.11's words and number for it.
			c.failLongData(prepare, NewSQLError(ERUnknownError, SSUnknownSQLState,
				"Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes"))
			return
		case l.MaxLongDataStatement > 0 && prepare.longData+n > l.MaxLongDataStatement:
			c.failLongData(prepare, NewSQLError(ERUnknownError, SSUnknownSQLState,
				"Parameters of prepared statement which are set through mysql_send_long_data() are longer than %d bytes together", l.MaxLongDataStatement))
			return
		}
	}
	if bv == nil {
		prepare.BindVars[key] = sqltypes.BytesBindVariable(chunk)
	} else {
		bv.Value = append(bv.Value, chunk...)
	}
	c.countLongData(prepare, n)
}

// failLongData drops what the statement's long data holds and remembers
// err for its next EXECUTE.
func (c *Conn) failLongData(prepare *PrepareData, err *SQLError) {
	c.endLongData(prepare)
	prepare.longDataErr = err
}

// endLongData ends the statement's long data, and its parameters with
// it: it holds nothing after, and has no error to report.
func (c *Conn) endLongData(prepare *PrepareData) {
	c.countLongData(prepare, -prepare.longData)
	prepare.longDataErr = nil
	// A new map every time: the handler may keep the old one.
	prepare.BindVars = make(map[string]*querypb.BindVariable, prepare.ParamsCount)
}

// endAllLongData ends every statement's long data (the connection's
// statements are going).
func (c *Conn) endAllLongData() {
	for _, prepare := range c.PrepareData {
		c.countLongData(prepare, -prepare.longData)
		prepare.longData = 0
	}
}

// countLongData adds n bytes to what the statement, and its listener,
// hold.
func (c *Conn) countLongData(prepare *PrepareData, n int64) {
	prepare.longData += n
	if c.listener != nil {
		c.listener.longData.Add(n)
	}
}

// LongDataBuffered is how many bytes of long data the listener's
// connections hold now.
func (l *Listener) LongDataBuffered() int64 { return l.longData.Load() }
