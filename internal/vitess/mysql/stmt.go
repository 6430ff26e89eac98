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

// Prepared statements: COM_STMT_PREPARE, COM_STMT_EXECUTE,
// COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE and COM_STMT_RESET (seqd:
// split out of conn.go's handleNextCommand; cursors are in cursor.go,
// the binary protocol in binary.go).

import (
	"context"
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/log"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// handleComPrepare prepares a statement (COM_STMT_PREPARE). The Handler
// parses it and counts its parameters (seqd: upstream first parsed it
// with Dolt's grammar, refusing what that grammar does not know, split
// it into statements when the client may send several, and counted the
// parameters of the parse; a Handler that said it parsed what it
// prepared, as seqd's, was spared the parse, not the split).
func (c *Conn) handleComPrepare(ctx context.Context, handler Handler, data []byte) error {
	query := c.parseComPrepare(data)
	c.recycleReadPacket()

	if c.cs != nil {
		log.Error("Received ComStmtPrepare with outstanding cursor")
		if werr := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "error handling ComStmtPrepare packet"); werr != nil {
			log.Errorf("Error writing error packet to client: %v", werr)
			return werr
		}
		return nil
	}

	// Populate PrepareData
	c.StatementID++
	prepare := &PrepareData{
		StatementID: c.StatementID,
		PrepareStmt: query,
	}
	c.PrepareData[c.StatementID] = prepare

	fld, err := handler.ComPrepare(ctx, c, query, prepare)
	if err != nil {
		log.Errorf("unable to prepare query: %s", err.Error())
		if werr := c.writeErrorPacketFromError(err); werr != nil {
			// If we can't even write the error, we're done.
			log.Errorf("Error writing query error to client %v: %v", c.ConnectionID, werr)
			return werr
		}
		return nil
	}
	return c.writePrepare(ctx, fld, c.PrepareData[c.StatementID])
}

// writePrepare writes a prepare query response to the wire.
func (c *Conn) writePrepare(ctx context.Context, fld []*querypb.Field, prepare *PrepareData) error {
	paramsCount := prepare.ParamsCount
	columnCount := 0
	if len(fld) != 0 {
		columnCount = len(fld)
	}
	if columnCount > 0 {
		prepare.ColumnNames = make([]string, columnCount)
	}

	data := c.startEphemeralPacket(12)
	pos := 0

	pos = writeByte(data, pos, 0x00)
	pos = writeUint32(data, pos, uint32(prepare.StatementID))
	pos = writeUint16(data, pos, uint16(columnCount))
	pos = writeUint16(data, pos, uint16(paramsCount))
	pos = writeByte(data, pos, 0x00)
	writeUint16(data, pos, 0x0000)

	if err := c.writeEphemeralPacket(); err != nil {
		return err
	}

	if paramsCount > 0 {
		for i := uint16(0); i < paramsCount; i++ {
			if err := c.writeColumnDefinition(&querypb.Field{
				Name:    "?",
				Type:    sqltypes.VarBinary,
				Charset: 63}, false); err != nil {
				return err
			}
		}

		// Now send an EOF packet.
		if c.Capabilities&CapabilityClientDeprecateEOF == 0 {
			// With CapabilityClientDeprecateEOF, we do not send this EOF.
			if err := c.writeEOFPacket(c.StatusFlags, 0); err != nil {
				return err
			}
		}
	}

	for i, field := range fld {
		field.Name = strings.Replace(field.Name, "'?'", "?", -1)
		prepare.ColumnNames[i] = field.Name
		if err := c.writeColumnDefinition(field, false); err != nil {
			return err
		}
	}

	if columnCount > 0 {
		// Now send an EOF packet.
		if c.Capabilities&CapabilityClientDeprecateEOF == 0 {
			// With CapabilityClientDeprecateEOF, we do not send this EOF.
			if err := c.writeEOFPacket(c.StatusFlags, 0); err != nil {
				return err
			}
		}
	}

	return c.flush(ctx)
}

func (c *Conn) parseComPrepare(data []byte) string {
	return string(data[1:])
}

func (c *Conn) parseComStmtSendLongData(data []byte) (uint32, uint16, []byte, bool) {
	pos := 1
	statementID, pos, ok := readUint32(data, pos)
	if !ok {
		return 0, 0, nil, false
	}

	paramID, pos, ok := readUint16(data, pos)
	if !ok {
		return 0, 0, nil, false
	}

	chunkData := data[pos:]
	chunk := make([]byte, len(chunkData))
	copy(chunk, chunkData)

	return statementID, paramID, chunk, true
}

func (c *Conn) parseComStmtClose(data []byte) (uint32, bool) {
	val, _, ok := readUint32(data, 1)
	return val, ok
}

func (c *Conn) parseComStmtReset(data []byte) (uint32, bool) {
	val, _, ok := readUint32(data, 1)
	return val, ok
}

// handleComStmtExecute runs a prepared statement (COM_STMT_EXECUTE).
func (c *Conn) handleComStmtExecute(ctx context.Context, handler Handler, data []byte) error {
	// outstanding cursor, error
	if c.cs != nil {
		log.Error("Received ComStmtExecute with outstanding cursor")
		if werr := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "error handling ComStmtExecute packet"); werr != nil {
			log.Errorf("Error writing error packet to client: %v", werr)
			return werr
		}
		return nil
	}

	// flush is called at the end of this block.
	// To simplify error handling, we do not
	// encapsulate it with a defer'd func()
	c.startWriterBuffering()

	stmtID, cursorType, err := c.parseComStmtExecute(c.PrepareData, data)
	c.recycleReadPacket()
	// seqd: the statement's parameters and long data end with this
	// EXECUTE, whatever its outcome (upstream kept those of one
	// that failed to parse for the next); long data past the
	// bounds is this EXECUTE's error (longdata.go).
	if prepare := c.PrepareData[stmtID]; prepare != nil {
		defer c.endLongData(prepare)
		if prepare.longDataErr != nil {
			err = prepare.longDataErr
		}
	}
	if err != nil {
		if werr := c.writeErrorPacketFromError(err); werr != nil {
			// If we can't even write the error, we're done.
			log.Errorf("Error writing query error to client %v: %v", c.ConnectionID, werr)
			return werr
		}
		return c.flush(ctx)
	}

	if err = c.execPrepareStatement(ctx, stmtID, cursorType, handler); err != nil {
		return err
	}

	if err := c.flush(ctx); err != nil {
		log.Errorf("Conn %v: Flush() failed: %v", c.ID(), err)
		return err
	}
	return nil
}

// handleComStmtSendLongData keeps a parameter's long data for the
// statement's next EXECUTE (COM_STMT_SEND_LONG_DATA), which has no answer.
func (c *Conn) handleComStmtSendLongData(data []byte) error {
	stmtID, paramID, chunk, ok := c.parseComStmtSendLongData(data)
	c.recycleReadPacket()
	if !ok {
		err := fmt.Errorf("error parsing statement send long data from client %v", c.ConnectionID)
		log.Error(err.Error())
		return err
	}

	// seqd: bounded, and never an answer nor the connection's end
	// (longdata.go).
	c.appendLongData(stmtID, paramID, chunk)
	return nil
}

// handleComStmtClose ends a prepared statement (COM_STMT_CLOSE), which
// has no answer.
func (c *Conn) handleComStmtClose(handler Handler, data []byte) {
	stmtID, ok := c.parseComStmtClose(data)
	c.recycleReadPacket()
	if prepare := c.PrepareData[stmtID]; ok && prepare != nil {
		c.endLongData(prepare) // seqd: longdata.go
		delete(c.PrepareData, stmtID)
		if closer, isCloser := handler.(StmtCloser); isCloser { // seqd: StmtCloser
			closer.ComStmtClose(c, stmtID)
		}
	}
	c.discardCursor()
}

// handleComStmtReset ends a prepared statement's long data and its
// cursor (COM_STMT_RESET).
func (c *Conn) handleComStmtReset(data []byte) error {
	stmtID, ok := c.parseComStmtReset(data)
	c.recycleReadPacket()
	if !ok {
		log.Errorf("Got unhandled ComStmtReset packet from client %v", c.ConnectionID)
		if err := c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "error handling ComStmtReset packet"); err != nil {
			log.Errorf("Error writing error packet to client: %v", err)
			return err
		}
		return nil // seqd: upstream went on, with no statement
	}

	prepare, ok := c.PrepareData[stmtID]
	if !ok {
		// seqd: MySQL's and MariaDB's error, and no further (upstream
		// went on to a nil statement, and a second answer).
		if werr := c.writeErrorPacket(ERUnknownStmtHandler, SSUnknownSQLState, "Unknown prepared statement handler (%d) given to mysqld_stmt_reset", stmtID); werr != nil {
			log.Errorf("Error writing error packet to client: %v", werr)
			return werr
		}
		return nil
	}

	// seqd: the long data is gone, and any error it caused (upstream
	// set each parameter to nil, which the next long data for it
	// dereferenced).
	c.endLongData(prepare)

	c.discardCursor()

	if err := c.writeOKPacket(0, 0, c.StatusFlags, 0); err != nil {
		log.Errorf("Error writing ComStmtReset OK packet to client %v: %v", c.ConnectionID, err)
		return err
	}
	return nil
}
