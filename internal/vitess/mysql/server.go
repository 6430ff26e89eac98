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
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/dolthub/vitess/go/netutil"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/tb"
	"github.com/dolthub/vitess/go/vt/log"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

const (
	// DefaultServerVersion is the default server version we're sending to the client.
	// Can be changed.
	DefaultServerVersion = "8.0.33"
)

// A Handler is an interface used by Listener to send queries.
// The implementation of this interface may store data in the ClientData
// field of the Connection for its own purposes.
//
// For a given Connection, all these methods are serialized. It means
// only one of these methods will be called concurrently for a given
// Connection. So access to the Connection ClientData does not need to
// be protected by a mutex.
//
// However, each connection is using one go routine, so multiple
// Connection objects can call these concurrently, for different Connections.
type Handler interface {
	// NewConnection is called when a connection is created.
	// It is not established yet. The handler can decide to
	// set StatusFlags that will be returned by the handshake methods.
	// In particular, ServerStatusAutocommit might be set.
	NewConnection(c *Conn)

	// ConnectionClosed is called when a connection is closed.
	ConnectionClosed(c *Conn)

	// ConnectionAborted is called when a new connection cannot be fully established. For
	// example, if a client connects to the server, but fails authentication, or can't
	// negotiate an authentication handshake, this method will be called to let integrators
	// know about the failed connection attempt.
	ConnectionAborted(c *Conn, reason string) error

	// ComInitDB is called once at the beginning to set db name,
	// and subsequently for every ComInitDB event.
	ComInitDB(c *Conn, schemaName string) error

	// ComQuery is called when a connection receives a query.
	// Note the contents of the query slice may change after
	// the first call to callback. So the Handler should not
	// hang on to the byte slice.
	ComQuery(ctx context.Context, c *Conn, query string, callback ResultSpoolFn) error

	// ComMultiQuery is called when a connection receives a query and the
	// client supports MULTI_STATEMENT. It should process the first
	// statement in |query| and return the remainder. It will be called
	// multiple times until the remainder is |""|.
	ComMultiQuery(ctx context.Context, c *Conn, query string, callback ResultSpoolFn) (string, error)

	// ComPrepare is called when a connection receives a prepared
	// statement query (COM_STMT_PREPARE). The Handler parses the
	// statement, refusing what it cannot prepare (several statements
	// among them), and sets the PrepareData's ParamsCount and, for that
	// many parameters, ParamsType (of that length) and BindVars (an
	// empty map): the listener does not parse it (seqd: upstream parsed
	// it first with Dolt's grammar and counted the parameters itself,
	// unless the Handler was a PrepareParser that said it parsed what it
	// prepared; that path is now the only one).
	ComPrepare(ctx context.Context, c *Conn, query string, prepare *PrepareData) ([]*querypb.Field, error)

	// ComStmtExecute is called when a connection receives a statement
	// execute query.
	ComStmtExecute(ctx context.Context, c *Conn, prepare *PrepareData, callback func(*sqltypes.Result) error) error

	// WarningCount is called at the end of each query to obtain
	// the value to be returned to the client in the EOF packet.
	// Note that this will be called either in the context of the
	// ComQuery callback if the result does not contain any fields,
	// or after the last ComQuery call completes.
	WarningCount(c *Conn) uint16

	// ComResetConnection is called when a connection receives a COM_RESET_CONNECTION signal.
	// This is used to reset the session state (e.g. clearing user vars, resetting session vars, releasing
	// locks, releasing cached prepared statements, etc). One of the primary use cases for COM_RESET_CONNECTION
	// is to reset a pooled connection's session state so that it can be safely returned to the connection pool
	// and given to another application process to reuse.
	ComResetConnection(c *Conn) error
}

// AuthenticatedHandler is implemented by a Handler that is told when a
// connection's client authenticated (seqd: seqd's connection budget
// ends the connection's authentication timeout then, and keeps its
// reserved places for superusers). The listener calls
// ConnectionAuthenticated once the authentication succeeded, before the
// connection's database is set and its OK packet sent; an error is sent
// in place of the OK packet, and the connection ends.
type AuthenticatedHandler interface {
	ConnectionAuthenticated(c *Conn) error
}

// StmtCloser is implemented by a Handler that keeps state of its own for
// each prepared statement (seqd: for max_prepared_stmt_count): the
// listener calls ComStmtClose when the client closes one of the
// connection's statements (COM_STMT_CLOSE). COM_RESET_CONNECTION
// (ComResetConnection) and the connection's end (ConnectionClosed) end
// them all.
type StmtCloser interface {
	ComStmtClose(c *Conn, stmtID uint32)
}

// ResultSpoolFn is the callback function used by ComQuery and related functions to handle rows returned by a query
type ResultSpoolFn func(res *sqltypes.Result, more bool) error

// Listener is the MySQL server protocol listener.
type Listener struct {
	// Construction parameters, set by NewListenerWithConfig.

	// authServer is the AuthServer object to use for authentication.
	authServer AuthServer

	// handler is the data handler.
	handler Handler

	// This is the main listener socket.
	listener net.Listener

	// The following parameters are read by multiple connection go
	// routines.  They are not protected by a mutex, so they
	// should be set after NewListenerWithConfig, and not changed while
	// Accept is running.

	// ServerVersion is the version we will advertise.
	ServerVersion string

	// TLSConfig is the server TLS config. If set, we will advertise
	// that we support SSL.
	TLSConfig *tls.Config

	// The following parameters are changed by the Accept routine.

	// Incrementing ID for connection id.
	connectionID uint32

	// Read timeout on a given connection
	connReadTimeout time.Duration
	// Write timeout on a given connection
	connWriteTimeout time.Duration
	// connReadBufferSize is size of buffer for reads from underlying connection.
	// Reads are unbuffered if it's <=0.
	connReadBufferSize int

	// shutdownCh - open channel until it's not. Used to block and handle shutdown without hanging
	shutdownCh chan struct{}

	// RequireSecureTransport configures the server to reject connections from insecure clients
	RequireSecureTransport bool

	// MaxPacket, when positive, bounds what a client may send in one
	// packet with its continuation packets once it is authenticated:
	// past it the connection gets ErrPacketTooLarge and ends, as MariaDB
	// ends one past max_allowed_packet (seqd: bounded reading). Before,
	// the bound is MaxHandshakePacket (or MaxPacket, if smaller).
	MaxPacket int
	// MaxLongData and MaxLongDataStatement, when positive, bound the
	// long data (COM_STMT_SEND_LONG_DATA) of one parameter and of all
	// of one statement's parameters: past either, the statement's next
	// EXECUTE fails and the data is dropped (seqd: longdata.go).
	MaxLongData, MaxLongDataStatement int64
	// longData is the long data the listener's connections hold.
	longData atomic.Int64
	// ChangeUserFailedDelay, when positive, is how long a refused
	// COM_CHANGE_USER waits before its error is sent: MariaDB waits a
	// second (seqd: changeuser.go).
	ChangeUserFailedDelay time.Duration
}

// ListenerConfig should be used with NewListenerWithConfig to specify
// listener parameters (seqd: the listening address and the bounds on
// connections are deleted: seqd passes a net.Listener, and bounds
// connections itself; AllowClearTextWithoutTLS with the methods that
// send passwords in the clear).
type ListenerConfig struct {
	Listener           net.Listener
	AuthServer         AuthServer
	Handler            Handler
	ConnReadTimeout    time.Duration
	ConnWriteTimeout   time.Duration
	ConnReadBufferSize int
}

// NewListenerWithConfig creates new listener using provided config. There are
// no default values for config, so caller should ensure its correctness.
func NewListenerWithConfig(cfg ListenerConfig) (*Listener, error) {
	if cfg.Listener == nil {
		return nil, errors.New("mysql: ListenerConfig.Listener is nil")
	}
	return &Listener{
		authServer:         cfg.AuthServer,
		handler:            cfg.Handler,
		listener:           cfg.Listener,
		ServerVersion:      DefaultServerVersion,
		connectionID:       1,
		connReadTimeout:    cfg.ConnReadTimeout,
		connWriteTimeout:   cfg.ConnWriteTimeout,
		connReadBufferSize: cfg.ConnReadBufferSize,
		shutdownCh:         make(chan struct{}),
	}, nil
}

// Addr returns the listener address.
func (l *Listener) Addr() net.Addr {
	return l.listener.Addr()
}

// Accept runs an accept loop until the listener is closed.
func (l *Listener) Accept() {
	for {
		conn, err := l.listener.Accept()
		if err != nil {
			// Close() was probably called.
			return
		}

		connectionID := l.connectionID
		l.connectionID++

		go l.handle(context.Background(), conn, connectionID)
	}
}

// handle is called in a go routine for each client connection.
// FIXME(alainjobart) handle per-connection logs in a way that makes sense.
func (l *Listener) handle(ctx context.Context, conn net.Conn, connectionID uint32) {
	if l.connReadTimeout != 0 || l.connWriteTimeout != 0 {
		conn = netutil.NewConnWithTimeouts(conn, l.connReadTimeout, l.connWriteTimeout)
	}
	c := newServerConn(conn, l)
	c.ConnectionID = connectionID

	// Catch panics, and close the connection in any case.
	defer func() {
		if x := recover(); x != nil {
			log.Errorf("mysql_server caught panic:\n%v\n%s", x, tb.Stack(4))
		}

		// We call flush here in case there's a premature return after
		// startWriterBuffering is called
		c.flush(ctx)

		conn.Close()
	}()

	// Tell the handler about the connection coming and going.
	l.handler.NewConnection(c)
	defer l.handler.ConnectionClosed(c)

	defer c.discardCursor()
	defer c.endAllLongData() // seqd: longdata.go

	if !l.handshake(ctx, c) {
		return
	}

	for {
		err := c.handleNextCommand(ctx, l.handler)
		if err != nil {
			return
		}
	}
}

// handleConnectionError logs |reason| as an error and notifies the handler that a connection has been aborted.
func (l *Listener) handleConnectionError(c *Conn, reason string) {
	log.Error(reason)
	if err := l.handler.ConnectionAborted(c, reason); err != nil {
		log.Errorf("unable to report connection aborted to handler: %s", err)
	}
}

// handleConnectionWarning logs |reason| as a warning and notifies the handler that a connection has been aborted.
func (l *Listener) handleConnectionWarning(c *Conn, reason string) {
	log.Warning(reason)
	if err := l.handler.ConnectionAborted(c, reason); err != nil {
		log.Errorf("unable to report connection aborted to handler: %s", err)
	}
}

// Close stops the listener, which prevents accept of any new connections. Existing connections won't be closed.
func (l *Listener) Close() {
	l.Shutdown()
}

// Shutdown closes listener and fails any Ping requests from existing connections.
// This can be used for graceful shutdown, to let clients know that they should reconnect to another server.
func (l *Listener) Shutdown() {
	select {
	case <-l.shutdownCh:
	default:
		close(l.shutdownCh)
		l.listener.Close()
	}
}

func (l *Listener) isShutdown() bool {
	select {
	case <-l.shutdownCh:
		return true
	default:
		return false
	}
}
