package executor

import (
	"strconv"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// locksRows are pg_locks' rows: the locks transactions hold (a
// sequence's, taken by DDL in a block; each holder's on its own
// transaction) and those sessions wait for, of every front end. seqd has
// no virtual transactions or locks on catalog relations to show.
func (s *Session) locksRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	row := func(l engine.LockInfo) []eval.Datum {
		locktype, db, rel, xid := "transactionid", eval.Null, eval.Null, eval.Null
		if l.Seq != (engine.Name{}) {
			locktype, db = "relation", eval.Int(seqdDatabaseOID)
			rel = eval.Int(int64(s.oids().forSequence(nil, engine.Info{ID: l.ID, Name: l.Seq})))
		} else {
			xid = eval.Int(int64(l.Txn))
		}
		waitStart := eval.Null
		if !l.Granted {
			waitStart = s.timestamptz(l.Since)
		}
		return []eval.Datum{eval.Text(locktype), db, rel, eval.Null, eval.Null, eval.Null, xid, eval.Null, eval.Null, eval.Null,
			eval.Text(strconv.FormatUint(uint64(l.Owner), 10) + "/" + strconv.FormatUint(l.Txn, 10)), eval.Int(int64(l.Owner)),
			eval.Text(l.Mode), eval.Bool(l.Granted), eval.Bool(false), waitStart}
	}
	for _, l := range s.eng.Locks() {
		out = append(out, row(l))
	}
	for _, b := range s.cfg.Activity.snapshot() {
		if l, ok := b.wait.Waiting(); ok {
			l.Owner = b.pid
			out = append(out, row(l))
		}
	}
	return out, nil
}
