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

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"runtime/trace"
	"sync"

	"github.com/dolthub/vitess/go/bucketpool"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/sync2"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

const (
	// connBufferSize is how much we buffer for reading and
	// writing. It is also how much we allocate for ephemeral buffers.
	DefaultConnBufferSize = 16 * 1024
)

// Constants for how ephemeral buffers were used for reading / writing.
const (
	// ephemeralUnused means the ephemeral buffer is not in use at this
	// moment. This is the default value, and is checked so we don't
	// read or write a packet while one is already used.
	ephemeralUnused = iota

	// ephemeralWrite means we currently in process of writing from  currentEphemeralBuffer
	ephemeralWrite

	// ephemeralRead means we currently in process of reading into currentEphemeralBuffer
	ephemeralRead
)

// A Getter has a Get()
type Getter interface {
	Get() *querypb.VTGateCallerID
}

// Conn is a server connection to a client, using the MySQL binary
// protocol. It is built on top of an existing net.Conn, that has
// already been established. Use NewListenerWithConfig to listen for
// connections (seqd: the client side is deleted).
type Conn struct {
	// conn is the underlying network connection.
	// Calling Close() on the Conn will close this connection.
	// If there are any ongoing reads or writes, they may get interrupted.
	Conn net.Conn

	// listener points to the server object.
	listener *Listener

	// ConnectionID is set at accept time.
	ConnectionID uint32

	// closed is set to true when Close() is called on the connection.
	closed sync2.AtomicBool

	// Capabilities is the current set of features this connection
	// is using.  It is the features that are both supported by
	// the client and the server, and currently in use.
	// It is set during the initial handshake.
	//
	// It is only used for CapabilityClientDeprecateEOF
	// and CapabilityClientFoundRows.
	Capabilities uint32

	// CharacterSet is the character set used by the other side of the
	// connection.
	// It is set during the initial handshake.
	// See the values in constants.go.
	CharacterSet uint8

	// User is the name used by the client to connect.
	// It is set during the initial handshake.
	User string

	// UserData is custom data returned by the AuthServer module.
	// It is set during the initial handshake.
	UserData Getter

	// scramble is the auth plugin data the server's greeting sent,
	// which COM_CHANGE_USER's auth response answers, as the handshake
	// response's did; clientFlags the capability flags of the client's
	// handshake response, which say how COM_CHANGE_USER's packet is
	// laid out; failedChangeUsers counts the COM_CHANGE_USERs that
	// failed (seqd: changeuser.go).
	scramble          []byte
	clientFlags       uint32
	failedChangeUsers int

	// schemaName is the default database name to use. It is set
	// during handshake, and by ComInitDb packets. This member is
	// private because it's non-authoritative: the client can change
	// the schema name through the 'USE' statement, which will bypass
	// this variable.
	schemaName string

	// StatusFlags are the status flags we will base our returned flags on.
	// This is a bit field, with values documented in constants.go.
	// An interesting value here would be ServerStatusAutocommit.
	// These flags can be changed by Handler methods.
	StatusFlags uint16

	// ClientData is a place where an application can store any
	// connection-related data, to avoid maps indexed by ConnectionID
	// for instance.
	ClientData interface{}

	// Packet encoding variables.
	bufferedReader *bufio.Reader
	bufferedWriter *bufio.Writer
	// header is writePacket's packet header (seqd: a field, so that
	// passing it to an io.Writer does not allocate it on each packet).
	header [4]byte
	// readHeader is readHeaderFrom's (seqd: as header).
	readHeader [4]byte
	sequence   uint8

	// maxPacket, when positive, bounds what one packet read may hold,
	// its continuation packets included (seqd: a server connection's is
	// handshakeBound until its client is authenticated, then its
	// Listener's MaxPacket; a packet past it is ErrPacketTooLarge,
	// refused before its body is read or any room is made for it).
	maxPacket int

	// query is execQuery's state for the query under way, queryResults
	// its callback, made at the connection's first query (seqd).
	query        queryState
	queryResults func(*sqltypes.Result, bool) error

	// Keep track of how and of the buffer we allocated for an
	// ephemeral packet on the read and write sides.
	// These fields are used by:
	// - startEphemeralPacket / writeEphemeralPacket methods for writes.
	// - readEphemeralPacket / recycleReadPacket methods for reads.
	currentEphemeralPolicy int
	// currentEphemeralBuffer for tracking allocated temporary buffer for writes and reads respectively.
	// It can be allocated from bufPool or heap and should be recycled in the same manner.
	currentEphemeralBuffer *[]byte

	// StatementID is the prepared statement ID.
	StatementID uint32

	// PrepareData is the map to use a prepared statement.
	PrepareData map[uint32]*PrepareData

	// cursorState represents a query which is running as a result of a
	// COM_STMT_EXECUTE.  Rows will be fetched with COM_STMT_FETCH, and
	// possibly the query will need to be terminated as a result of what
	// happens in the protocol, etc.
	// TODO: We currently only support one outstanding cursor.
	cs *cursorState
}

// PrepareData is a buffer used for store prepare statement metadata
type PrepareData struct {
	StatementID uint32
	PrepareStmt string
	ParamsCount uint16
	ParamsType  []int32
	ColumnNames []string
	BindVars    map[string]*querypb.BindVariable

	// longData is how many bytes of COM_STMT_SEND_LONG_DATA the
	// statement holds for its next EXECUTE, longDataErr the error that
	// EXECUTE fails with when long data broke the Listener's bounds
	// (seqd: longdata.go).
	longData    int64
	longDataErr *SQLError
}

// bufPool is used to allocate and free buffers in an efficient way.
var bufPool = bucketpool.New(DefaultConnBufferSize, MaxPacketSize)

// writersPool is used for pooling bufio.Writer objects.
var writersPool = sync.Pool{New: func() interface{} { return bufio.NewWriterSize(nil, DefaultConnBufferSize) }}

// newServerConn should be used to create server connections.
//
// It stashes a reference to the listener to be able to determine if
// the server is shutting down, and has the ability to control buffer
// size for reads.
func newServerConn(conn net.Conn, listener *Listener) *Conn {
	c := &Conn{
		Conn:        conn,
		listener:    listener,
		closed:      sync2.NewAtomicBool(false),
		PrepareData: make(map[uint32]*PrepareData),
		maxPacket:   handshakeBound(listener.MaxPacket), // seqd: bounded before authentication; MaxPacket after
	}
	if listener.connReadBufferSize > 0 {
		c.bufferedReader = bufio.NewReaderSize(conn, listener.connReadBufferSize)
	}
	return c
}

// startWriterBuffering starts using buffered writes. This should
// be terminated by a call to flush.
func (c *Conn) startWriterBuffering() {
	c.bufferedWriter = writersPool.Get().(*bufio.Writer)
	c.bufferedWriter.Reset(c.Conn)
}

// flush flushes the written data to the socket.
// This must be called to terminate startBuffering.
func (c *Conn) flush(ctx context.Context) error {
	defer trace.StartRegion(ctx, "spool-results").End()

	if c.bufferedWriter == nil {
		return nil
	}

	defer func() {
		c.bufferedWriter.Reset(nil)
		writersPool.Put(c.bufferedWriter)
		c.bufferedWriter = nil
	}()

	return c.bufferedWriter.Flush()
}

// getWriter returns the current writer. It may be either
// the original connection or a wrapper.
func (c *Conn) getWriter() io.Writer {
	if c.bufferedWriter != nil {
		return c.bufferedWriter
	}
	return c.Conn
}

// getReader returns reader for connection. It can be *bufio.Reader or net.Conn
// depending on which buffer size was passed to newServerConn.
func (c *Conn) getReader() io.Reader {
	if c.bufferedReader != nil {
		return c.bufferedReader
	}
	return c.Conn
}

// RemoteAddr returns the underlying socket RemoteAddr().
func (c *Conn) RemoteAddr() net.Addr {
	return c.Conn.RemoteAddr()
}

// ID returns the MySQL connection ID for this connection.
func (c *Conn) ID() int64 {
	return int64(c.ConnectionID)
}

// Ident returns a useful identification string for error logging
func (c *Conn) String() string {
	return fmt.Sprintf("client %v (%s)", c.ConnectionID, c.RemoteAddr().String())
}

// Close closes the connection. It can be called from a different go
// routine to interrupt the current connection.
func (c *Conn) Close() {
	if c.closed.CompareAndSwap(false, true) {
		c.Conn.Close()
	}
}

// GetTLSClientCerts gets TLS certificates.
func (c *Conn) GetTLSClientCerts() []*x509.Certificate {
	if tlsConn, ok := c.Conn.(*tls.Conn); ok {
		return tlsConn.ConnectionState().PeerCertificates
	}
	return nil
}

// TLSEnabled returns true if this connection is using TLS.
func (c *Conn) TLSEnabled() bool {
	return c.Capabilities&CapabilityClientSSL > 0
}

// IsUnixSocket returns true if this connection is over a Unix socket.
func (c *Conn) IsUnixSocket() bool {
	_, ok := c.listener.listener.(*net.UnixListener)
	return ok
}
