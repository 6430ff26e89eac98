package apicore

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

// The calls' operations: each is one typed operation of the call's
// session (executor's seqops.go), which runs it as the SQL statement it
// stands for runs (checks, statement_timeout, pg_stat_activity), and
// aborts the session's block on failure.

// Next takes count values of the sequence schema.name.
func (q *Call) Next(schema, name string, count int64) ([]int64, error) {
	return q.NextInto(nil, schema, name, count)
}

// NextInto is Next appending the values to dst.
func (q *Call) NextInto(dst []int64, schema, name string, count int64) ([]int64, error) {
	if limit := q.core.MaxCount(); count < 1 || count > limit {
		return nil, BadRequest(fmt.Sprintf("count must be between 1 and %d (reserve takes a range of any size)", limit))
	}
	if count == 1 { // nextval's own path, not a range's
		v, err := q.sess.Nextval(q.ctx, schema, name)
		if err != nil {
			return nil, err
		}
		return append(dst, v), nil
	}
	return q.sess.NextvalN(q.ctx, slices.Grow(dst, int(count)), schema, name, count)
}

// Range is a reserved range, as seqd_reserve gives it: the values from
// First to Last by Increment, or for a shaped (NOORDER) sequence the
// counters First to Last mapped to values by Shape ("" for an ordered
// sequence: seqd_reserve's NULL).
type Range struct {
	First, Last, Increment int64
	Shape                  string
}

// Reserve reserves count values of the sequence as one range: count
// from 1 to MaxBulkRows.
func (q *Call) Reserve(schema, name string, count int64) (Range, error) {
	if limit := q.core.cfg.MaxBulkRows; count < 1 || count > limit {
		return Range{}, BadRequest(fmt.Sprintf("count must be between 1 and %d, not %d", limit, count))
	}
	r, err := q.sess.Reserve(q.ctx, schema, name, count)
	if err != nil {
		return Range{}, err
	}
	rg := Range{First: r.First, Last: r.Last, Increment: r.Increment}
	if r.Shape.Shaped() {
		rg.Shape = r.Shape.String()
	}
	return rg, nil
}

// Release gives back the unused tail first..last of a reserved range, as
// seqd_release: true when it was the tail of what the sequence handed
// out last (the next caller gets first again), false when anything came
// between (the values stay burned). Bounds that run against the
// sequence's increment (first > last for an ascending sequence, first <
// last for a descending one) are no range it handed out: 22023.
func (q *Call) Release(schema, name string, first, last int64) (bool, error) {
	r, err := q.sess.ReleaseRange(q.ctx, schema, name, first, last)
	if err != nil {
		return false, err
	}
	if r.Released || first == last {
		return r.Released, nil
	}
	// Not given back: say why when the bounds themselves are wrong
	// (seqd_release gives nothing back for such bounds).
	if inc := r.Increment; inc > 0 && first > last || inc < 0 && first < last {
		dir := "up"
		if inc < 0 {
			dir = "down"
		}
		return false, BadRequest(fmt.Sprintf("first (%d) and last (%d) run against the sequence's increment (%d): a range of it runs from first %s to last", first, last, inc, dir))
	}
	return false, nil
}

// Describe is the sequence's definition and position, as pg_sequences
// shows them (42P01 for a relation that is not a sequence).
func (q *Call) Describe(schema, name string) (executor.Description, error) {
	return q.sess.Describe(q.ctx, schema, name)
}

// CreateSequence makes the sequence with the options (42P07 if its name
// is taken).
func (q *Call) CreateSequence(schema, name string, o executor.SequenceOptions) error {
	return q.sess.CreateSequence(q.ctx, schema, name, o)
}

// AlterSequence changes the sequence's options.
func (q *Call) AlterSequence(schema, name string, o executor.SequenceOptions) error {
	return q.sess.AlterSequence(q.ctx, schema, name, o)
}

// DropSequence drops the sequence.
func (q *Call) DropSequence(schema, name string) error {
	return q.sess.DropSequence(q.ctx, schema, name)
}

// Begin, Commit and Rollback are the call's session's transaction block
// (a call that ends with one open closes its session: End).
func (q *Call) Begin() error {
	_, err := q.sess.Begin(q.ctx, nil)
	return err
}

// Commit ends the call's block, committing it.
func (q *Call) Commit() error {
	_, err := q.sess.Commit(q.ctx)
	return err
}

// Rollback ends the call's block, rolling it back.
func (q *Call) Rollback() error {
	_, err := q.sess.Rollback(q.ctx)
	return err
}

// CreateToken makes a bearer token of the call's role, valid for days,
// labelled label ("": none): shown this once.
func (q *Call) CreateToken(label string, days int64) (string, error) {
	return q.sess.CreateToken(q.ctx, label, days)
}

// Tokens are the tokens the call's role may see (its own; a superuser's:
// every role's), or the one of ID id ("": every one), oldest first.
func (q *Call) Tokens(id string) ([]executor.Token, error) {
	return q.sess.Tokens(q.ctx, id)
}

// RevokeToken revokes the token of ID id: false when the role (a
// superuser: any role) holds none of that ID.
func (q *Call) RevokeToken(id string) (bool, error) {
	return q.sess.RevokeToken(q.ctx, id)
}

// ValidName refuses a name no statement can hold: not UTF-8, or with a
// NUL byte, as PostgreSQL refuses such bytes in any text (22021).
func ValidName(n string) error {
	if !utf8.ValidString(n) || strings.IndexByte(n, 0) >= 0 {
		return NewError(sqlerr.CharacterNotInRepertoire, fmt.Sprintf("invalid byte sequence for encoding \"UTF8\" in name %q", n))
	}
	return nil
}

// CheckName refuses a sequence's schema or name (the request's field
// field) that names no sequence as given: empty (22023), not valid text
// (ValidName: 22021), or longer than an identifier may be (42622:
// PostgreSQL would cut it to its first 63 bytes and name another
// sequence).
func CheckName(field, n string) error {
	switch {
	case n == "":
		return BadRequest(field + " is empty")
	case ValidName(n) != nil:
		return NewError(sqlerr.CharacterNotInRepertoire, fmt.Sprintf("%s: invalid byte sequence for encoding \"UTF8\" in %q", field, n))
	case len(n) > executor.MaxIdentifierLength:
		return NewError(sqlerr.NameTooLong, fmt.Sprintf("%s is %d bytes long: at most %d", field, len(n), executor.MaxIdentifierLength))
	}
	return nil
}
