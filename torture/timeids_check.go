package torture

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seqd/seqd/timeid"
)

// timeSlack is what the time bounds allow for the harness's and the
// server's readings of the clock, which are not the same instant.
const timeSlack = 100 * time.Millisecond

// check runs the clock torture's checkers over the history.
func (r *timeRun) check() *TimeReport {
	rep := &TimeReport{Cycles: r.cfg.Cycles, Faults: r.faults, Ops: len(r.ops)}
	for gi, g := range timeGens {
		var done []timeOp
		for _, op := range r.ops {
			if op.gen != gi {
				continue
			}
			if op.err != "" {
				rep.Violations = append(rep.Violations, r.checkRefusal(g, op, rep)...)
				continue
			}
			rep.IDs += int(op.count)
			done = append(done, op)
			rep.Violations = append(rep.Violations, r.checkTime(g, op)...)
		}
		rep.Violations = append(rep.Violations, checkTimeUnique(g.name, done)...)
		rep.Violations = append(rep.Violations, checkTimeOrder(g.name, done)...)
	}
	rep.Elapsed = time.Since(r.start)
	return rep
}

// checkRefusal: a call may fail with 55000 only where the ids may have
// run more than MaxBehind ahead of the clock (timeRun.frontier), or with
// 57P01 as the server stops; with nothing else.
func (r *timeRun) checkRefusal(g timeGen, op timeOp, rep *TimeReport) []string {
	switch {
	case strings.HasPrefix(op.err, "55000 "):
		rep.Refused++
		if op.lead+time.Second/2 < timeid.DefaultMaxBehind {
			return []string{fmt.Sprintf("%s: refused with the ids at most %v ahead of the clock: %s", g.name, op.lead, op.err)}
		}
	case strings.HasPrefix(op.err, "57P01 "):
	case r.cluster && strings.HasPrefix(op.err, "25006 "): // a leader's session as it steps down
	default:
		return []string{fmt.Sprintf("%s: %s", g.name, op.err)}
	}
	return nil
}

// checkTime: an id's time is the clock's unit when it was handed out or
// a later one, at most MaxBehind later.
func (r *timeRun) checkTime(g timeGen, op timeOp) []string {
	l := g.layout
	first, _, _ := l.Decode(op.first)
	last, _, _ := l.Decode(op.first + op.count - 1)
	earliest := r.start.Add(op.call + op.offLo - l.Unit - timeSlack)
	latest := r.start.Add(op.ret + op.offHi + timeid.DefaultMaxBehind + l.Unit + timeSlack)
	if first.Before(earliest) || last.After(latest) {
		return []string{fmt.Sprintf("%s: ids %d..%d have times %v..%v, outside the clock's %v..%v", g.name, op.first, op.first+op.count-1,
			first.UTC(), last.UTC(), earliest.UTC(), latest.UTC())}
	}
	return nil
}

// checkTimeUnique: no id was handed out twice.
func checkTimeUnique(name string, ops []timeOp) []string {
	ops = slices.Clone(ops)
	slices.SortFunc(ops, func(a, b timeOp) int { return cmpInt(a.first, b.first) })
	var v []string
	for i := 1; i < len(ops); i++ {
		if prev := ops[i-1]; ops[i].first <= prev.first+prev.count-1 {
			v = append(v, fmt.Sprintf("%s: id %d handed out twice (calls at %v and %v)", name, ops[i].first, prev.call, ops[i].call))
		}
	}
	return v
}

// checkTimeOrder: an id handed out after another was returned is above
// it (one server hands them all out, in order, across restarts).
func checkTimeOrder(name string, ops []timeOp) []string {
	byCall, byRet := slices.Clone(ops), slices.Clone(ops)
	slices.SortFunc(byCall, func(a, b timeOp) int { return cmpInt(int64(a.call), int64(b.call)) })
	slices.SortFunc(byRet, func(a, b timeOp) int { return cmpInt(int64(a.ret), int64(b.ret)) })
	var v []string
	maxDone, j := int64(-1), 0
	var maxOp timeOp
	for _, op := range byCall {
		for ; j < len(byRet) && byRet[j].ret < op.call; j++ {
			if last := byRet[j].first + byRet[j].count - 1; last > maxDone {
				maxDone, maxOp = last, byRet[j]
			}
		}
		if op.first <= maxDone && len(v) < 10 {
			v = append(v, fmt.Sprintf("%s: id %d (call at %v) not above %d, returned at %v before it", name, op.first, op.call, maxDone, maxOp.ret))
		}
	}
	return v
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
