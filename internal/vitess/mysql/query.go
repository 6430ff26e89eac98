/*
Copyright 2019 The Vitess Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package mysql

// COM_QUERY: a query's results in the text protocol.

import (
	"context"
	"io"
	"runtime/trace"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/log"
)

// formatID returns a quoted identifier from the one given. Adapted from ast.go
func formatID(original string) string {
	var sb strings.Builder

	sb.WriteByte('`')
	for _, c := range original {
		sb.WriteRune(c)
		if c == '`' {
			sb.WriteByte('`')
		}
	}
	sb.WriteByte('`')

	return sb.String()
}

func (c *Conn) execQuery(ctx context.Context, query string, handler Handler, multiStatements bool) (string, error) {
	defer trace.StartRegion(ctx, "query").End()

	// seqd: the callback's state is the connection's, and the callback
	// is made once per connection (upstream: a closure per query).
	c.query = queryState{handler: handler}
	if c.queryResults == nil {
		c.queryResults = c.sendQueryResults
	}
	resultsCB := c.queryResults

	var err error
	var remainder string

	if multiStatements {
		remainder, err = handler.ComMultiQuery(ctx, c, query, resultsCB)
	} else {
		err = handler.ComQuery(ctx, c, query, resultsCB)
	}
	fieldSent, sendFinished := c.query.fieldSent, c.query.sendFinished
	c.query = queryState{}

	// If no field was sent, we expect an error.
	if !fieldSent {
		// This is just a failsafe. Should never happen.
		if err == nil || err == io.EOF {
			err = NewSQLError(ERUnknownError, SSUnknownSQLState, "unexpected: query ended with no results and no error")
		}
		if werr := c.writeErrorPacketFromError(err); werr != nil {
			// If we can't even write the error, we're done.
			log.Errorf("Error writing query error to %s: %v", c, werr)
			return "", werr
		}
	} else {
		if err != nil {
			// We can't send an error in the middle of a stream.
			// All we can do is abort the send, which will cause a 2013.
			log.Errorf("Error in the middle of a stream to %s: %v", c, err)
			return "", err
		}

		// Send the end packet only sendFinished is false (results were streamed).
		// In this case the affectedRows and lastInsertID are always 0 since it
		// was a read operation.
		if !sendFinished {
			more := remainder != ""
			if err := c.writeEndResult(more, 0, 0, handler.WarningCount(c)); err != nil {
				log.Errorf("Error writing result to %s: %v", c, err)
				return "", err
			}
		}
	}

	return remainder, nil
}

// queryState is execQuery's state for the query under way (seqd).
type queryState struct {
	handler Handler
	// fieldSent is set once the fields or an OK packet are written;
	// sendFinished if the response was just an OK packet.
	fieldSent, sendFinished bool
}

// sendQueryResults is execQuery's results callback (seqd: a method, so
// that a query makes no closure).
func (c *Conn) sendQueryResults(qr *sqltypes.Result, more bool) error {
	handler := c.query.handler
	flag := c.StatusFlags
	if more {
		flag |= ServerMoreResultsExists
	}
	if c.query.sendFinished {
		// Failsafe: Unreachable if server is well-behaved.
		return io.EOF
	}
	if more {
		return c.sendResultBeforeMore(qr, flag)
	}

	if !c.query.fieldSent {
		c.query.fieldSent = true

		if len(qr.Fields) == 0 {
			c.query.sendFinished = true

			// A successful callback with no fields means that this was a
			// DML or other write-only operation.
			//
			// We should not send any more packets after this, but make sure
			// to extract the affected rows and last insert id from the result
			// struct here since clients expect it.
			if qr.Info != "" {
				return c.writeOKPacketWithInfo(qr.RowsAffected, qr.InsertID, flag, handler.WarningCount(c), qr.Info)
			} else {
				return c.writeOKPacket(qr.RowsAffected, qr.InsertID, flag, handler.WarningCount(c))
			}
		}
		if err := c.writeFields(qr); err != nil {
			return err
		}
	}

	return c.writeRows(qr)
}

// sendResultBeforeMore sends qr whole, ended with flag's
// SERVER_MORE_RESULTS_EXISTS, and makes the next call of the results
// callback begin the next result (seqd: a handler answers a query of
// several statements, CLIENT_MULTI_STATEMENTS, in one ComMultiQuery,
// each statement's result one call with more set but the last's;
// upstream wrote the next statement's rows into the first's result, or
// ended the connection after an OK packet). A statement that fails
// after one that was answered is then the query's error packet, as
// MySQL's server ends a multi-statement query at its first error.
func (c *Conn) sendResultBeforeMore(qr *sqltypes.Result, flag uint16) error {
	handler := c.query.handler
	c.query.fieldSent, c.query.sendFinished = false, false
	if len(qr.Fields) == 0 {
		if qr.Info != "" {
			return c.writeOKPacketWithInfo(qr.RowsAffected, qr.InsertID, flag, handler.WarningCount(c), qr.Info)
		}
		return c.writeOKPacket(qr.RowsAffected, qr.InsertID, flag, handler.WarningCount(c))
	}
	if err := c.writeFields(qr); err != nil {
		return err
	}
	if err := c.writeRows(qr); err != nil {
		return err
	}
	return c.writeEndResult(true, 0, 0, handler.WarningCount(c))
}

func (c *Conn) parseComQuery(data []byte) string {
	return string(data[1:])
}

// support for deprecated COM_FIELD_LIST command
// https://dev.mysql.com/doc/internals/en/com-field-list.html
func (c *Conn) parseComFieldList(data []byte) (table, wildcard string, err error) {
	pos := 1
	var ok bool
	table, pos, ok = readNullString(data, pos)
	if !ok {
		err = NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading parameter table failed")
		return "", "", err
	}
	wildcard, pos, ok = readEOFString(data, pos)
	if !ok {
		err = NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading parameter field wildcard failed")
		return "", "", err
	}
	return table, wildcard, nil
}

func (c *Conn) parseComSetOption(data []byte) (uint16, bool) {
	val, _, ok := readUint16(data, 1)
	return val, ok
}

func (c *Conn) parseComInitDB(data []byte) string {
	return string(data[1:])
}
