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

// A prepared statement's execution, with a cursor (COM_STMT_FETCH) or
// without (seqd: split out of conn.go).

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/log"
)

type cursorState struct {
	stmtID uint32

	// The goroutine which generates the results delivers |Result|s with a
	// batch of rows one at a time on the |next| channel.  As long as the
	// query has not delivered EOF, we will have pending rows, because we
	// prefetch them as soon as they are exhausted. That is, if we have 10
	// pending rows and a client fetches only 10 rows, we will block on
	// fetching more rows before ew return the currently cached 10 rows.
	// This allows us to detect EOF and correctly return CursorExhausted.
	pending *sqltypes.Result

	// The channel on which the running query is sending batched results.
	next chan *sqltypes.Result

	// The channel on which the running query will return its final error
	// status, either `nil` or an error.
	done chan error

	// A control channel on which the running query is listening. If the
	// server needs to cancel the inflight query based on what is happening
	// in the wire protocol handling, it will send on this channel and then
	// block on `done` being sent to.
	quit chan error
}

// execPrepareStatement runs the query identified by the statement ID, and writes the expected packets to the connection
// If the client requests that a cursor be opened, we should only write the fields, and wait for subsequent fetch
// requests to write the rows from the result set.
func (c *Conn) execPrepareStatement(ctx context.Context, stmtID uint32, cursorType byte, handler Handler) error {
	prepare := c.PrepareData[stmtID]
	if cursorType == NoCursor {
		return c.execWithoutCursor(ctx, prepare, handler)
	}
	return c.execWithCursor(ctx, stmtID, prepare, handler)
}

// execWithoutCursor runs a prepared statement and writes all its rows.
func (c *Conn) execWithoutCursor(ctx context.Context, prepare *PrepareData, handler Handler) error {
	fieldSent := false
	sendFinished := false // sendFinished is set if the response should just be an OK packet.

	err := handler.ComStmtExecute(ctx, c, prepare, func(qr *sqltypes.Result) error {
		if sendFinished {
			// Failsafe: Unreachable if server is well-behaved.
			return io.EOF
		}

		if !fieldSent {
			fieldSent = true
			if len(qr.Fields) == 0 {
				sendFinished = true
				// We should not send any more packets after this.
				return c.writeOKPacket(qr.RowsAffected, qr.InsertID, c.StatusFlags, 0)
			}
			if err := c.writeFields(qr); err != nil {
				return err
			}
		}
		return c.writeBinaryRows(qr)
	})

	// If no field was sent, we expect an error.
	if !fieldSent {
		// This is just a failsafe. Should never happen.
		if err == nil || err == io.EOF {
			err = NewSQLError(ERUnknownError, SSUnknownSQLState, "unexpected: query ended with no results and no error")
		}
		if werr := c.writeErrorPacketFromError(err); werr != nil {
			// If we can't even write the error, we're done.
			log.Errorf("Error writing query error to %s: %v", c, werr)
			return werr
		}
	} else {
		// We can't send an error in the middle of a stream.
		// All we can do is abort the send, which will cause a 2013.
		if err != nil {
			log.Errorf("Error in the middle of a stream to %s: %v", c, err)
			return err
		}

		// Send the end packet only if sendFinished is false (results were streamed).
		// In this case the affectedRows and lastInsertID are always 0 since it
		// was a read operation.
		if !sendFinished {
			if werr := c.writeEndResult(false, 0, 0, handler.WarningCount(c)); werr != nil {
				log.Errorf("Error writing result to %s: %v", c, werr)
				return werr
			}
		}
	}

	return nil
}

// execWithCursor runs a prepared statement in a goroutine of its own
// and writes its fields; COM_STMT_FETCH writes its rows.
func (c *Conn) execWithCursor(ctx context.Context, stmtID uint32, prepare *PrepareData, handler Handler) error {
	next := make(chan *sqltypes.Result)
	done, quit := make(chan error), make(chan error)

	go func() {
		var err error
		defer func() {
			// pass along error, even if there's a panic
			if r := recover(); r != nil {
				err = fmt.Errorf("panic while running query for server-side cursor: %v", r)
			}
			close(next)
			done <- err
			close(done)
		}()
		err = handler.ComStmtExecute(ctx, c, prepare, func(qr *sqltypes.Result) error {
			// block until query results are sent or receive signal to quit
			var qerr error
			select {
			case next <- qr:
			case qerr = <-quit:
			}
			return qerr
		})
	}()

	// Immediately receive the very first query result to write the fields
	qr, ok := <-next
	if !ok {
		<-done
		if werr := c.writeErrorPacket(ERUnknownError, SSUnknownSQLState, "unknown error: %v", "missing result set"); werr != nil {
			log.Errorf("Error writing query error to %s: %v", c, werr)
			return werr
		}
		return nil
	}

	if len(qr.Fields) == 0 {
		// DML or something without a result set. We do not open a cursor here.
		<-done
		return c.writeOKPacket(qr.RowsAffected, qr.InsertID, c.StatusFlags, 0)
	}
	// Open the cursor and write the fields.
	c.StatusFlags |= uint16(ServerCursorExists)
	if err := c.writeFieldsWithoutEOF(qr); err != nil {
		log.Errorf("Error writing fields to %s: %v", c, err)
		return err
	}
	// TODO: Look into whether accessing WarningCount
	// here after passing `c` to ComStmtExecute in the
	// goroutine above races.
	if werr := c.writeEndResult(false, 0, 0, handler.WarningCount(c)); werr != nil {
		log.Errorf("Error writing result to %s: %v", c, werr)
		return werr
	}
	// After writing the EOF_Packet/OK_Packet above, we
	// have told the client the cursor is open.
	c.StatusFlags &= ^uint16(ServerCursorExists)
	c.cs = &cursorState{
		stmtID:  stmtID,
		next:    next,
		done:    done,
		quit:    quit,
		pending: qr,
	}
	return nil
}

// handleComStmtFetch writes rows of the open cursor (COM_STMT_FETCH).
func (c *Conn) handleComStmtFetch(ctx context.Context, handler Handler, data []byte) error {
	c.startWriterBuffering()
	stmtID, numRows, ok := c.parseComStmtFetch(data)
	c.recycleReadPacket()
	if !ok {
		log.Errorf("Unable to parse COM_STMT_FETCH message on connection %v", c.ConnectionID)
		if werr := c.writeErrorPacket(ERUnknownComError, SSUnknownComError,
			"unable to parse COM_STMT_FETCH message on connection %v", c.ConnectionID); werr != nil {
			log.Errorf("Error writing error packet to client: %v", werr)
			return werr
		}
		return c.flush(ctx)
	}

	// fetching from wrong statement
	if c.cs == nil || stmtID != c.cs.stmtID {
		log.Errorf("Requested stmtID does not match stmtID of open cursor. Client %v", c.ConnectionID)
		if werr := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "error handling ComStmtFetch packet"); werr != nil {
			log.Errorf("Error writing error packet to client: %v", werr)
			return werr
		}
		return c.flush(ctx)
	}

	if err := c.fetchRows(numRows); err != nil {
		return err
	}

	if c.cs == nil {
		c.StatusFlags |= uint16(ServerCursorLastRowSent)
	}
	if err := c.writeEndResult(false, 0, 0, handler.WarningCount(c)); err != nil {
		log.Errorf("Error writing result to %s: %v", c, err)
		return err
	}
	if c.cs == nil {
		c.StatusFlags &= ^uint16(ServerCursorLastRowSent)
	}
	if err := c.flush(ctx); err != nil {
		log.Errorf("Conn %v: Flush() failed: %v", c.ID(), err)
		return err
	}
	return nil
}

// fetchRows writes up to numRows rows of the open cursor, and ends the
// cursor when its query ended.
func (c *Conn) fetchRows(numRows uint32) error {
	// There is always a pending result set, because we prefetch it to detect EOF.
	// When we detect EOF, we set c.cs = nil.

	for c.cs != nil && numRows != 0 {
		toSend := uint32(len(c.cs.pending.Rows))
		if toSend > numRows {
			toSend = numRows
		}
		nextRows := c.cs.pending.Rows[toSend:]
		c.cs.pending.Rows = c.cs.pending.Rows[:toSend]

		if err := c.writeBinaryRows(c.cs.pending); err != nil {
			log.Errorf("Error writing result to %s: %v", c, err)
			return err
		}
		c.cs.pending.Rows = nextRows
		numRows -= toSend
		if len(c.cs.pending.Rows) == 0 {
			var ok bool
			c.cs.pending, ok = <-c.cs.next
			if !ok {
				// Query has terminated. Check for an error.
				err := <-c.cs.done
				c.cs = nil
				if err != nil {
					// We can't send an error in the middle of a stream.
					// All we can do is abort the send, which will cause a 2013.
					log.Errorf("Error in the middle of a stream to %s: %v", c, err)
					return err
				}
			}
		}
	}
	return nil
}

// discardCursor stops the statement execute goroutine and clears the cursor state, if it exists
func (c *Conn) discardCursor() {
	// close cursor if open with unread results
	if c.cs != nil {
		select {
		case c.cs.quit <- errors.New("cancel cursor query"):
			<-c.cs.done
		case <-c.cs.done:
		}
	}
	c.cs = nil
}

func (c *Conn) parseComStmtFetch(data []byte) (uint32, uint32, bool) {
	stmtId, pos, ok := readUint32(data, 1)
	if !ok {
		return 0, 0, false
	}
	numRows, _, ok := readUint32(data, pos)
	return stmtId, numRows, ok
}
