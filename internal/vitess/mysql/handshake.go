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

// The connection phase: the server's greeting, the client's handshake
// response (and TLS), the authentication (seqd: split out of
// server.go's handle).

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/dolthub/vitess/go/vt/log"
	"github.com/dolthub/vitess/go/vt/proto/vtrpc"
	"github.com/dolthub/vitess/go/vt/vterrors"
)

// handshake greets the client, reads its handshake response (switching
// to TLS if it asks), authenticates it and answers with an OK packet;
// false when the connection is to end (seqd: split out of handle).
func (l *Listener) handshake(ctx context.Context, c *Conn) bool {
	// First build and send the server handshake packet.
	serverAuthPluginData, err := c.writeHandshakeV10(l.ServerVersion, l.authServer, l.TLSConfig != nil)
	if err != nil {
		if err != io.EOF {
			l.handleConnectionError(c, fmt.Sprintf("Cannot send HandshakeV10 packet: %v", err))
		}
		return false
	}
	c.scramble = serverAuthPluginData // seqd: for COM_CHANGE_USER

	user, clientAuthMethod, clientAuthResponse, ok := l.readHandshakeResponse(ctx, c)
	if !ok {
		return false
	}
	if !c.TLSEnabled() && l.RequireSecureTransport {
		// seqd: refused, before any authentication (upstream wrote
		// the error, then authenticated the client and served it
		// without TLS). MariaDB 10.11 with require_secure_transport
		// answers 1045, in the words of a wrong password, whatever
		// the password: so does this, without looking at it.
		l.handleConnectionWarning(c, fmt.Sprintf("Refused %s: it did not ask for TLS, which the server requires", c))
		c.writeErrorPacketFromError(AccessDenied(user, c.RemoteAddr(), len(clientAuthResponse) > 0))
		return false
	}

	userData, failed := l.authenticate(c, user, clientAuthMethod, clientAuthResponse, serverAuthPluginData)
	if failed != nil {
		if failed.tell != nil {
			c.writeErrorPacketFromError(failed.tell)
		}
		return false
	}
	c.User = user
	c.UserData = userData
	if ah, ok := l.handler.(AuthenticatedHandler); ok { // seqd: AuthenticatedHandler
		if err := ah.ConnectionAuthenticated(c); err != nil {
			l.handleConnectionWarning(c, fmt.Sprintf("Refused %s after authenticating it: %v", c, err))
			c.writeErrorPacketFromError(err)
			return false
		}
	}
	c.maxPacket = l.MaxPacket // seqd: bounded before authentication; MaxPacket from here on

	// Set initial db name.
	if c.schemaName != "" {
		if err = l.handler.ComInitDB(c, c.schemaName); err != nil {
			log.Errorf("failed to set the database %s: %v", c, err)

			c.writeErrorPacketFromError(err)
			return false
		}
	}

	// Negotiation worked, send OK packet.
	if err := c.writeOKPacket(0, 0, c.StatusFlags, 0); err != nil {
		log.Errorf("Cannot write OK packet to %s: %v", c, err)
		return false
	}
	return true
}

// readHandshakeResponse reads and parses the client's handshake
// response, and its second one when it asked for TLS in the first; false
// when the connection is to end (seqd: split out of handle).
func (l *Listener) readHandshakeResponse(ctx context.Context, c *Conn) (user string, method AuthMethodDescription, authResponse []byte, ok bool) {
	// Wait for the client response. This has to be a direct read,
	// so we don't buffer the TLS negotiation packets.
	response, err := c.readEphemeralPacketDirect(ctx)
	if err != nil {
		// Don't log EOF errors. They cause too much spam, same as main read loop.
		if err != io.EOF {
			l.handleConnectionWarning(c, fmt.Sprintf(
				"Cannot read client handshake response from %s: %v, "+
					"it may not be a valid MySQL client", c, err))
		}
		c.writeHandshakeReadError(err) // seqd: bounded reading
		return "", "", nil, false
	}
	user, method, authResponse, err = l.parseClientHandshakePacket(c, true, response)
	if err != nil {
		l.handleConnectionError(c, fmt.Sprintf(
			"Cannot parse client handshake response from %s: %v", c, err))
		c.recycleReadPacket()
		c.writeErrorPacketFromError(errBadHandshake) // seqd: as MariaDB
		return "", "", nil, false
	}

	c.recycleReadPacket()

	if c.TLSEnabled() {
		// SSL was enabled. We need to re-read the auth packet.
		response, err = c.readEphemeralPacket(ctx)
		if err != nil {
			l.handleConnectionError(c, fmt.Sprintf(
				"Cannot read post-SSL client handshake response from %s: %v", c, err))
			c.writeHandshakeReadError(err) // seqd: bounded reading
			return "", "", nil, false
		}

		// Returns copies of the data, so we can recycle the buffer.
		user, method, authResponse, err = l.parseClientHandshakePacket(c, false, response)
		c.recycleReadPacket()
		if err != nil {
			l.handleConnectionError(c, fmt.Sprintf(
				"Cannot parse post-SSL client handshake response from %s: %v", c, err))
			c.writeErrorPacketFromError(errBadHandshake) // seqd: as MariaDB
			return "", "", nil, false
		}
	}
	return user, method, authResponse, true
}

// authFailure is why authenticate failed: tell, when set, is the error
// the client is to be told; broken, that the connection cannot go on
// (it failed, or the client sent what cannot be read), where a refused
// client's could (seqd: COM_CHANGE_USER goes on after a refusal, where
// the handshake ends the connection either way).
type authFailure struct {
	tell   error
	broken bool
}

// authenticate authenticates user with the method the AuthServer wants
// for it, switching the client to it if need be; nil when it did,
// failed being why not (seqd: split out of handle, and it returns the
// error it wrote, for COM_CHANGE_USER).
func (l *Listener) authenticate(c *Conn, user string, clientAuthMethod AuthMethodDescription, clientAuthResponse, serverAuthPluginData []byte) (userData Getter, failed *authFailure) {
	// See what auth method the AuthServer wants to use for that user.
	negotiatedAuthMethod, err := negotiateAuthMethod(c, l.authServer, user, clientAuthMethod)

	// We need to send down an additional packet if we either have no negotiated method
	// at all or incomplete authentication data.
	//
	// The latter case happens for example for MySQL 8.0 clients until 8.0.25 who advertise
	// support for caching_sha2_password by default but with no plugin data.
	if err != nil || (len(clientAuthResponse) == 0 && clientAuthMethod == CachingSha2Password) {
		if err != nil {
			// The client will disconnect if it doesn't understand
			// the first auth method that we send, so we only have to send the
			// first one that we allow for the user.
			for _, m := range l.authServer.AuthMethods() {
				if m.HandleUser(c, user) {
					negotiatedAuthMethod = m
					break
				}
			}
		}
		if negotiatedAuthMethod == nil {
			l.handleConnectionError(c, "No authentication methods available for authentication.")
			return nil, &authFailure{tell: NewSQLError(CRServerHandshakeErr, SSUnknownSQLState, "No authentication methods available for authentication.")}
		}

		// seqd: upstream refused here a method that sends the password
		// in the clear (mysql_clear_password, dialog) over a connection
		// without TLS unless Listener.AllowClearTextWithoutTLS; those
		// methods are deleted, and the check with them.

		serverAuthPluginData, err = negotiatedAuthMethod.AuthPluginData()
		if err != nil {
			l.handleConnectionError(c, fmt.Sprintf("Error generating auth switch packet for %s: %v", c, err))
			return nil, &authFailure{broken: true}
		}

		if err := c.writeAuthSwitchRequest(string(negotiatedAuthMethod.Name()), serverAuthPluginData); err != nil {
			l.handleConnectionError(c, fmt.Sprintf("Error writing auth switch packet for %s: %v", c, err))
			return nil, &authFailure{broken: true}
		}

		data, err := c.readEphemeralPacket(context.Background())
		if err != nil {
			l.handleConnectionError(c, fmt.Sprintf("Error reading auth switch response for %s: %v", c, err))
			failed := &authFailure{broken: true}
			if err == ErrPacketTooLarge { // seqd: bounded reading, as writeHandshakeReadError tells it
				failed.tell = handshakeError(err)
			}
			return nil, failed
		}

		var ok bool
		clientAuthResponse, _, ok = readBytesCopy(data, 0, len(data))
		c.recycleReadPacket()
		if !ok {
			l.handleConnectionError(c, fmt.Sprintf("Unable to copy client auth response for %s", c))
			return nil, &authFailure{broken: true}
		}
	}

	userData, err = negotiatedAuthMethod.HandleAuthPluginData(c, user, serverAuthPluginData, clientAuthResponse, c.Conn.RemoteAddr())
	if err != nil {
		l.handleConnectionWarning(c, fmt.Sprintf("Error authenticating user %s using: %s", user, negotiatedAuthMethod.Name()))
		return nil, &authFailure{tell: handshakeError(err)} // seqd: bounded before authentication
	}
	return userData, nil
}

// MaxHandshakePacket bounds each packet a client sends before it is
// authenticated (its handshake response, before and after TLS, its reply
// to an auth switch, caching_sha2_password's more data): past it the
// client gets errBadHandshake, the packet is dropped unread as one past
// MaxPacket is (skipRest), and the connection ends (seqd: upstream held
// up to 16 MiB for a connection not yet authenticated, and seqd's
// MaxPacket 1 MiB: 10 GiB for 10,000 such connections). Clients send a
// few hundred bytes (go-sql-driver 150, the mariadb client 188, MySQL's
// Connector/J 182 and MariaDB's 202; about 1.9 KB with 40 connection
// attributes more; an RSA-encrypted password is 256 bytes for a 2048-bit
// key); MariaDB 10.11 answers "Bad handshake" to connection attributes
// past 64 KiB. 16 KiB is the buffer pool's smallest size and the read
// buffer each connection has anyway.
const MaxHandshakePacket = 16 << 10

// handshakeBound is what bounds a packet before authentication: the
// smaller of MaxHandshakePacket and maxPacket (none when not positive)
// (seqd: bounded before authentication).
func handshakeBound(maxPacket int) int {
	if maxPacket > 0 && maxPacket < MaxHandshakePacket {
		return maxPacket
	}
	return MaxHandshakePacket
}

// errBadHandshake is MySQL's and MariaDB's answer to a handshake response
// that cannot be parsed (seqd: upstream closed the connection without
// one).
var errBadHandshake = NewSQLError(ERHandshakeError, SSNetError, "Bad handshake")

// writeHandshakeReadError tells the client why its handshake response
// was not read, when it is its fault: a packet past the bound before
// authentication (seqd: bounded reading).
func (c *Conn) writeHandshakeReadError(err error) {
	if err == ErrPacketTooLarge {
		c.writeErrorPacketFromError(handshakeError(err))
	}
}

// handshakeError is what the client is told of err, which ended its
// authentication: a packet past the bound before authentication
// (ErrPacketTooLarge, from handshakeBound) is a bad handshake, as MariaDB
// answers connection attributes past its bound (seqd: bounded before
// authentication).
func handshakeError(err error) error {
	if err == ErrPacketTooLarge {
		return errBadHandshake
	}
	return err
}

// AccessDenied is MariaDB's 1045 for user connecting from addr, as it
// refuses a wrong password (seqd: for RequireSecureTransport, and for a
// Handler's AuthServer to word its refusals the same).
func AccessDenied(user string, addr net.Addr, usingPassword bool) *SQLError {
	host := addr.String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	yes := "NO"
	if usingPassword {
		yes = "YES"
	}
	return NewSQLError(ERAccessDeniedError, SSAccessDeniedError, "Access denied for user '%s'@'%s' (using password: %s)", user, host, yes)
}

// writeHandshakeV10 writes the Initial Handshake Packet, server side.
// It returns the salt data.
func (c *Conn) writeHandshakeV10(serverVersion string, authServer AuthServer, enableTLS bool) ([]byte, error) {
	capabilities := CapabilityClientLongPassword |
		CapabilityClientLongFlag |
		CapabilityClientConnectWithDB |
		CapabilityClientProtocol41 |
		CapabilityClientTransactions |
		CapabilityClientSecureConnection |
		CapabilityClientMultiStatements |
		CapabilityClientMultiResults |
		CapabilityClientPluginAuth |
		CapabilityClientPluginAuthLenencClientData |
		CapabilityClientDeprecateEOF |
		CapabilityClientConnAttr |
		CapabilityClientFoundRows |
		CapabilityClientLocalFiles
	if enableTLS {
		capabilities |= CapabilityClientSSL
	}

	// Grab the default auth method. This can only be either
	// mysql_native_password or caching_sha2_password. Both
	// need the salt as well to be present too.
	//
	// Any other auth method will cause clients to throw a
	// handshake error.
	authMethod := authServer.DefaultAuthMethodDescription()
	if authMethod != MysqlNativePassword && authMethod != CachingSha2Password {
		authMethod = MysqlNativePassword
	}

	length :=
		1 + // protocol version
			lenNullString(serverVersion) +
			4 + // connection ID
			8 + // first part of plugin auth data
			1 + // filler byte
			2 + // capability flags (lower 2 bytes)
			1 + // character set
			2 + // status flag
			2 + // capability flags (upper 2 bytes)
			1 + // length of auth plugin data
			10 + // reserved (0)
			13 + // auth-plugin-data
			lenNullString(string(authMethod)) // auth-plugin-name

	data := c.startEphemeralPacket(length)
	pos := 0

	// Protocol version.
	pos = writeByte(data, pos, protocolVersion)

	// Copy server version.
	pos = writeNullString(data, pos, serverVersion)

	// Add connectionID in.
	pos = writeUint32(data, pos, c.ConnectionID)

	// Generate the salt as the plugin data. Will be reused
	// later on if no auth method switch happens and the real
	// auth method is also mysql_native_password or caching_sha2_password.
	pluginData, err := NewSalt()
	if err != nil {
		return nil, err
	}
	// Plugin data is always defined as having a trailing NULL
	pluginData = append(pluginData, 0)

	pos += copy(data[pos:], pluginData[:8])

	// One filler byte, always 0.
	pos = writeByte(data, pos, 0)

	// Lower part of the capability flags.
	pos = writeUint16(data, pos, uint16(capabilities))

	// Character set.
	pos = writeByte(data, pos, CharacterSetUtf8)

	// Status flag.
	pos = writeUint16(data, pos, c.StatusFlags)

	// Upper part of the capability flags.
	pos = writeUint16(data, pos, uint16(capabilities>>16))

	// Length of auth plugin data.
	// Always 21 (8 + 13).
	pos = writeByte(data, pos, 21)

	// Reserved 10 bytes: all 0
	pos = writeZeroes(data, pos, 10)

	// Second part of auth plugin data.
	pos += copy(data[pos:], pluginData[8:])

	// Copy authPluginName. We always start with the first
	// registered auth method name.
	pos = writeNullString(data, pos, string(authMethod))

	// Sanity check.
	if pos != len(data) {
		return nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "error building Handshake packet: got %v bytes expected %v", pos, len(data))
	}

	if err := c.writeEphemeralPacket(); err != nil {
		if strings.HasSuffix(err.Error(), "write: connection reset by peer") {
			return nil, io.EOF
		}
		if strings.HasSuffix(err.Error(), "write: broken pipe") {
			return nil, io.EOF
		}
		return nil, err
	}

	return pluginData, nil
}

// parseClientHandshakePacket parses the handshake sent by the client.
// Returns the username, auth method, auth data, error.
// The original data is not pointed at, and can be freed.
func (l *Listener) parseClientHandshakePacket(c *Conn, firstTime bool, data []byte) (string, AuthMethodDescription, []byte, error) {
	pos := 0

	// Client flags, 4 bytes.
	clientFlags, pos, ok := readUint32(data, pos)
	if !ok {
		return "", "", nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read client flags")
	}
	if clientFlags&CapabilityClientProtocol41 == 0 {
		return "", "", nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: only support protocol 4.1")
	}

	// Remember a subset of the capabilities, so we can use them
	// later in the protocol. If we re-received the handshake packet
	// after SSL negotiation, do not overwrite capabilities.
	if firstTime {
		c.Capabilities = clientFlags & (CapabilityClientDeprecateEOF | CapabilityClientFoundRows)
	}

	// set connection capability for executing multi statements
	if clientFlags&CapabilityClientMultiStatements > 0 {
		c.Capabilities |= CapabilityClientMultiStatements
	}

	// Max packet size. Don't do anything with this now.
	// See doc.go for more information.
	_, pos, ok = readUint32(data, pos)
	if !ok {
		return "", "", nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read maxPacketSize")
	}

	// Character set. Need to handle it.
	characterSet, pos, ok := readByte(data, pos)
	if !ok {
		return "", "", nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read characterSet")
	}
	c.CharacterSet = characterSet

	// 23x reserved zero bytes.
	pos += 23

	// Check for SSL.
	if firstTime && l.TLSConfig != nil && clientFlags&CapabilityClientSSL > 0 {
		// Need to switch to TLS, and then re-read the packet.
		conn := tls.Server(c.Conn, l.TLSConfig)
		c.Conn = conn
		c.bufferedReader.Reset(conn)
		c.Capabilities |= CapabilityClientSSL
		return "", "", nil, nil
	}

	c.clientFlags = clientFlags // seqd: for COM_CHANGE_USER

	// username
	username, pos, ok := readNullString(data, pos)
	if !ok {
		return "", "", nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read username")
	}

	authResponse, pos, err := readAuthResponse(data, pos, clientFlags)
	if err != nil {
		return "", "", nil, err
	}

	// db name.
	if clientFlags&CapabilityClientConnectWithDB != 0 {
		dbname := ""
		dbname, pos, ok = readNullString(data, pos)
		if !ok {
			return "", "", nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read dbname")
		}
		c.schemaName = dbname
	}

	// authMethod (with default)
	authMethod := MysqlNativePassword
	if clientFlags&CapabilityClientPluginAuth != 0 {
		var authMethodStr string
		authMethodStr, pos, ok = readNullString(data, pos)
		if !ok {
			return "", "", nil, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read authMethod")
		}

		// The JDBC driver sometimes sends an empty string as the auth method when it wants to use mysql_native_password
		if authMethodStr != "" {
			authMethod = AuthMethodDescription(authMethodStr)
		}
	}

	// Decode connection attributes send by the client
	if clientFlags&CapabilityClientConnAttr != 0 {
		if _, _, err := parseConnAttrs(data, pos); err != nil {
			log.Warningf("Decode connection attributes send by the client: %v", err)
		}
	}

	return username, AuthMethodDescription(authMethod), authResponse, nil
}

// readAuthResponse reads the auth-response of a handshake response,
// which can have three forms (seqd: split out of
// parseClientHandshakePacket).
func readAuthResponse(data []byte, pos int, clientFlags uint32) ([]byte, int, error) {
	var authResponse []byte
	var ok bool
	if clientFlags&CapabilityClientPluginAuthLenencClientData != 0 {
		var l uint64
		l, pos, ok = readLenEncInt(data, pos)
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read auth-response variable length")
		}
		authResponse, pos, ok = readBytesCopy(data, pos, int(l))
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read auth-response")
		}

	} else if clientFlags&CapabilityClientSecureConnection != 0 {
		var l byte
		l, pos, ok = readByte(data, pos)
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read auth-response length")
		}

		authResponse, pos, ok = readBytesCopy(data, pos, int(l))
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read auth-response")
		}
	} else {
		a := ""
		a, pos, ok = readNullString(data, pos)
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read auth-response")
		}
		authResponse = []byte(a)
	}
	return authResponse, pos, nil
}

func parseConnAttrs(data []byte, pos int) (map[string]string, int, error) {
	var attrLen uint64

	attrLen, pos, ok := readLenEncInt(data, pos)
	if !ok {
		return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read connection attributes variable length")
	}

	var attrLenRead uint64

	attrs := make(map[string]string)

	for attrLenRead < attrLen {
		var keyLen byte
		keyLen, pos, ok = readByte(data, pos)
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read connection attribute key length")
		}
		attrLenRead += uint64(keyLen) + 1

		var connAttrKey []byte
		connAttrKey, pos, ok = readBytesCopy(data, pos, int(keyLen))
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read connection attribute key")
		}

		var valLen byte
		valLen, pos, ok = readByte(data, pos)
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read connection attribute value length")
		}
		attrLenRead += uint64(valLen) + 1

		var connAttrVal []byte
		connAttrVal, pos, ok = readBytesCopy(data, pos, int(valLen))
		if !ok {
			return nil, 0, vterrors.Errorf(vtrpc.Code_INTERNAL, "parseClientHandshakePacket: can't read connection attribute value")
		}

		attrs[string(connAttrKey[:])] = string(connAttrVal[:])
	}

	return attrs, pos, nil

}

// writeAuthSwitchRequest writes an auth switch request packet.
func (c *Conn) writeAuthSwitchRequest(pluginName string, pluginData []byte) error {
	length := 1 + // AuthSwitchRequestPacket
		len(pluginName) + 1 + // 0-terminated pluginName
		len(pluginData)

	data := c.startEphemeralPacket(length)
	pos := 0

	// Packet header.
	pos = writeByte(data, pos, AuthSwitchRequestPacket)

	// Copy server version.
	pos = writeNullString(data, pos, pluginName)

	// Copy auth data.
	pos += copy(data[pos:], pluginData)

	// Sanity check.
	if pos != len(data) {
		return vterrors.Errorf(vtrpc.Code_INTERNAL, "error building AuthSwitchRequestPacket packet: got %v bytes expected %v", pos, len(data))
	}
	return c.writeEphemeralPacket()
}
