// A connection's prepared statements and portals, and their bounds.

package pgwire

import (
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// The extended protocol's named statements (Parse) and named portals
// (Bind) live until the client closes them, so one login could grow its
// connection's memory without end, a name at a time. They are bounded
// twice, per connection, as mysqlwire bounds MySQL's prepared statements:
//
//  1. At most Config.MaxPrepared named statements and portals together.
//     A Parse or Bind that would make one more fails with 54000 and
//     creates nothing. It is an error like any other (what follows is
//     skipped until Sync; a transaction block fails, as PostgreSQL's
//     does at any error); the connection, its session and its other
//     statements and portals go on.
//  2. At most Config.MaxPreparedMemory bytes held by them, as estimated
//     by statementCost and portalCost, plus their names' lengths; past
//     it, as past 1. Both are
//     54000 (program_limit_exceeded), not 53200: a bound the client's
//     own statements met, which no retry lifts until it closes some,
//     where class 53 says the server is short and may be retried.
//  3. c.preparedBytes is the sum of the costs of the named objects in
//     c.stmts and c.portals, and the count is read from the maps: every
//     change to them goes through keepStatement, dropStatement,
//     dropStatements, keepPortal and dropPortal, so that Close,
//     DEALLOCATE, DEALLOCATE ALL, DISCARD ALL and binding a portal again
//     give back exactly what they free.
//  4. The unnamed statement and the unnamed portal count in neither
//     bound: each is one place, replaced by every Parse or Bind of its
//     own, and bounded as a simple Query is, by the message it came in
//     (MaxMessage). So a connection at the bounds still runs
//     statements, its named ones included, through the unnamed portal,
//     and DEALLOCATE through the unnamed statement.
const (
	// DefaultMaxPrepared is Config.MaxPrepared's default: mysqlwire's
	// (MariaDB's max_prepared_stmt_count), 32 times the 512 statements
	// pgx caches per connection, where drivers that prepare on their
	// own (JDBC, npgsql, psycopg 3) keep fewer.
	DefaultMaxPrepared = 16382
	// DefaultMaxPreparedMemory is Config.MaxPreparedMemory's default:
	// room for pgx's 512 statements at 128 KiB estimated each (a 1 KB
	// statement of 30 parameters is estimated at 17 KB, a 7 KB IN list
	// of 1,500 constants at 160 KB), or for 16382 at 4 KiB (nextval's
	// is under 1 KiB). The estimates overstate most statements, so the
	// memory held is at most about as much.
	DefaultMaxPreparedMemory = 64 << 20
)

// prepared is a parsed and compiled statement of the extended protocol.
type prepared struct {
	p    *executor.Prepared // nil for an empty query
	text string             // the query, for the log of a failure
	// cost is its estimated memory (statementCost), measured when it is
	// named, or when a named portal is bound from it (costOf) from st,
	// its parse tree, until then (nil for an empty query, or once
	// measured).
	cost int64
	st   *pgsql.Statement
}

// costOf is ps's cost, measured now if it was not yet (the unnamed
// statement's).
func (ps *prepared) costOf() int64 {
	if ps.cost == 0 {
		ps.cost = statementCost(ps.text, ps.st, ps.p)
		ps.st = nil
	}
	return ps.cost
}

// portal is a bound statement, possibly suspended by an Execute row limit.
type portal struct {
	p       *executor.Prepared
	params  []eval.Datum
	formats []int16          // result formats, as Bind gave them
	res     *executor.Result // set once executed; rows may remain
	text    string           // its statement's query, for the log of a failure
	cost    int64            // its estimated memory (portalCost)
}

// statementCost estimates the memory a prepared statement holds: its
// text, the executor's plan p at 8 bytes per byte of its parse tree's
// protobuf encoding (st is nil for an empty query) and 8 per parameter
// type, and 512 for the rest. The plan's share is the most measured
// (constants); other statements hold less. Measured (what Close freed,
// with the text the parse cache may also hold: estimated): select 1,
// 0.7 KB: 0.7 KB; 1 KB of 30 parameters 3.5 KB: 17 KB; an IN list of
// 16,000 constants (85 KB) 1.7 MB: 1.8 MB; 50,000 result columns
// (0.6 MB) 7.7 MB: 12.5 MB; 5,000 parameters (69 KB) 0.3 MB: 2.7 MB; a
// 100 KB literal 0.2 MB: 0.9 MB.
func statementCost(text string, st *pgsql.Statement, p *executor.Prepared) int64 {
	cost := int64(len(text)) + 512
	if st != nil {
		cost += 8 * int64(proto.Size(st.Node))
	}
	if p != nil {
		cost += 8 * int64(len(p.ParamTypes))
	}
	return cost
}

// portalCost estimates the memory a portal bound from ps holds: its
// statement's (whose plan it keeps alive after the statement is closed),
// its parameters' values (datumCost) and result formats, and 256 for the
// rest. Measured (what Close freed: estimated, the statement's share
// left out): no parameters 0.1 KB: 0.3 KB; an array of 100,000 bigints
// 7.2 MB: 7.2 MB; of 100,000 one-letter texts 7.4 MB: 7.3 MB; a text of
// 100 KB 107 KB: 113 KB.
func portalCost(ps *prepared, params []eval.Datum, formats []int16) int64 {
	cost := ps.costOf() + 2*int64(len(formats)) + 256
	for i := range params {
		cost += datumCost(&params[i])
	}
	return cost
}

// datumCost is the memory a value holds: the Datum, its text (an eighth
// more, for the allocator's rounding) and its elements, with the room
// its array has for more.
func datumCost(d *eval.Datum) int64 {
	size := int64(unsafe.Sizeof(*d))
	cost := size + int64(len(d.S)+len(d.S)/8) + size*int64(cap(d.A)-len(d.A))
	for i := range d.A {
		cost += datumCost(&d.A[i])
	}
	return cost
}

// named reports whether an object of this name counts in the bounds
// (4: the unnamed ones do not).
func named(name string) bool { return name != "" }

// roomFor is the error a Parse or Bind fails with when keeping a named
// object of cost bytes would take the connection past a bound (1, 2);
// replaces is the portal of that name it takes the place of (a portal
// bound again), nil if none. Nil when it fits.
func (c *conn) roomFor(name string, cost int64, replaces *portal) error {
	if !named(name) {
		return nil
	}
	var freed int64
	if replaces != nil {
		freed = replaces.cost
	}
	if max := c.srv.cfg.MaxPrepared; max > 0 && replaces == nil && c.namedObjects() >= max {
		return sqlerr.Errorf(sqlerr.ProgramLimitExceeded, "this connection already holds %d prepared statements and portals, the most it may; close some (Close, DEALLOCATE) first", max)
	}
	if max := c.srv.cfg.MaxPreparedMemory; max > 0 && c.preparedBytes-freed+cost > max {
		return sqlerr.Errorf(sqlerr.ProgramLimitExceeded, "this connection's prepared statements and portals would hold more than %d bytes, the most they may; close some (Close, DEALLOCATE) first", max)
	}
	return nil
}

// namedObjects is how many named statements and portals c holds.
func (c *conn) namedObjects() int {
	n := len(c.stmts) + len(c.portals)
	if _, ok := c.stmts[""]; ok {
		n--
	}
	if _, ok := c.portals[""]; ok {
		n--
	}
	return n
}

// keepStatement makes ps the statement of its name: a new one (Parse
// refuses a name in use) or the unnamed one, in place of the last.
func (c *conn) keepStatement(name string, ps *prepared) {
	c.dropStatement(name) // the unnamed statement it replaces
	c.stmts[name] = ps
	if named(name) {
		c.preparedBytes += ps.cost
	}
}

// dropStatement forgets the statement of that name, if any (Close,
// DEALLOCATE); portals bound from it remain.
func (c *conn) dropStatement(name string) {
	if ps, ok := c.stmts[name]; ok {
		delete(c.stmts, name)
		if named(name) {
			c.preparedBytes -= ps.cost
		}
	}
}

// dropStatements forgets every statement (DEALLOCATE ALL, DISCARD ALL).
func (c *conn) dropStatements() {
	for name := range c.stmts {
		c.dropStatement(name)
	}
}

// keepPortal binds the portal of name to what pt says, in place of the
// one of that name, whose result is released; the unnamed portal's
// object is reused (a one-row result's memory goes to the statement's
// next execution).
func (c *conn) keepPortal(name string, pt portal) {
	old := c.portals[name]
	if old != nil {
		c.sess.Release(old.res)
		if named(name) {
			c.preparedBytes -= old.cost
		}
	}
	if old == nil || named(name) {
		// A named portal is a new object each time; the unnamed one,
		// rebound on every request of most drivers, is reused.
		old = &portal{}
		c.portals[name] = old
	}
	*old = pt
	if named(name) {
		c.preparedBytes += pt.cost
	}
}

// dropPortal closes the portal of that name, if any, releasing its
// result.
func (c *conn) dropPortal(name string) {
	if pt := c.portals[name]; pt != nil {
		c.sess.Release(pt.res)
		delete(c.portals, name)
		if named(name) {
			c.preparedBytes -= pt.cost
		}
	}
}
