package executor

import (
	"context"
	"strconv"
	"time"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/sqlerr"
)

// cursor is an open SQL cursor (DECLARE): a query's rows, read forward.
type cursor struct {
	cols []eval.Column
	rows eval.Rows
	mem  *eval.Memory // what its rows keep, kept by the session until it closes (dropCursor)
	seq  uint64       // the session's cursorSeq when it was declared
	hold bool
	done bool
	// binary: DECLARE BINARY; its rows go in binary (Result.Binary).
	binary bool
	// text and at are its DECLARE and when it ran, for pg_cursors.
	text string
	at   time.Time
}

// maxCursors bounds the cursors one session keeps open (each holds its
// query's plan and state, and what its rows keep, up to
// -max-statement-memory): as many as the extended protocol's named
// statements and portals (pgwire). A variable for the tests.
var maxCursors = 16382

// PostgreSQL's cursor option bits (parsenodes.h).
const (
	cursorBinary = 0x0001
	cursorScroll = 0x0002
	cursorHold   = 0x0020
)

func (c *planner) declare(st *pg.DeclareCursorStmt) (*Prepared, error) {
	sel := st.Query.GetSelectStmt()
	if sel == nil {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd supports cursors over SELECT only")
	}
	if st.Options&cursorScroll != 0 {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support SCROLL cursors").WithHint("Declare it without SCROLL: seqd's cursors read forward only.")
	}
	q, err := c.Select(sel)
	if err != nil {
		return nil, err
	}
	s := c.s
	hold, binary := st.Options&cursorHold != 0, st.Options&cursorBinary != 0
	name, text := st.Portalname, c.SQL
	return &Prepared{run: func(ctx context.Context, params []eval.Datum) (*Result, error) {
		if !hold && !s.tx.open {
			return nil, sqlerr.Errorf(sqlerr.NoActiveTransaction, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, dup := s.cursors[name]; dup {
			return nil, sqlerr.Errorf(sqlerr.DuplicateCursor, "cursor \"%s\" already exists", name)
		}
		if len(s.cursors) >= maxCursors {
			return nil, sqlerr.Errorf(sqlerr.ProgramLimitExceeded, "this session already has %d open cursors, the most it may", maxCursors).
				WithHint("Close the cursors it no longer reads.")
		}
		// The cursor outlives this statement: its rows are read under a
		// context of their own, not the DECLARE's, and what they keep
		// counts as kept by the session until it closes.
		mem := eval.NewMemory(s.cfg.MaxStatementMemory, &s.kept)
		rctx := eval.WithMemory(context.WithoutCancel(ctx), mem)
		rows, err := q.Open(rctx, params, nil)
		if err != nil {
			return nil, err
		}
		if hold {
			// Its rows, collected now, are what it keeps; the query's
			// own (a sort's) are garbage once they are.
			mem = eval.NewMemory(s.cfg.MaxStatementMemory, &s.kept)
			all, err := eval.Collect(&eval.Env{Ctx: eval.WithMemory(ctx, mem), Session: (*evalView)(s)}, rows)
			if err != nil {
				return nil, err
			}
			rows = &eval.SliceRows{Rows: all}
		}
		if s.cursors == nil {
			s.cursors = map[string]*cursor{}
		}
		// Its text (pg_cursors shows it) and its plan stay as long as
		// it: four times the text, over what was measured (a 1 MB
		// literal: 1 MB with HOLD, 2 MB without).
		if err := mem.Charge(4*int64(len(text)) + 1024); err != nil {
			return nil, err
		}
		mem.Keep()
		s.cursorSeq++
		s.cursors[name] = &cursor{cols: q.Columns, rows: rows, mem: mem, seq: s.cursorSeq, hold: hold, binary: binary, text: text, at: time.Now()}
		return commandResult("DECLARE CURSOR"), nil
	}}, nil
}

// fetchAll is howMany for FETCH ALL (LONG_MAX).
const fetchAll = 1<<63 - 1

func (c *planner) fetch(st *pg.FetchStmt) (*Prepared, error) {
	if st.Direction != pg.FetchDirection_FETCH_FORWARD && !(st.Direction == pg.FetchDirection_FETCH_RELATIVE && st.HowMany == 1) &&
		!(st.Direction == pg.FetchDirection_FETCH_ABSOLUTE && st.HowMany == 1) {
		return nil, sqlerr.Errorf(sqlerr.ObjectNotInPrerequisiteState, "cursor can only scan forward").
			WithHint("seqd's cursors read forward only: use FETCH [FORWARD] n, NEXT or ALL.")
	}
	s := c.s
	name, move, count := st.Portalname, st.Ismove, st.HowMany
	tag := "FETCH"
	if move {
		tag = "MOVE"
	}
	cur := s.cursors[name]
	var cols []eval.Column
	if cur != nil && !move {
		cols = cur.cols
	}
	return &Prepared{Columns: cols, run: func(ctx context.Context, _ []eval.Datum) (*Result, error) {
		cur := s.cursors[name]
		if cur == nil {
			return nil, sqlerr.Errorf(sqlerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
		}
		rows := &fetchRows{cur: cur, left: count}
		if move {
			var n int64
			for {
				_, ok, err := rows.Next()
				if err != nil {
					return nil, err
				}
				if !ok {
					return commandResult(tag + " " + strconv.FormatInt(n, 10)), nil
				}
				n++
			}
		}
		return &Result{Columns: cur.cols, Rows: rows, Tag: tag, Binary: cur.binary}, nil
	}}, nil
}

// fetchRows reads up to left rows of a cursor.
type fetchRows struct {
	cur  *cursor
	left int64
}

func (f *fetchRows) Next() ([]eval.Datum, bool, error) {
	if f.left == 0 || f.cur.done {
		return nil, false, nil
	}
	row, ok, err := f.cur.rows.Next()
	if err != nil || !ok {
		f.cur.done = true
		return nil, false, err
	}
	if f.left != fetchAll {
		f.left--
	}
	return row, true, nil
}

func (s *Session) closeCursor(name string) (*Result, error) {
	if name == "" {
		for name := range s.cursors {
			s.dropCursor(name)
		}
		return commandResult("CLOSE CURSOR"), nil
	}
	if _, ok := s.cursors[name]; !ok {
		return nil, sqlerr.Errorf(sqlerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	s.dropCursor(name)
	return commandResult("CLOSE CURSOR"), nil
}

// dropCursor closes a cursor: what its rows kept is the session's no
// more.
func (s *Session) dropCursor(name string) {
	if c := s.cursors[name]; c != nil {
		c.mem.Release()
		delete(s.cursors, name)
	}
}

// Cursor is an open SQL cursor's columns and remaining rows: in
// PostgreSQL a cursor is also a portal of the extended protocol, which a
// front end describes and executes by name.
func (s *Session) Cursor(name string) ([]eval.Column, eval.Rows, bool) {
	cur := s.cursors[name]
	if cur == nil {
		return nil, nil, false
	}
	return cur.cols, &fetchRows{cur: cur, left: fetchAll}, true
}
