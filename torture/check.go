package torture

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// Seq describes a sequence the workload draws values from. Values are
// compared in the increment's direction: norm(v) = v*Dir.
type Seq struct {
	Name string
	Inc  int64 // its increment (never changed by the workload)
}

func (s Seq) dir() int64 {
	if s.Inc < 0 {
		return -1
	}
	return 1
}

func (s Seq) step() int64 { return s.Inc * s.dir() }

// CheckUnique reports every value some sequence returned twice, across
// all operations, whatever their outcome: a value that arrived counts even
// if its request's outcome is unknown.
func CheckUnique(ops []Op) []string {
	bySeq := map[string][]int64{}
	for _, op := range ops {
		if op.Kind != Setval {
			bySeq[op.Seq] = append(bySeq[op.Seq], op.Values...)
		}
	}
	var out []string
	for _, name := range sortedKeys(bySeq) {
		vs := bySeq[name]
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
		for i := 1; i < len(vs); i++ {
			if vs[i] == vs[i-1] && (i == 1 || vs[i-1] != vs[i-2]) {
				out = append(out, fmt.Sprintf("unique: %s returned %d more than once", name, vs[i]))
			}
		}
	}
	return out
}

// atom is one step of a sequence's history: a value operation, one row
// of a bulk operation, or a setval. ret is -1 when no answer came: the
// step may or may not have happened.
type atom struct {
	client    int
	epoch     int
	kind      Kind
	values    []int64
	call, ret int64
}

// atoms splits s's operations into steps. A request the server refused
// did nothing; the part of a bulk request nobody saw may have consumed
// values (an unanswered step with no values).
func atoms(ops []Op, s string) []atom {
	var out []atom
	for _, op := range ops {
		if op.Seq != s {
			continue
		}
		a := atom{client: op.Client, epoch: op.Epoch, kind: op.Kind, call: op.Call, ret: -1}
		switch {
		case op.Kind == Bulk:
			for i := range op.Values {
				// Row i is taken after row i-1: calling it i ns after the
				// statement records that order (no server is faster), which
				// keeps porcupine from trying the rows in other orders.
				b := a
				b.values, b.call, b.ret = op.Values[i:i+1], op.Call+int64(i), op.Times[i]
				out = append(out, b)
			}
			if op.Outcome != OK && int64(len(op.Values)) < op.Want {
				out = append(out, a)
			}
		case op.Outcome == OK:
			a.values, a.ret = op.Values, op.Return
			out = append(out, a)
		case op.Outcome == Unknown:
			a.values = op.Values
			out = append(out, a)
		}
	}
	return out
}

// CheckOrder is the O(n log n) linearizability scan: every step's values
// must lie beyond every value of every step that completed before it was
// called (a setval counts as its value), and the rows of one
// generate_series must rise. Unanswered steps constrain nothing but the
// values that did arrive.
func CheckOrder(ops []Op, seqs []Seq) []string {
	var out []string
	for _, op := range ops {
		d := dirOf(seqs, op.Seq)
		for i := 1; i < len(op.Values); i++ {
			if op.Values[i]*d <= op.Values[i-1]*d {
				out = append(out, fmt.Sprintf("order: %s %s by client %d returned %d after %d in one response", op.Seq, op.Kind, op.Client, op.Values[i], op.Values[i-1]))
			}
		}
	}
	for _, s := range seqs {
		var done, all []atom
		for _, a := range atoms(ops, s.Name) {
			if len(a.values) == 0 {
				continue
			}
			if a.ret >= 0 {
				done = append(done, a)
			}
			if a.kind != Setval {
				all = append(all, a)
			}
		}
		sort.Slice(done, func(i, j int) bool { return done[i].ret < done[j].ret })
		sort.Slice(all, func(i, j int) bool { return all[i].call < all[j].call })
		d := s.dir()
		maxDone := int64(math.MinInt64)
		var maxAtom atom
		j := 0
		for _, a := range all {
			for ; j < len(done) && done[j].ret < a.call; j++ {
				if hi := normMax(done[j].values, d); hi > maxDone {
					maxDone, maxAtom = hi, done[j]
				}
			}
			if lo := normMin(a.values, d); lo <= maxDone {
				out = append(out, fmt.Sprintf("order: %s %s by client %d (called at %v) returned %d, but %s by client %d had returned %d before (at %v)",
					s.Name, a.kind, a.client, time.Duration(a.call), lo*d, maxAtom.kind, maxAtom.client, maxDone*d, time.Duration(maxAtom.ret)))
			}
		}
	}
	return out
}

func dirOf(seqs []Seq, name string) int64 {
	for _, s := range seqs {
		if s.Name == name {
			return s.dir()
		}
	}
	return 1
}

// normMax and normMin are the highest and lowest of vs in direction d.
func normMax(vs []int64, d int64) int64 {
	hi := int64(math.MinInt64)
	for _, v := range vs {
		hi = max(hi, v*d)
	}
	return hi
}

func normMin(vs []int64, d int64) int64 {
	lo := int64(math.MaxInt64)
	for _, v := range vs {
		lo = min(lo, v*d)
	}
	return lo
}

// seqModel is porcupine's model of one sequence: the state is the highest
// normalized value handed out or set. A value-returning step is legal if
// all its values lie beyond the state; setval moves the state to its
// value. An operation whose outcome is unknown is pending forever (return
// time infinite, as porcupine and etcd's robustness tests treat it): the
// values that arrived must lie beyond the state, and it may have consumed
// more that nobody saw, which can only make later values larger, so the
// step leaves the state at least where those values put it.
type seqInput struct {
	seq   string
	epoch int
	kind  Kind
	dir   int64
}

type seqOutput struct {
	values  []int64
	unknown bool
}

var seqModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[string][]porcupine.Operation{}
		var order []string
		for _, op := range h {
			in := op.Input.(seqInput)
			s := fmt.Sprintf("%s/%d", in.seq, in.epoch)
			if by[s] == nil {
				order = append(order, s)
			}
			by[s] = append(by[s], op)
		}
		out := make([][]porcupine.Operation, 0, len(order))
		for _, s := range order {
			out = append(out, by[s])
		}
		return out
	},
	Init: func() any { return int64(math.MinInt64) },
	Step: func(state, input, output any) (bool, any) {
		st, in, o := state.(int64), input.(seqInput), output.(seqOutput)
		if len(o.values) == 0 {
			return true, st // unknown, nothing arrived: no constraint
		}
		if in.kind == Setval {
			if o.unknown {
				return true, st
			}
			return true, o.values[0] * in.dir
		}
		hi := st
		for _, v := range o.values {
			if v*in.dir <= st {
				return false, st
			}
			hi = max(hi, v*in.dir)
		}
		return true, hi
	},
	DescribeOperation: func(input, output any) string {
		in, o := input.(seqInput), output.(seqOutput)
		return fmt.Sprintf("%s(%s) -> %v unknown=%v", in.kind, in.seq, o.values, o.unknown)
	},
}

// CheckLinearizable runs porcupine over the history, one partition per
// sequence and epoch (server run), leaving out generate_series rows.
// CheckOrder covers those rows and the order across epochs; porcupine's
// memory grows with the square of a partition's length, which epochs
// bound. It returns violations, or an error if porcupine could not
// decide within timeout.
func CheckLinearizable(ops []Op, seqs []Seq, timeout time.Duration) (violations []string, checked int, err error) {
	var h []porcupine.Operation
	for _, s := range seqs {
		for _, a := range atoms(ops, s.Name) {
			if a.kind == Bulk {
				// A generate_series' rows interleave with other
				// clients' values over a long interval; porcupine's
				// search blows up on them, so the scan alone checks them.
				// Leaving operations out of this model can only make the
				// rest easier to linearize: no false alarm.
				continue
			}
			ret := a.ret
			if ret < 0 {
				if len(a.values) == 0 || a.kind == Setval {
					// Pending forever with an identity step: legal
					// anywhere, so leaving it out changes nothing, and
					// porcupine's search no longer carries it (etcd's
					// robustness tests patch their histories the same way).
					continue
				}
				ret = math.MaxInt64
			}
			h = append(h, porcupine.Operation{ClientId: max(a.client, 0), Input: seqInput{s.Name, a.epoch, a.kind, s.dir()},
				Output: seqOutput{a.values, a.ret < 0}, Call: a.call, Return: ret})
		}
	}
	// The partitions one after another (porcupine would run them all at
	// once, each with its own cache: hundreds of them outgrow memory),
	// two at a time, within timeout in all.
	deadline := time.Now().Add(timeout)
	parts := seqModel.Partition(h)
	results := make([]porcupine.CheckResult, len(parts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) {
					return
				}
				left := time.Until(deadline)
				if left <= 0 {
					results[i] = porcupine.Unknown
					continue
				}
				results[i] = porcupine.CheckOperationsTimeout(seqModel, parts[i], left)
			}
		}()
	}
	wg.Wait()
	for i, res := range results {
		in := parts[i][0].Input.(seqInput)
		switch res {
		case porcupine.Illegal:
			return []string{fmt.Sprintf("linearizability: porcupine found no linearization of %d operations of %s (epoch %d)", len(parts[i]), in.seq, in.epoch)}, len(h), nil
		case porcupine.Unknown:
			return nil, len(h), fmt.Errorf("porcupine could not decide %d operations within %v", len(h), timeout)
		}
	}
	return nil, len(h), nil
}

// Restart describes one restart of the server for the gap check: the
// epoch that ended, whether it ended cleanly, the largest CACHE each
// sequence had during it, and the first value each sequence returned after
// it (the probe).
type Restart struct {
	Epoch int
	Clean bool
	Cache map[string]int64
	Probe map[string]int64
}

// CheckGaps checks the bounded-gap promise at every restart: the probe lies
// beyond every value seen before, skipping at most CACHE-1 values after a
// crash and none after a clean stop, beyond the values that requests
// without a complete answer may have consumed unseen. It also returns, per
// sequence, the most values a crash skipped beyond what such requests
// asked for: what CACHE bounds.
func CheckGaps(ops []Op, seqs []Seq, restarts []Restart) (violations []string, maxSkip map[string]int64) {
	maxSkip = map[string]int64{}
	ep := epochsOf(ops, seqs)
	for _, r := range restarts {
		for _, s := range seqs {
			g, ok := ep.gapAt(s, r)
			if !ok {
				continue
			}
			if g.beyond && !r.Clean {
				maxSkip[s.Name] = max(maxSkip[s.Name], g.skipped-g.slack)
			}
			if g.beyond && g.skipped <= g.allowed {
				continue
			}
			kind := "crash"
			if r.Clean {
				kind = "clean stop"
			}
			violations = append(violations, fmt.Sprintf("gap: after the %s ending epoch %d, %s resumed at %d after %d: %d skipped, at most %d allowed (CACHE %d, %d unanswered)",
				kind, r.Epoch, s.Name, r.Probe[s.Name], g.top, g.skipped, g.allowed, r.Cache[s.Name], g.slack))
		}
	}
	return violations, maxSkip
}

type gap struct {
	top                     int64 // the highest value seen before the restart
	beyond                  bool  // the probe lies beyond it
	skipped, allowed, slack int64
}

// epochSum is what one epoch did to one sequence, for the gap check.
type epochSum struct {
	top      int64   // highest normalized value seen or setval acknowledged
	slack    int64   // values asked for and not seen, by requests without a complete answer
	maybeSet []int64 // normalized setvals of unknown outcome
}

type epochs map[string]map[int]*epochSum

// epochsOf sums the history by sequence and epoch in one pass.
func epochsOf(ops []Op, seqs []Seq) epochs {
	ep := epochs{}
	for _, s := range seqs {
		ep[s.Name] = map[int]*epochSum{}
	}
	for _, op := range ops {
		by, ok := ep[op.Seq]
		if !ok {
			continue
		}
		e := by[op.Epoch]
		if e == nil {
			e = &epochSum{top: math.MinInt64}
			by[op.Epoch] = e
		}
		d := dirOf(seqs, op.Seq)
		if op.Kind == Setval {
			switch op.Outcome {
			case OK:
				e.top = max(e.top, op.Values[0]*d)
			case Unknown:
				e.maybeSet = append(e.maybeSet, op.Values[0]*d)
			}
			continue
		}
		e.top = max(e.top, normMax(op.Values, d))
		if op.Outcome != OK {
			e.slack += op.Want - int64(len(op.Values))
		}
	}
	return ep
}

// gapAt measures the restart's gap for s; false if there is nothing to
// measure (no probe, or no value before).
func (ep epochs) gapAt(s Seq, r Restart) (gap, bool) {
	probe, ok := r.Probe[s.Name]
	if !ok {
		return gap{}, false
	}
	d := s.dir()
	p := probe * d
	top := int64(math.MinInt64)
	var slack int64
	for epoch, e := range ep[s.Name] {
		if epoch > r.Epoch {
			continue
		}
		top = max(top, e.top)
		if epoch == r.Epoch {
			slack = e.slack
			for _, x := range e.maybeSet {
				if p > x { // the sequence may have moved there
					top = max(top, x)
				}
			}
		}
	}
	if top == math.MinInt64 {
		return gap{}, false
	}
	g := gap{top: top * d, beyond: p > top, slack: slack, allowed: slack, skipped: (p-top)/s.step() - 1}
	if !r.Clean {
		g.allowed += max(r.Cache[s.Name]-1, 0)
	}
	return g, true
}

// SeqDef is what the catalogue holds of a DDL-workload sequence.
type SeqDef struct {
	Inc, Cache, Max int64
}

// Catalog is the model of the DDL workload's sequences: what every
// acknowledged statement or COMMIT left, and the one statement or COMMIT
// in flight, whose outcome is unknown until it is answered.
type Catalog struct {
	Acked   map[string]SeqDef
	Pending map[string]*SeqDef // nil: nothing in flight
}

// NewCatalog is an empty catalogue.
func NewCatalog() *Catalog { return &Catalog{Acked: map[string]SeqDef{}} }

// Send records a statement about to be sent outside a block. Def nil is
// a DROP.
func (c *Catalog) Send(name string, def *SeqDef) {
	c.SendBlock(map[string]*SeqDef{name: def})
}

// SendBlock records a COMMIT about to be sent: what the block's
// statements left of each sequence they touched (nil: dropped).
func (c *Catalog) SendBlock(changes map[string]*SeqDef) { c.Pending = changes }

// Answer records the answer to the pending statement or COMMIT:
// acknowledged, or refused by the server.
func (c *Catalog) Answer(ok bool) {
	p := c.Pending
	c.Pending = nil
	if ok {
		c.Acked = c.after(p)
	}
}

// after is the catalogue with changes applied.
func (c *Catalog) after(changes map[string]*SeqDef) map[string]SeqDef {
	out := make(map[string]SeqDef, len(c.Acked))
	for k, v := range c.Acked {
		out[k] = v
	}
	for name, def := range changes {
		if def == nil {
			delete(out, name)
		} else {
			out[name] = *def
		}
	}
	return out
}

// Verify compares what the server lists after a restart with the model:
// every acknowledged statement survived; the pending statement or block
// either took effect whole or not at all, and becomes whichever the
// server shows.
func (c *Catalog) Verify(got map[string]SeqDef) []string {
	p := c.Pending
	c.Pending = nil
	out := catalogDiff(c.Acked, got)
	if len(out) == 0 || p == nil {
		return out
	}
	after := c.after(p)
	if len(catalogDiff(after, got)) == 0 {
		c.Acked = after
		return nil
	}
	return []string{fmt.Sprintf("ddl: the unanswered statement or block %s took effect in part (%s)", changesString(p), strings.Join(out, "; "))}
}

// catalogDiff describes how got differs from want.
func catalogDiff(want, got map[string]SeqDef) []string {
	var out []string
	for _, name := range sortedKeys(want, got) {
		w, wantOK := want[name]
		have, haveOK := got[name]
		switch {
		case wantOK == haveOK && w == have:
		case !haveOK:
			out = append(out, fmt.Sprintf("ddl: acknowledged sequence %s (%+v) is gone", name, w))
		case !wantOK:
			out = append(out, fmt.Sprintf("ddl: dropped sequence %s is back as %+v", name, have))
		default:
			out = append(out, fmt.Sprintf("ddl: %s is %+v, but %+v was acknowledged", name, have, w))
		}
	}
	return out
}

func changesString(changes map[string]*SeqDef) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(changes)) {
		if d := changes[name]; d == nil {
			parts = append(parts, "drop "+name)
		} else {
			parts = append(parts, fmt.Sprintf("%s=%+v", name, *d))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys[V any](ms ...map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// CheckNodeOrder checks a NOORDER sequence's values node by node: each
// node's are in real-time order (a value handed out after another of the
// same node was received is larger), whatever happened to the node or
// the cluster between them. Values of different nodes are not compared.
func CheckNodeOrder(ops []Op, seq string) []string {
	byNode := map[int][]Op{}
	for _, op := range ops {
		if op.Seq == seq && op.Outcome == OK && len(op.Values) == 1 {
			byNode[op.Node] = append(byNode[op.Node], op)
		}
	}
	var out []string
	for node := 0; len(byNode) > 0; node++ {
		nops, ok := byNode[node]
		if !ok {
			continue
		}
		delete(byNode, node)
		byCall := append([]Op(nil), nops...)
		sort.Slice(byCall, func(i, j int) bool { return byCall[i].Call < byCall[j].Call })
		byReturn := nops
		sort.Slice(byReturn, func(i, j int) bool { return byReturn[i].Return < byReturn[j].Return })
		done, maxDone, maxOp := 0, int64(0), Op{}
		for _, op := range byCall {
			for done < len(byReturn) && byReturn[done].Return < op.Call {
				if v := byReturn[done].Values[0]; done == 0 || v > maxDone {
					maxDone, maxOp = v, byReturn[done]
				}
				done++
			}
			if done > 0 && op.Values[0] <= maxDone {
				out = append(out, fmt.Sprintf("node order: %s on node %d gave %d (client %d) after %d (client %d) had been received",
					seq, node, op.Values[0], op.Client, maxDone, maxOp.Client))
			}
		}
	}
	return out
}
