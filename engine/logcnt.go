// PostgreSQL's log_cnt: the column of SELECT * FROM a sequence that
// counts the values its nextval may still fetch before it writes the
// next WAL record.

package engine

import "github.com/seqd/seqd/seqmath"

// logVals is PostgreSQL's SEQ_LOG_VALS: how many values a nextval that
// writes a WAL record logs beyond those it fetches.
const logVals = 32

// PostgreSQL 15's nextval fetches CACHE values at a time into the
// session's cache. A fetch either logs, and log_cnt becomes the values
// its record covers beyond the fetched ones (logVals, fewer where the
// limit comes first), or takes them from those the last record covered,
// and log_cnt drops by CACHE. It logs on the first fetch after the
// position was set (is_called false), when log_cnt is below CACHE, after
// a checkpoint, and always for a sequence that is not WAL-logged
// (unlogged, temporary). setval, RESTART and an ALTER of the increment,
// bounds, CYCLE or CACHE set log_cnt to 0 (logResets); any ALTER or
// setval empties the session's cache.
//
// seqd has no session caches: it counts as one PostgreSQL session would
// that had taken every value seqd handed out, in order, fetching at
// every CACHE-th; checkpoints it does not count (PostgreSQL may show one
// more record's count than seqd after one). After a restart log_cnt is
// 0 until the next nextval, which logs, as PostgreSQL's after a restart.
//
// The count is two fields of seq, logCnt and logBlock (the values left
// in that session's cache), changed under seq.mu where values are handed
// out: nextval at CACHE 1 and every value within a cache cost a compare
// and a subtraction (logAfter's first lines).

// logAfter is log_cnt and the values left in the session's cache after
// n more values (n >= 1) were handed out from position from, given
// log_cnt cnt and block values cached before. always: every fetch logs.
func logAfter(o *seqmath.Options, always bool, from seqmath.State, n int64, cnt uint8, block int64) (uint8, int64) {
	if n <= block {
		return cnt, block - n // from the session's cache
	}
	if n == 1 && o.Cache == 1 && from.Called && cnt > 0 && !always {
		return cnt - 1, 0 // nextval at CACHE 1 from the last record's values
	}
	n -= block
	pos, _ := o.Advance(from, block) // where the cache ends: PostgreSQL's last_value
	block = 0
	for n > 0 {
		if cnt == logVals && block == 0 {
			pos, n = skipPeriods(o, always, pos, n)
			if n == 0 {
				break
			}
		}
		var got int64
		pos, cnt, got = logFetch(o, always, pos, cnt)
		if got == 0 {
			break // unreachable: nothing is handed out past the limit
		}
		take := min(n, got)
		n -= take
		block = got - take
	}
	return cnt, block
}

// logFetch is one fetch of nextval_internal from pos, where the previous
// one ended: the position its values end at, log_cnt after it, and how
// many values it fetched (CACHE, fewer at the limit; at the limit, with
// CYCLE, it starts again at the other end).
func logFetch(o *seqmath.Options, always bool, pos seqmath.State, cnt uint8) (seqmath.State, uint8, int64) {
	logs := always || !pos.Called || int64(cnt) < o.Cache
	r, end, err := o.Reserve(pos, o.Cache, "")
	if err != nil {
		return pos, cnt, 0
	}
	if logs {
		cnt = uint8(min(o.Left(end), logVals))
	} else {
		cnt -= uint8(o.Cache)
	}
	return end, cnt, r.Count
}

// skipPeriods passes over whole periods of fetches from pos, where a
// fetch that logged the full logVals has just been used up, and returns
// where they end and the values left of n. A period (logVals/CACHE
// fetches from the record's values, then one that logs) ends as it
// began, unless the limit cuts a record short: only periods whose last
// record ends logVals or more before the limit are passed over. It
// bounds logAfter's work for a large range (seqd_reserve).
func skipPeriods(o *seqmath.Options, always bool, pos seqmath.State, n int64) (seqmath.State, int64) {
	fetches := int64(1)
	if !always && o.Cache <= logVals {
		fetches += logVals / o.Cache
	}
	span := fetches * o.Cache
	room := o.Left(pos) - logVals
	if room < span || n < span {
		return pos, n
	}
	k := min(n, room) / span * span
	pos, _ = o.Advance(pos, k)
	return pos, n - k
}

// logResets reports whether an ALTER SEQUENCE of spec sets log_cnt to 0
// in PostgreSQL 15 (init_params): RESTART, INCREMENT, CYCLE, MINVALUE,
// MAXVALUE, CACHE, AS a type whose range moves a bound that was the old
// type's, and seqd's SKIP RANGE, which changes what the next values are.
func logResets(spec seqmath.Spec, old *seqmath.Options) bool {
	return spec.Restarts() || spec.Increment != nil || spec.Cycle != nil ||
		spec.Min != nil || spec.NoMin || spec.Max != nil || spec.NoMax || spec.Cache != nil ||
		spec.Type != nil && (old.Max == old.Type.Max() || old.Min == old.Type.Min()) ||
		spec.Skip != nil || spec.NoSkip
}

// logsAlways reports whether every fetch of s logs: PostgreSQL WAL-logs
// neither an unlogged sequence nor a temporary one, so each of their
// nextvals finds the page older than the last checkpoint.
func (e *Engine) logsAlways(s *seq) bool { return s.unlogged || e.temporary }
