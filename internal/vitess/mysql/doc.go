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

// Package mysql is the server side of the MySQL binary protocol, as
// seqd's MySQL front end uses it: a fork of Vitess's go/mysql as Dolt
// maintains it, its client, replication and binlog code deleted
// (internal/vitess/README.md lists every change).
package mysql

/*

Implementation notes, collected during coding.
==============================================

The reference for the capabilities is at this location:
http://dev.mysql.com/doc/internals/en/capability-flags.html

--
CLIENT_FOUND_ROWS

The doc says:
Send found rows instead of affected rows in EOF_Packet.
Value
0x00000002

We just pass it through to the server.

--
CLIENT_CONNECT_WITH_DB:

It drives the ability to connect with a database name.
The server needs to send this flag if it supports it.
If the client supports it as well, and wants to connect with a database name,
then the client can set the flag in its response, and then put the database name
in the handshake response.

--
PLUGGABLE AUTHENTICATION:

See https://dev.mysql.com/doc/internals/en/authentication-method-mismatch.html
for more information on this.

Our server side always starts by using mysql_native_password or
caching_sha2_password (the AuthServer's DefaultAuthMethodDescription),
like a real MySQL server.

The server's AuthServer plugin method AuthMethods() will then return
what auth methods the server wants to use. If the client already
returned the data for one, we use it. Otherwise we switch the auth to
what the server wants (by sending an Authentication Method Switch
Request packet) and re-negotiate.

--
Maximum Packet Size:

Sent by the client and ignored by the server (seqd: Listener.MaxPacket
and MaxHandshakePacket bound what the server reads).

--
CLIENT_CONNECT_ATTRS

The client can send up optional connection attributes with this flags.
They are parsed, and dropped.

--
Multi result sets:

The flags returned mark if there are more result sets coming up, for
the statements of a COM_QUERY with CLIENT_MULTI_STATEMENTS.
See: http://dev.mysql.com/doc/internals/en/multi-resultset.html

*/
