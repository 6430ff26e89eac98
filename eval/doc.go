// Package eval compiles and evaluates the queries a session runs:
// PostgreSQL parse trees of SELECT (with FROM, joins, WHERE, GROUP BY and
// aggregates, ORDER BY, LIMIT, DISTINCT, set operations, VALUES and WITH)
// and of expressions, over PostgreSQL's types (types.go, casts.go,
// operators.go) and its built-in functions (funcs.go). It needs no
// sequence, session or wire protocol: those sit around it.
//
// The evaluator reaches the session it runs for only through Session
// (session.go): who and where it is, relation lookup, regclass input and
// output, and its limits. What needs more registers into the evaluator
// from the package that knows it, as funcs.go registers its own
// functions:
//
//   - Define adds a function signature; its body gets the Env, whose
//     Session the registering package converts back to its own type.
//   - DefineCompiled adds a function that compiles its own calls (the
//     sequence functions: nextval('s') resolves 's' when compiled); its
//     expression may be a RowExpr (a row of columns, in FROM or as select
//     list columns) or a SeriesExpr (many values at once over
//     generate_series).
//   - Relations come from Session.Relation: the catalog's virtual
//     relations and sequences are the session package's.
//   - A session that keeps expressions' warnings implements Warner:
//     the functions of MariaDB's meaning the MySQL front end calls
//     (mariadb.go) report a division by zero or a truncated CAST there,
//     typed (Warning), never as text.
//
// A Compiler is one statement's compilation; a Query is a compiled SELECT,
// run as often as its statement is executed, yielding Rows. Every
// statement's memory is charged to one budget and every long loop checks
// its context (budget.go). Errors carry a kind (package sqlerr), never a
// protocol's code. Nothing here is safe for concurrent use but the types
// and the function registry, which are read-only once the program runs.
package eval
