package executor

import (
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
)

// locks are the locks transactions hold (a sequence's, taken by DDL in
// a block; each holder's on its own transaction) and those sessions wait
// for, of every front end, as pg_locks lists them (catalog.Lock).
func (s *Session) locks() []catalog.Lock {
	var out []catalog.Lock
	add := func(l engine.LockInfo) {
		lock := catalog.Lock{LockInfo: l}
		if l.Seq != (engine.Name{}) {
			lock.Relation = s.oids().forSequence(nil, engine.Info{ID: l.ID, Name: l.Seq})
		}
		out = append(out, lock)
	}
	for _, l := range s.eng.Locks() {
		add(l)
	}
	for _, b := range s.cfg.Activity.snapshot() {
		if l, ok := b.wait.Waiting(); ok {
			l.Owner = b.pid
			add(l)
		}
	}
	return out
}
