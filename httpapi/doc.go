// Package httpapi is seqd's HTTP/JSON front end (-api-listen): callers
// without a database driver (serverless functions, shell scripts,
// services in languages without a good PostgreSQL driver) take values
// and ranges of a sequence, read its definition and position, and create,
// alter and drop sequences over plain HTTP.
//
// It is a front end in package frontend's sense: every request runs, as
// the role it authenticated as, statements of the shared executor (so
// privileges, limits, statement_timeout, pg_stat_activity and the
// engine's guarantees are the SQL front ends'), from a pool of sessions
// per role that package apicore keeps for both driverless APIs. Go's net/http serves it (HTTP/1.1 with keep-alive): nothing
// here is a protocol of its own.
//
// Every integer in a request or a response is a decimal string, as JSON
// numbers lose precision past 2^53. An error is an RFC 9457 problem
// (application/problem+json) carrying the SQLSTATE the SQL front ends
// give, with an HTTP status a caller can act on: 400 for a bad request,
// 401 without valid credentials, 403 without the privilege, 404 for a
// sequence or schema that does not exist, 409 for a conflict (a name
// taken, a sequence at its limit, a lock or a deadlock), 413 for a body
// too large, 429 when the server's connections are all in use and 503
// with Retry-After on a standby, a deposed leader or a server shutting
// down. The API's OpenAPI 3.1 document (openapi.json) is served at
// /v1/openapi.json.
package httpapi
