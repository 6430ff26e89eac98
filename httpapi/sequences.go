package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/executor"
)

// The sequences' endpoints: each one call of the request's session
// (apicore.Call), its numbers and names as given.

// nextval takes count values (1 by default): {"values": [...]}.
func (s *Server) nextval(q *request) (int, any, error) {
	if err := q.only("count"); err != nil {
		return 0, nil, err
	}
	count, err := q.integer("count", 1)
	if err != nil {
		return 0, nil, err
	}
	if count > 1 {
		// Room for the answer, given back once it is written (handle).
		// (A count past MaxValues is refused by NextInto.)
		if q.release, err = roomFor(q.http.Context(), min(count, apicore.MaxValues)*bytesPerValue); err != nil {
			return 0, nil, err
		}
	}
	values, err := q.NextInto(q.one[:0], q.schema, q.name, count)
	if err != nil {
		return 0, nil, err
	}
	q.taken = values
	return http.StatusOK, &q.taken, nil
}

// reserve reserves count values as a range seqd_reserve gives:
// {"first", "last", "increment", "shape"}.
func (s *Server) reserve(q *request) (int, any, error) {
	if err := q.only("count"); err != nil {
		return 0, nil, err
	}
	count, err := q.integer("count", 1)
	if err != nil {
		return 0, nil, err
	}
	r, err := q.Reserve(q.schema, q.name, count)
	if err != nil {
		return 0, nil, err
	}
	var shape any // null: an ordered sequence's range
	if r.Shape != "" {
		shape = r.Shape
	}
	return http.StatusOK, map[string]any{"first": strconv.FormatInt(r.First, 10), "last": strconv.FormatInt(r.Last, 10),
		"increment": strconv.FormatInt(r.Increment, 10), "shape": shape}, nil
}

// release gives back the unused tail of a reserved range, as
// seqd_release: {"released": true} when it was the tail of what the
// sequence handed out last (the next caller gets first again), false
// when anything came between (the values stay burned).
func (s *Server) release(q *request) (int, any, error) {
	if err := q.only("first", "last"); err != nil {
		return 0, nil, err
	}
	first, err := q.integer("first", 0)
	if err != nil {
		return 0, nil, err
	}
	last, err := q.integer("last", 0)
	if err != nil {
		return 0, nil, err
	}
	if _, ok := q.body["first"]; !ok {
		return 0, nil, badRequest("release needs first and last")
	}
	if _, ok := q.body["last"]; !ok {
		return 0, nil, badRequest("release needs first and last")
	}
	released, err := q.Release(q.schema, q.name, first, last)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"released": released}, nil
}

// describe is the sequence's definition and position, as pg_sequences
// shows them.
func (s *Server) describe(q *request) (int, any, error) {
	d, err := q.Describe(q.schema, q.name)
	if err != nil {
		return 0, nil, err
	}
	var last any // null: not called yet
	if d.Called {
		last = strconv.FormatInt(d.LastValue, 10)
	}
	return http.StatusOK, map[string]any{"schema": q.schema, "name": q.name, "type": d.Type, "start": strconv.FormatInt(d.Start, 10),
		"minvalue": strconv.FormatInt(d.Min, 10), "maxvalue": strconv.FormatInt(d.Max, 10), "increment": strconv.FormatInt(d.Increment, 10),
		"cycle": d.Cycle, "cache": strconv.FormatInt(d.Cache, 10), "last_value": last, "owner": d.Owner}, nil
}

// options are CREATE and ALTER SEQUENCE's options from the body: each
// value checked (an integer, a type of the three, a boolean).
func (q *request) options(alter bool) (executor.SequenceOptions, bool, error) {
	var o executor.SequenceOptions
	known := map[string]bool{"type": true, "start": true, "increment": true, "minvalue": true, "maxvalue": true, "cache": true, "cycle": true, "restart": alter}
	for k := range q.body {
		if !known[k] {
			return o, false, badRequest(fmt.Sprintf("unknown option %q", k))
		}
	}
	if raw, ok := q.body["type"]; ok {
		var t string
		if json.Unmarshal(raw, &t) != nil || t != "smallint" && t != "integer" && t != "bigint" {
			return o, false, badRequest("type must be smallint, integer or bigint")
		}
		o.Type = t
	}
	for _, f := range []struct {
		field string
		v     **int64
	}{{"increment", &o.Increment}, {"minvalue", &o.Min}, {"maxvalue", &o.Max}, {"start", &o.Start}, {"restart", &o.Restart}, {"cache", &o.Cache}} {
		if _, ok := q.body[f.field]; !ok {
			continue
		}
		v, err := q.integer(f.field, 0)
		if err != nil {
			return o, false, err
		}
		*f.v = &v
	}
	if raw, ok := q.body["cycle"]; ok {
		var c bool
		if json.Unmarshal(raw, &c) != nil {
			return o, false, badRequest("cycle must be true or false")
		}
		o.Cycle = &c
	}
	return o, len(q.body) > 0, nil
}

// create makes the sequence (201; 409 if the name is taken).
func (s *Server) create(q *request) (int, any, error) {
	opts, _, err := q.options(false)
	if err != nil {
		return 0, nil, err
	}
	if err := q.CreateSequence(q.schema, q.name, opts); err != nil {
		return 0, nil, err
	}
	return s.describeAs(q, http.StatusCreated)
}

// alter changes the sequence's options.
func (s *Server) alter(q *request) (int, any, error) {
	opts, some, err := q.options(true)
	if err != nil {
		return 0, nil, err
	}
	if !some {
		return 0, nil, badRequest("no option to change")
	}
	if err := q.AlterSequence(q.schema, q.name, opts); err != nil {
		return 0, nil, err
	}
	return s.describeAs(q, http.StatusOK)
}

func (s *Server) describeAs(q *request, status int) (int, any, error) {
	_, v, err := s.describe(q)
	return status, v, err
}

// drop drops the sequence (204).
func (s *Server) drop(q *request) (int, any, error) {
	if len(q.body) > 0 {
		return 0, nil, badRequest("DELETE takes no body")
	}
	if err := q.DropSequence(q.schema, q.name); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
