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
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"net"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/tlstest"
	"github.com/dolthub/vitess/go/vt/vttls"
	gosql "github.com/go-sql-driver/mysql"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// seqd: the tests below are upstream's, which connected with the
// fork's client (Connect, ExecuteFetch) or ran the mysql command line
// client (runMysql) against upstream's AuthServerStatic: the client and
// AuthServerStatic are deleted from the fork, and they connect with
// github.com/go-sql-driver/mysql, against testAuthServer. What they
// checked of what is deleted (the listener's expvar counters, source
// hosts, mysql_clear_password and dialog) is left out; each says what
// else changed.

// testUserData is what testAuthServer says of an authenticated user.
type testUserData string

func (u testUserData) Get() *querypb.VTGateCallerID {
	return &querypb.VTGateCallerID{Username: string(u)}
}

// testAuthServer stands for upstream's AuthServerStatic in its tests:
// user1 with password1 (user data userData1), authenticated by
// mysql_native_password or, when sha2, caching_sha2_password (without
// an RSA key: over TLS or a Unix socket only), its fast path checking the
// password itself. Like AuthServerStatic, its greeting offers
// mysql_native_password whatever the method.
type testAuthServer struct {
	methods []AuthMethod
}

func newTestAuthServer(sha2 bool) *testAuthServer {
	a := &testAuthServer{}
	a.methods = []AuthMethod{NewMysqlNativeAuthMethod(a, a)}
	if sha2 {
		a.methods = []AuthMethod{NewSha2CachingAuthMethodRSA(a, a, a, nil)}
	}
	return a
}

func (a *testAuthServer) AuthMethods() []AuthMethod { return a.methods }

func (a *testAuthServer) DefaultAuthMethodDescription() AuthMethodDescription {
	return MysqlNativePassword
}

func (a *testAuthServer) HandleUser(string, net.Addr) bool { return true }

func (a *testAuthServer) check(user string, ok func(password []byte) bool) (Getter, error) {
	if user == "user1" && ok([]byte("password1")) {
		return testUserData("userData1"), nil
	}
	return nil, NewSQLError(ERAccessDeniedError, SSAccessDeniedError, "Access denied for user '%v'", user)
}

func (a *testAuthServer) UserEntryWithHash(_ []*x509.Certificate, salt []byte, user string, authResponse []byte, _ net.Addr) (Getter, error) {
	return a.check(user, func(p []byte) bool { return bytes.Equal(authResponse, ScrambleMysqlNativePassword(salt, p)) })
}

func (a *testAuthServer) UserEntryWithPassword(_ []*x509.Certificate, user, password string, _ net.Addr) (Getter, error) {
	return a.check(user, func(p []byte) bool { return password == string(p) })
}

func (a *testAuthServer) UserEntryWithCacheHash(_ []*x509.Certificate, salt []byte, user string, authResponse []byte, _ net.Addr) (Getter, CacheState, error) {
	g, err := a.check(user, func(p []byte) bool { return bytes.Equal(authResponse, ScrambleCachingSha2Password(salt, p)) })
	if err != nil {
		return nil, AuthRejected, err
	}
	return g, AuthAccepted, nil
}

// newTestListener starts a listener on a loopback port, or on ln, for
// th and a (seqd: upstream's NewListener and NewFromListener are
// deleted).
func newTestListener(t *testing.T, a AuthServer, th Handler, ln net.Listener) *Listener {
	t.Helper()
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatalf("net.Listen failed: %v", err)
		}
	}
	l, err := NewListenerWithConfig(ListenerConfig{Listener: ln, AuthServer: a, Handler: th, ConnReadBufferSize: DefaultConnBufferSize})
	if err != nil {
		t.Fatalf("NewListener failed: %v", err)
	}
	t.Cleanup(l.Close)
	return l
}

// testConfig is go-sql-driver's configuration for user1 to l.
func testConfig(l *Listener) *gosql.Config {
	cfg := gosql.NewConfig()
	cfg.User, cfg.Passwd = "user1", "password1"
	cfg.Net, cfg.Addr = l.Addr().Network(), l.Addr().String()
	return cfg
}

// openDB opens a database of one connection with cfg.
func openDB(t *testing.T, cfg *gosql.Config) *sql.DB {
	t.Helper()
	connector, err := gosql.NewConnector(cfg)
	if err != nil {
		t.Fatalf("NewConnector failed: %v", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// queryStrings runs query and returns its rows as text, one per line,
// columns separated by commas.
func queryStrings(db *sql.DB, query string) (string, error) {
	rows, err := db.Query(query)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var out strings.Builder
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		for i, v := range vals {
			if i > 0 {
				out.WriteByte(',')
			}
			out.WriteString(v.String)
		}
		out.WriteByte('\n')
	}
	return out.String(), rows.Err()
}

// mysqlError is err as go-sql-driver's MySQL error, nil if it is none.
func mysqlError(err error) *gosql.MySQLError {
	var me *gosql.MySQLError
	if errors.As(err, &me) {
		return me
	}
	return nil
}

// TestConnectionFromListener: a listener on a net.Listener of the
// caller's takes a client (seqd: upstream's TestConnectionWithoutSourceHost,
// the same over NewListener, deleted, is this test now).
func TestConnectionFromListener(t *testing.T) {
	th := &testHandler{}
	// Make sure we can create our own net.Listener for use with the mysql
	// listener
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("net.Listener failed: %v", err)
	}
	l := newTestListener(t, newTestAuthServer(false), th, listener)
	go l.Accept()

	if err := openDB(t, testConfig(l)).Ping(); err != nil {
		t.Errorf("Should be able to connect to server but found error: %v", err)
	}
}

func TestConnectionUnixSocket(t *testing.T) {
	th := &testHandler{}
	sock := filepath.Join(t.TempDir(), "mysql_vitess_test.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("net.Listen failed: %v", err)
	}
	l := newTestListener(t, newTestAuthServer(false), th, ln)
	go l.Accept()

	if err := openDB(t, testConfig(l)).Ping(); err != nil {
		t.Errorf("Should be able to connect to server but found error: %v", err)
	}
}

// TestCachingSha2PasswordUnixSocket: caching_sha2_password's full
// authentication is taken over a Unix socket without TLS (seqd: not
// upstream's; upstream's static server had no way to send a client to
// the full authentication).
func TestCachingSha2PasswordUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "mysql_vitess_test.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("net.Listen failed: %v", err)
	}
	a := &fullAuthServer{newTestAuthServer(true)}
	a.methods = []AuthMethod{NewSha2CachingAuthMethodRSA(a, a, a, nil)}
	l := newTestListener(t, a, &testHandler{}, ln)
	go l.Accept()

	if err := openDB(t, testConfig(l)).Ping(); err != nil {
		t.Errorf("Should be able to connect to server but found error: %v", err)
	}
	cfg := testConfig(l)
	cfg.Passwd = "bad"
	if err := openDB(t, cfg).Ping(); mysqlError(err) == nil || mysqlError(err).Number != ERAccessDeniedError {
		t.Errorf("a wrong password: %v, want 1045", err)
	}
}

// fullAuthServer sends every client to caching_sha2_password's full
// authentication.
type fullAuthServer struct{ *testAuthServer }

func (a *fullAuthServer) UserEntryWithCacheHash([]*x509.Certificate, []byte, string, []byte, net.Addr) (Getter, CacheState, error) {
	return nil, AuthNeedMoreData, nil
}

func TestClientFoundRows(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(false), th, nil)
	go l.Accept()

	// Test without flag.
	if err := openDB(t, testConfig(l)).Ping(); err != nil {
		t.Fatal(err)
	}
	foundRows := th.LastConn().Capabilities & CapabilityClientFoundRows
	if foundRows != 0 {
		t.Errorf("FoundRows flag: %x, second bit must be 0", th.LastConn().Capabilities)
	}

	// Test with flag.
	cfg := testConfig(l)
	cfg.ClientFoundRows = true
	if err := openDB(t, cfg).Ping(); err != nil {
		t.Fatal(err)
	}
	foundRows = th.LastConn().Capabilities & CapabilityClientFoundRows
	if foundRows == 0 {
		t.Errorf("FoundRows flag: %x, second bit must be set", th.LastConn().Capabilities)
	}
}

// TestServer (seqd: over go-sql-driver rather than the mysql command
// line client; without the listener's counters and timings, deleted, and
// the warnings, which go-sql-driver does not report: TestQueries checks
// them).
func TestServer(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(false), th, nil)
	go l.Accept()
	db := openDB(t, testConfig(l))

	// Run an 'error' command.
	th.SetErr(NewSQLError(ERUnknownComError, SSUnknownComError, "forced query error"))
	_, err := queryStrings(db, "error")
	if me := mysqlError(err); me == nil || me.Number != 1047 || string(me.SQLState[:]) != "08S01" ||
		!strings.Contains(me.Message, "forced query error") {
		t.Errorf("Unexpected output for 'error': %v", err)
	}

	// Run a 'panic' command, other side should panic, recover and
	// close the connection.
	if _, err := queryStrings(db, "panic"); err == nil || mysqlError(err) != nil {
		t.Errorf("Unexpected output for 'panic': %v", err)
	}

	// Run a 'select rows' command with results.
	output, err := queryStrings(db, "select rows")
	if err != nil {
		t.Fatalf("select rows failed: %v", err)
	}
	if output != "10,nice name\n20,nicer name\n" {
		t.Errorf("Unexpected output for 'select rows': %q", output)
	}

	// If there's an error after streaming has started,
	// we should get a 2013
	th.SetErr(NewSQLError(ERUnknownComError, SSUnknownComError, "forced error after send"))
	if _, err := queryStrings(db, "error after send"); err == nil || mysqlError(err) != nil {
		t.Errorf("Unexpected output for 'error after send': %v", err)
	}

	// Run an 'insert' command, no rows, but rows affected.
	res, err := db.Exec("insert")
	if err != nil {
		t.Fatalf("insert failed: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 123 {
		t.Errorf("Unexpected rows affected for 'insert': %d", n)
	}
	if id, _ := res.LastInsertId(); id != 123456789 {
		t.Errorf("Unexpected insert id for 'insert': %d", id)
	}

	// Run a 'schema echo' command, to make sure db name is right.
	cfg := testConfig(l)
	cfg.DBName = "XXXfancyXXX"
	output, err = queryStrings(openDB(t, cfg), "schema echo")
	if err != nil || output != "XXXfancyXXX\n" {
		t.Errorf("Unexpected output for 'schema echo': %q %v", output, err)
	}

	// Sanity check: make sure this didn't go through SSL
	output, err = queryStrings(db, "ssl echo")
	if err != nil || output != "OFF\n" {
		t.Errorf("Unexpected output for 'ssl echo': %q %v", output, err)
	}

	// UserData check: checks the server user data is correct.
	output, err = queryStrings(db, "userData echo")
	if err != nil || output != "user1,userData1\n" {
		t.Errorf("Unexpected output for 'userData echo': %q %v", output, err)
	}

	// Permissions check: check a bad password is rejected.
	cfg = testConfig(l)
	cfg.Passwd = "bad"
	err = openDB(t, cfg).Ping()
	if me := mysqlError(err); me == nil || me.Number != 1045 || string(me.SQLState[:]) != "28000" ||
		!strings.Contains(me.Message, "Access denied") {
		t.Errorf("Unexpected output for invalid password: %v", err)
	}

	// Permissions check: check an unknown user is rejected.
	cfg = testConfig(l)
	cfg.User = "user2"
	err = openDB(t, cfg).Ping()
	if me := mysqlError(err); me == nil || me.Number != 1045 || string(me.SQLState[:]) != "28000" ||
		!strings.Contains(me.Message, "Access denied") {
		t.Errorf("Unexpected output for invalid password: %v", err)
	}
}

// testCerts makes a CA, a server certificate for server.example.com
// and a client certificate in a temporary directory (seqd: upstream's
// tests did it inline).
func testCerts(t *testing.T) string {
	root := t.TempDir()
	tlstest.CreateCA(root)
	tlstest.CreateSignedCert(root, tlstest.CA, "01", "server", "server.example.com")
	tlstest.CreateSignedCert(root, tlstest.CA, "02", "client", "Client Cert")
	return root
}

// clientTLS is the client's TLS configuration with the certificate
// name-cert.pem (seqd: upstream's client made it from its ConnParams).
func clientTLS(t *testing.T, root, name string) *tls.Config {
	config, err := vttls.ClientConfig(vttls.VerifyIdentity, path.Join(root, name+"-cert.pem"), path.Join(root, name+"-key.pem"),
		path.Join(root, "ca-cert.pem"), "", "server.example.com", tls.VersionTLS12)
	if err != nil {
		t.Fatalf("TLSClientConfig failed: %v", err)
	}
	return config
}

// TestTLSServer creates a Server with TLS support, then connects to it
// (seqd: without the counts of connections by TLS version, deleted).
func TestTLSServer(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(false), th, nil)
	root := testCerts(t)

	// Create the server with TLS config.
	serverConfig, err := vttls.ServerConfig(
		path.Join(root, "server-cert.pem"),
		path.Join(root, "server-key.pem"),
		path.Join(root, "ca-cert.pem"),
		"",
		"",
		tls.VersionTLS13)
	if err != nil {
		t.Fatalf("TLSServerConfig failed: %v", err)
	}
	l.TLSConfig = serverConfig
	go l.Accept()

	cfg := testConfig(l)
	cfg.TLS = clientTLS(t, root, "client")
	db := openDB(t, cfg)

	// Run a 'select rows' command with results.
	output, err := queryStrings(db, "select rows")
	if err != nil {
		t.Fatalf("mysql fetch failed: %v", err)
	}
	if output != "10,nice name\n20,nicer name\n" {
		t.Errorf("Unexpected output for 'select rows': %v", output)
	}

	// make sure this went through SSL
	output, err = queryStrings(db, "ssl echo")
	if err != nil || output != "ON\n" {
		t.Errorf("Unexpected output for 'ssl echo': %q %v", output, err)
	}
}

// TestTLSRequired creates a Server with TLS required, then tests that an
// insecure mysql client is rejected (seqd: with 1045, item 8 of the
// README).
func TestTLSRequired(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(false), th, nil)
	root := testCerts(t)
	tlstest.CreateSignedCert(root, tlstest.CA, "03", "revoked-client", "Revoked Client Cert")
	tlstest.RevokeCertAndRegenerateCRL(root, tlstest.CA, "revoked-client")

	// Create the server with TLS config.
	serverConfig, err := vttls.ServerConfig(
		path.Join(root, "server-cert.pem"),
		path.Join(root, "server-key.pem"),
		path.Join(root, "ca-cert.pem"),
		path.Join(root, "ca-crl.pem"),
		"",
		tls.VersionTLS13)
	if err != nil {
		t.Fatalf("TLSServerConfig failed: %v", err)
	}
	l.TLSConfig = serverConfig
	l.RequireSecureTransport = true
	go l.Accept()

	// Setup conn params without SSL.
	err = openDB(t, testConfig(l)).Ping()
	if me := mysqlError(err); me == nil || me.Number != ERAccessDeniedError {
		t.Fatalf("mysql should have failed with 1045: %v", err)
	}

	// setup conn params with TLS
	cfg := testConfig(l)
	cfg.TLS = clientTLS(t, root, "client")
	if err := openDB(t, cfg).Ping(); err != nil {
		t.Fatalf("mysql failed: %v", err)
	}

	cfg = testConfig(l)
	cfg.TLS = clientTLS(t, root, "revoked-client")
	err = openDB(t, cfg).Ping()
	if err == nil {
		t.Fatalf("mysql should have failed with revoked certificate.")
	}
}

func TestCachingSha2PasswordAuthWithTLS(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(true), th, nil)
	root := testCerts(t)
	// Create the server with TLS config.
	serverConfig, err := vttls.ServerConfig(
		path.Join(root, "server-cert.pem"),
		path.Join(root, "server-key.pem"),
		path.Join(root, "ca-cert.pem"),
		"",
		"",
		tls.VersionTLS12)
	if err != nil {
		t.Fatalf("TLSServerConfig failed: %v", err)
	}
	l.TLSConfig = serverConfig
	go l.Accept()

	cfg := testConfig(l)
	cfg.TLS = clientTLS(t, root, "client")
	// Run a 'select rows' command with results.
	output, err := queryStrings(openDB(t, cfg), "select rows")
	if err != nil {
		t.Fatalf("select rows failed: %v", err)
	}
	if output != "10,nice name\n20,nicer name\n" {
		t.Errorf("Unexpected output for 'select rows': %q", output)
	}
}

func TestCachingSha2PasswordAuthWithoutTLS(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(true), th, nil)
	go l.Accept()

	// Connection should fail, as server requires SSL for caching_sha2_password.
	err := openDB(t, testConfig(l)).Ping()
	if err == nil || !strings.Contains(err.Error(), "No authentication methods available for authentication") {
		t.Fatalf("unexpected connection error: %v", err)
	}
}

// TestErrorCodes: a Handler's SQLError reaches the client with its
// number, SQL state and message (seqd: upstream's cases were errors of
// Vitess's mapped by NewSQLErrorFromError, deleted; the SQLErrors
// they became are sent as they are, and an error that is no SQLError is
// 1105).
func TestErrorCodes(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(false), th, nil)
	go l.Accept()
	db := openDB(t, testConfig(l))

	tests := []struct {
		err      error
		code     int
		sqlState string
		text     string
	}{
		{NewSQLError(ERUnknownError, SSUnknownSQLState, "invalid argument"), ERUnknownError, SSUnknownSQLState, "invalid argument"},
		{NewSQLError(1062, "23000", "invalid argument with errno"), 1062, "23000", "invalid argument with errno"},
		{NewSQLError(ERQueryInterrupted, SSUnknownSQLState, "connection deadline exceeded"), ERQueryInterrupted, SSUnknownSQLState, "deadline exceeded"},
		{NewSQLError(ERTooManyUserConnections, SSUnknownSQLState, "query pool timeout"), ERTooManyUserConnections, SSUnknownSQLState, "query pool timeout"},
		{errors.New("resource exhausted"), ERUnknownError, SSUnknownSQLState, "unknown error: resource exhausted"},
	}

	for _, test := range tests {
		th.SetErr(test.err)
		_, err := queryStrings(db, "error")
		me := mysqlError(err)
		if me == nil {
			t.Fatalf("mysql should have returned a MySQL error: %v", err)
		}
		if int(me.Number) != test.code {
			t.Errorf("error in %s: want code %v got %v", test.text, test.code, me.Number)
		}
		if string(me.SQLState[:]) != test.sqlState {
			t.Errorf("error in %s: want sqlState %v got %s", test.text, test.sqlState, me.SQLState[:])
		}
		if !strings.Contains(me.Message, test.text) {
			t.Errorf("error in %s: got %v", test.text, me.Message)
		}
	}
}

func TestListenerShutdown(t *testing.T) {
	th := &testHandler{}
	l := newTestListener(t, newTestAuthServer(false), th, nil)
	go l.Accept()

	ctx := context.Background()
	conn, err := openDB(t, testConfig(l)).Conn(ctx)
	if err != nil {
		t.Fatalf("Can't connect to listener: %v", err)
	}
	defer conn.Close()

	if err := conn.PingContext(ctx); err != nil {
		t.Fatalf("Ping failed: %v", err)
	}

	l.Shutdown()

	err = conn.PingContext(ctx)
	if err == nil {
		t.Fatalf("Ping should fail after shutdown")
	}
	me := mysqlError(err)
	if me == nil {
		t.Fatalf("Wrong error type: %T", err)
	}
	if int(me.Number) != ERServerShutdown {
		t.Fatalf("Unexpected sql error code: %d", me.Number)
	}
	if string(me.SQLState[:]) != SSServerShutdown {
		t.Fatalf("Unexpected error sql state: %s", me.SQLState[:])
	}
	if me.Message != "Server shutdown in progress" {
		t.Fatalf("Unexpected error message: %s", me.Message)
	}
}

func TestParseConnAttrs(t *testing.T) {
	expected := map[string]string{
		"_client_version": "8.0.11",
		"program_name":    "mysql",
		"_pid":            "22850",
		"_platform":       "x86_64",
		"_os":             "linux-glibc2.12",
		"_client_name":    "libmysql",
	}

	data := []byte{0x70, 0x04, 0x5f, 0x70, 0x69, 0x64, 0x05, 0x32, 0x32, 0x38, 0x35, 0x30, 0x09, 0x5f, 0x70, 0x6c,
		0x61, 0x74, 0x66, 0x6f, 0x72, 0x6d, 0x06, 0x78, 0x38, 0x36, 0x5f, 0x36, 0x34, 0x03, 0x5f, 0x6f,
		0x73, 0x0f, 0x6c, 0x69, 0x6e, 0x75, 0x78, 0x2d, 0x67, 0x6c, 0x69, 0x62, 0x63, 0x32, 0x2e, 0x31,
		0x32, 0x0c, 0x5f, 0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x5f, 0x6e, 0x61, 0x6d, 0x65, 0x08, 0x6c,
		0x69, 0x62, 0x6d, 0x79, 0x73, 0x71, 0x6c, 0x0f, 0x5f, 0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x5f,
		0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x06, 0x38, 0x2e, 0x30, 0x2e, 0x31, 0x31, 0x0c, 0x70,
		0x72, 0x6f, 0x67, 0x72, 0x61, 0x6d, 0x5f, 0x6e, 0x61, 0x6d, 0x65, 0x05, 0x6d, 0x79, 0x73, 0x71, 0x6c}

	attrs, pos, err := parseConnAttrs(data, 0)
	if err != nil {
		t.Fatalf("Failed to read connection attributes: %v", err)
	}
	if pos != 113 {
		t.Fatalf("Unexpeded pos after reading connection attributes: %d instead of 113", pos)
	}
	for k, v := range expected {
		if val, ok := attrs[k]; ok {
			if val != v {
				t.Fatalf("Unexpected value found in attrs for key %s: got %s expected %s", k, val, v)
			}
		} else {
			t.Fatalf("Error reading key %s from connection attributes: attrs: %-v", k, attrs)
		}
	}
}
