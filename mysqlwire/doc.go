// Package mysqlwire is seqd's MySQL front end (-mysql-listen): MariaDB,
// TiDB and MySQL applications reach the same sequences through their own
// drivers. It is a front end in package frontend's sense: the executor
// runs every statement; this package speaks the protocol, authenticates,
// translates MySQL's statements and maps error kinds to MySQL's codes in
// one table (errors.go).
//
// The protocol is github.com/dolthub/vitess/go/mysql, Vitess's MySQL
// server (handshake, auth plugins, COM_QUERY with multi-statements, the
// binary protocol, TLS), as Dolt maintains it. It was chosen over
// go-mysql-org/go-mysql's server because its authentication takes
// verifiers: a hash check for mysql_native_password and a password check
// for caching_sha2_password's full authentication, where go-mysql's
// server wants each user's password itself, which seqd never keeps; and
// over vitess.io/vitess itself, whose releases do not build with this Go.
// seqd builds on a fork of that one package, internal/vitess/mysql, whose
// README lists each change from upstream.
//
// Statements are parsed with TiDB's parser (MySQL's grammar, with
// CREATE/ALTER/DROP SEQUENCE and NEXT VALUE FOR); dialect.go says how
// they reach the executor. A MySQL database is a seqd schema.
//
// Authentication (Config.Auth, auth.go): mysql_native_password against
// the hash each role keeps beside its SCRAM verifier (auth.CheckNative),
// and caching_sha2_password: the full authentication (over TLS, or the
// password encrypted) against the SCRAM verifier, after which the fast
// path checks against SHA256(SHA256(password)) kept in memory only, as
// MySQL's server does. A role that does not exist or may not log in, has
// no password or no mysql_native_password hash, fails exactly as a wrong
// password does (the log says which).
//
// Connections are accepted through frontend.Listener (listener.go): they
// count in the budget every front end shares from accept, the oldest
// unauthenticated one gives its place when it is full (else 1040 in place
// of the handshake), and one not authenticated within AuthTimeout is
// closed. A connection's session is registered (its ID, the places the
// Registry counts, KILL) only once it authenticated; the ID its handshake
// announces is reserved then (frontend.Registry.ReserveID) and becomes
// its session's, CONNECTION_ID(). What a
// client sends is bounded: a packet by MaxMessage (max_allowed_packet,
// 1153), before authentication by mysql.MaxHandshakePacket (16 KiB,
// 1043), long data per parameter and per statement, prepared statements
// per server in count and per connection in memory (prepare.go).
//
// Prepared statements (COM_STMT_PREPARE/EXECUTE, the binary protocol):
// compiled once with their ? markers as the executor's parameters,
// parsed with the same grammar as a query (the fork hands the statement
// to prepare to ComPrepare unparsed; upstream's listener parsed it first
// with Dolt's grammar, which refuses sequence DDL and MariaDB's forms). A statement answered here that changes something (SET, USE,
// KILL, RENAME TABLE) acts when executed, not when prepared.
//
// KILL [QUERY | CONNECTION] n cancels a statement of, or ends, one of
// this front end's connections: a role's own, or any for a superuser.
//
// SHOW TABLES and information_schema list a role the sequences it holds
// a privilege on or owns (catalog.MySQL's views, which the executor
// resolves for the trees built here: build_show.go), as MariaDB's list a
// user's. SHOW CREATE TABLE, DESCRIBE and SHOW TABLE STATUS show a
// sequence as MariaDB shows it as a table (build_show.go); LOCK TABLES,
// UNLOCK TABLES, FLUSH TABLES and savepoints, which mariadb-dump sends,
// check and commit as MariaDB's do and take no lock (locks.go): no value
// waits on a client.
//
// In cluster mode only the leader serves: a standby refuses connections
// in place of the handshake (1053, 08S01), which MySQL's drivers take
// as a host that is down, moving on to the next host they list (they
// have no target_session_attrs).
package mysqlwire
