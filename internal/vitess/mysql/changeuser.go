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

// COM_CHANGE_USER (seqd: upstream answered it as an unknown command).
// It is served as MariaDB 10.11 serves it:
//
//  1. The session starts again first, whatever follows: the Handler's
//     ComResetConnection, prepared statements and cursors ended.
//  2. The new user is authenticated as the handshake authenticates a
//     client (authenticate): against the scramble of the server's
//     greeting, switched to another method if need be, refused without
//     TLS where the Listener requires it.
//  3. Only then is it the connection's user (ChangeUserHandler). A
//     refusal, at any step, leaves the connection its user's and in its
//     database, with its session started again; the error is sent after
//     ChangeUserFailedDelay, and past maxFailedChangeUsers refusals on a
//     connection every COM_CHANGE_USER is refused as an unknown command
//     (MariaDB's bound on guessing passwords through it).
//  4. A packet that cannot be parsed is refused as an unknown command
//     (MariaDB's 1047), and counts as a refusal; the connection goes on.

import (
	"fmt"
	"time"

	"github.com/dolthub/vitess/go/vt/log"
)

// ChangeUserHandler is implemented by a Handler that serves
// COM_CHANGE_USER; to another the listener answers it as an unknown
// command.
type ChangeUserHandler interface {
	// ComChangeUser makes user, authenticated (userData is its
	// AuthServer's), the connection's user, in database db (none when
	// empty): it sets c.User and c.UserData, and checks what
	// AuthenticatedHandler's ConnectionAuthenticated checks of a new
	// connection. The listener called ComResetConnection before. An
	// error is sent to the client, and the connection must be left its
	// former user's, in its former database.
	ComChangeUser(c *Conn, user string, userData Getter, db string) error
}

// maxFailedChangeUsers is how many COM_CHANGE_USERs may fail on one
// connection; those after are refused unread, as MariaDB refuses them.
const maxFailedChangeUsers = 3

// errChangeUserRefused is MariaDB's answer to a COM_CHANGE_USER it cannot
// parse, and to those after maxFailedChangeUsers failed.
var errChangeUserRefused = NewSQLError(ERUnknownComError, SSUnknownComError, "Unknown command")

// changeUserRequest is what a COM_CHANGE_USER packet asks for.
type changeUserRequest struct {
	user         string
	authResponse []byte
	db           string
	charset      uint16 // 0 when the packet has none
	authMethod   AuthMethodDescription
}

// parseComChangeUser parses COM_CHANGE_USER's packet (data, its command
// byte first) as MariaDB documents it, for a client whose handshake
// response had clientFlags:
//
//	user           string<NUL>
//	auth response  with CLIENT_SECURE_CONNECTION int<1> length, string<length>;
//	               without, string<NUL>
//	database       string<NUL>
//	and, only if the packet goes on:
//	character set  int<2>
//	plugin name    string<NUL>, with CLIENT_PLUGIN_AUTH
//	attributes     int<lenenc> length, then key and value pairs, with CLIENT_CONNECT_ATTRS
//
// The plugin name is mysql_native_password when absent or empty. What it
// returns is a copy: data may be recycled.
func parseComChangeUser(clientFlags uint32, data []byte) (changeUserRequest, error) {
	req := changeUserRequest{authMethod: MysqlNativePassword}
	malformed := func(what string) (changeUserRequest, error) {
		return changeUserRequest{}, fmt.Errorf("COM_CHANGE_USER: cannot read %s", what)
	}
	var ok bool
	pos := 1
	if req.user, pos, ok = readNullString(data, pos); !ok {
		return malformed("the user")
	}
	if clientFlags&CapabilityClientSecureConnection != 0 {
		var n byte
		if n, pos, ok = readByte(data, pos); !ok {
			return malformed("the auth response's length")
		}
		if req.authResponse, pos, ok = readBytesCopy(data, pos, int(n)); !ok {
			return malformed("the auth response")
		}
	} else {
		var s string
		if s, pos, ok = readNullString(data, pos); !ok {
			return malformed("the auth response")
		}
		req.authResponse = []byte(s)
	}
	if req.db, pos, ok = readNullString(data, pos); !ok {
		return malformed("the database")
	}
	if pos == len(data) {
		return req, nil
	}
	if req.charset, pos, ok = readUint16(data, pos); !ok {
		return malformed("the character set")
	}
	if clientFlags&CapabilityClientPluginAuth != 0 && pos < len(data) {
		var method string
		if method, pos, ok = readNullString(data, pos); !ok {
			return malformed("the auth plugin's name")
		}
		if method != "" {
			req.authMethod = AuthMethodDescription(method)
		}
	}
	if clientFlags&CapabilityClientConnAttr != 0 && pos < len(data) {
		if _, _, err := parseConnAttrs(data, pos); err != nil {
			return malformed("the connection attributes")
		}
	}
	return req, nil
}

// handleComChangeUser serves COM_CHANGE_USER (the file's comment says
// how); an error when the connection is to end.
func (c *Conn) handleComChangeUser(handler Handler, data []byte) error {
	ch, serves := handler.(ChangeUserHandler)
	if !serves {
		c.recycleReadPacket()
		return c.writeErrorPacket(ERUnknownComError, SSUnknownComError, "command handling not implemented yet: %v", ComChangeUser)
	}
	req, parseErr := parseComChangeUser(c.clientFlags, data)
	c.recycleReadPacket()

	// 1. The session starts again.
	c.discardCursor()
	c.endAllLongData() // seqd: longdata.go
	c.PrepareData = make(map[uint32]*PrepareData)
	if err := handler.ComResetConnection(c); err != nil {
		log.Errorf("Error resetting connection %s for COM_CHANGE_USER: %v", c, err)
	}

	l := c.listener
	var refusal error
	switch {
	case c.failedChangeUsers >= maxFailedChangeUsers:
		log.Warningf("Refused COM_CHANGE_USER from %s: %d failed before", c, c.failedChangeUsers)
		refusal = errChangeUserRefused
	case parseErr != nil:
		log.Warningf("Refused COM_CHANGE_USER from %s: %v", c, parseErr)
		refusal = errChangeUserRefused
	case !c.TLSEnabled() && l.RequireSecureTransport:
		// 2. As the handshake refuses it (a connection that got
		// this far has TLS: this holds should that change).
		l.handleConnectionWarning(c, fmt.Sprintf("Refused COM_CHANGE_USER from %s: it did not ask for TLS, which the server requires", c))
		refusal = AccessDenied(req.user, c.RemoteAddr(), len(req.authResponse) > 0)
	default:
		userData, failed := l.authenticate(c, req.user, req.authMethod, req.authResponse, c.scramble)
		switch {
		case failed != nil && failed.broken:
			if failed.tell != nil {
				c.writeErrorPacketFromError(failed.tell)
			}
			return fmt.Errorf("COM_CHANGE_USER: the authentication of %q failed", req.user)
		case failed != nil:
			refusal = failed.tell
		default:
			// 3. The new user.
			if refusal = ch.ComChangeUser(c, req.user, userData, req.db); refusal != nil {
				l.handleConnectionWarning(c, fmt.Sprintf("Refused COM_CHANGE_USER from %s to %q after authenticating it: %v", c, req.user, refusal))
			}
		}
	}
	if refusal != nil {
		c.failedChangeUsers++
		if l.ChangeUserFailedDelay > 0 {
			time.Sleep(l.ChangeUserFailedDelay)
		}
		return c.writeErrorPacketFromError(refusal)
	}
	c.schemaName = req.db
	if req.charset != 0 && req.charset < 256 {
		c.CharacterSet = uint8(req.charset)
	}
	return c.writeOKPacket(0, 0, c.StatusFlags, 0)
}
