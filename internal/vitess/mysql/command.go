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

// The command loop: handleNextCommand reads a command and hands it to
// the method for its kind (seqd: upstream's one function of 500 lines,
// split by command; prepared statements are in stmt.go and cursor.go).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/trace"

	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/log"
)

// handleNextCommand is called in the server loop to process
// incoming packets.
func (c *Conn) handleNextCommand(ctx context.Context, handler Handler) error {
	c.sequence = 0
	data, err := c.readEphemeralPacket(ctx)
	if err != nil {
		// Don't log EOF errors. They cause too much spam.
		// Note the EOF detection is not 100%
		// guaranteed, in the case where the client
		// connection is already closed before we call
		// 'readEphemeralPacket'.  This is a corner
		// case though, and very unlikely to happen,
		// and the only downside is we log a bit more then.
		if err != io.EOF {
			log.Errorf("Error reading packet from %s: %v", c, err)
		}
		if err == ErrPacketTooLarge { // seqd: told, as MySQL tells it, before the connection ends
			c.writeErrorPacketFromError(err)
		}
		return err
	}
	if len(data) == 0 { // seqd: a command of no bytes (data[0] would panic)
		c.recycleReadPacket()
		return errors.New("an empty command packet")
	}

	switch data[0] {
	case ComQuit:
		c.recycleReadPacket()
		return errors.New("ComQuit")
	case ComInitDB:
		return c.handleComInitDB(handler, data)
	case ComQuery:
		return c.handleComQuery(ctx, handler, data)
	case ComFieldList:
		return c.handleComFieldList(ctx, handler, data)
	case ComPing:
		return c.handleComPing()
	case ComSetOption:
		return c.handleComSetOption(data)
	case ComPrepare:
		return c.handleComPrepare(ctx, handler, data)
	case ComStmtExecute:
		return c.handleComStmtExecute(ctx, handler, data)
	case ComStmtSendLongData:
		return c.handleComStmtSendLongData(data)
	case ComStmtClose:
		c.handleComStmtClose(handler, data)
	case ComStmtReset:
		return c.handleComStmtReset(data)
	case ComStmtFetch:
		return c.handleComStmtFetch(ctx, handler, data)
	case ComResetConnection:
		c.handleComResetConnection(handler)
	case ComChangeUser: // seqd: changeuser.go
		return c.handleComChangeUser(handler, data)
	case ComRegisterReplica, ComBinlogDumpGTID:
		return c.refuseReplication(data[0])
	default:
		log.Errorf("Got unhandled packet (default) from %s, returning error: %v", c, data)
		c.recycleReadPacket()
		if err := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "command handling not implemented yet: %v", data[0]); err != nil {
			log.Errorf("Error writing error packet to %s: %s", c, err)
			return err
		}
	}

	return nil
}

// refuseReplication answers a replication command as an unknown command
// is answered, and the connection goes on (seqd: upstream served them to
// a Handler that implemented BinlogReplicaHandler, deleted with the
// replication code; to another it returned without recycling the read
// packet, and the next read panicked). The packet is not logged, as an
// unknown command's is: a binlog dump request can be long.
func (c *Conn) refuseReplication(command byte) error {
	log.Warningf("received replication command %v from %s, which this server does not serve", command, c)
	c.recycleReadPacket()
	if err := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "command handling not implemented yet: %v", command); err != nil {
		log.Errorf("Error writing error packet to %s: %s", c, err)
		return err
	}
	return nil
}

// handleComInitDB sets the connection's database (COM_INIT_DB).
func (c *Conn) handleComInitDB(handler Handler, data []byte) error {
	db := c.parseComInitDB(data)
	c.recycleReadPacket()
	c.schemaName = db
	if err := handler.ComInitDB(c, db); err != nil {
		log.Errorf("ComInitDB failed %s: %v", c, err)

		if werr := c.writeErrorPacketFromError(err); werr != nil {
			// If we can't even write the error, we're done.
			log.Errorf("Conn %v: Error writing query error: %v", c, werr)
			return werr
		}

		return nil
	}

	if err := c.writeOKPacket(0, 0, c.StatusFlags, 0); err != nil {
		log.Errorf("Error writing ComInitDB result to %s: %v", c, err)
		return err
	}
	return nil
}

// handleComQuery runs a query, or several (COM_QUERY).
func (c *Conn) handleComQuery(ctx context.Context, handler Handler, data []byte) error {
	// flush is called at the end of this block.
	// To simplify error handling, we do not
	// encapsulate it with a defer'd func()
	c.startWriterBuffering()

	query := c.parseComQuery(data)

	// seqd: a task only when tracing (NewTask allocates a context
	// and a task either way: a fifth of a query's allocations).
	if trace.IsEnabled() {
		var task *trace.Task
		ctx, task = trace.NewTask(ctx, "ComQuery")
		trace.Log(ctx, "query", query)
		defer task.End()
	}

	c.recycleReadPacket()

	multiStatements := c.Capabilities&CapabilityClientMultiStatements != 0

	var err error

	for query, err = c.execQuery(ctx, query, handler, multiStatements); err == nil && query != ""; {
		query, err = c.execQuery(ctx, query, handler, multiStatements)
	}
	if err != nil {
		return err
	}

	if err := c.flush(ctx); err != nil {
		log.Errorf("Conn %v: Flush() failed: %v", c.ID(), err)
		return err
	}
	return nil
}

// handleComFieldList answers the deprecated COM_FIELD_LIST with the
// columns of a table.
// https://dev.mysql.com/doc/internals/en/com-field-list.html
func (c *Conn) handleComFieldList(ctx context.Context, handler Handler, data []byte) error {
	// todo: support wildcard param
	table, _, err := c.parseComFieldList(data)
	c.recycleReadPacket()
	if err != nil {
		return err
	}

	sql := fmt.Sprintf("SELECT * FROM %s LIMIT 0;", formatID(table))
	err = handler.ComQuery(ctx, c, sql, func(qr *sqltypes.Result, more bool) error {
		// only send meta data, no rows
		if len(qr.Fields) == 0 {
			return NewSQLError(ERUnknownError, SSUnknownSQLState, "unexpected: query ended without fields and no error")
		}

		// for COM_FIELD_LIST response, don't send the number of fields first.

		for _, field := range qr.Fields {
			if err := c.writeColumnDefinition(field, true); err != nil {
				return err
			}
		}
		return nil
	})

	if err != nil {
		if werr := c.writeErrorPacketFromError(err); werr != nil {
			// If we can't even write the error, we're done.
			log.Errorf("Error writing query error to %s: %v", c, werr)
			return werr
		}
	}
	if err := c.writeEndResult(false, 0, 0, handler.WarningCount(c)); err != nil {
		log.Errorf("Error writing result to %s: %v", c, err)
		return err
	}
	return nil
}

// handleComPing answers COM_PING.
func (c *Conn) handleComPing() error {
	c.recycleReadPacket()
	// Return error if listener was shut down and OK otherwise
	if c.listener.isShutdown() {
		if err := c.writeErrorPacket(ERServerShutdown, SSServerShutdown, "Server shutdown in progress"); err != nil {
			log.Errorf("Error writing ComPing error to %s: %v", c, err)
			return err
		}
	} else {
		if err := c.writeOKPacket(0, 0, c.StatusFlags, 0); err != nil {
			log.Errorf("Error writing ComPing result to %s: %v", c, err)
			return err
		}
	}
	return nil
}

// handleComSetOption turns multiple statements on or off
// (COM_SET_OPTION).
func (c *Conn) handleComSetOption(data []byte) error {
	operation, ok := c.parseComSetOption(data)
	c.recycleReadPacket()
	if ok {
		switch operation {
		case 0:
			c.Capabilities |= CapabilityClientMultiStatements
		case 1:
			c.Capabilities &^= CapabilityClientMultiStatements
		default:
			log.Errorf("Got unhandled packet (ComSetOption default) from client %v", c.ConnectionID)
			if err := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "error handling ComSetOption packet"); err != nil {
				log.Errorf("Error writing error packet to client: %v", err)
				return err
			}
		}
		if err := c.writeEndResult(false, 0, 0, 0); err != nil {
			log.Errorf("Error writeEndResult error %v ", err)
			return err
		}
	} else {
		log.Errorf("Got unhandled packet (ComSetOption else) from client %v", c.ConnectionID)
		if err := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "error handling ComSetOption packet"); err != nil {
			log.Errorf("Error writing error packet to client: %v", err)
			return err
		}
	}
	return nil
}

// handleComResetConnection ends the connection's session state and its
// prepared statements (COM_RESET_CONNECTION).
func (c *Conn) handleComResetConnection(handler Handler) {
	// Clean up and reset the connection
	c.recycleReadPacket()
	c.discardCursor()
	err := handler.ComResetConnection(c)
	if err != nil {
		log.Errorf("Error resetting connection (ID %d): %v", c.ConnectionID, err)
		c.writeErrorPacketFromError(err)
	}
	// Reset prepared statements
	c.endAllLongData() // seqd: longdata.go
	c.PrepareData = make(map[uint32]*PrepareData)
	err = c.writeOKPacket(0, 0, 0, 0)
	if err != nil {
		c.writeErrorPacketFromError(err)
	}
}
