package server

import (
	"container/heap"

	"github.com/seqd/seqd/engine"
)

// nearestSet keeps the sequences nearest their limit (by the share of
// their range up to the durable mark) between scrapes, so that a scrape
// of a million sequences passes over the few whose records were written
// since the last one (engine.MarkWatch), not over all of them. It
// passes over all of them again when it cannot know the selection is
// still the nearest: at the first scrape of an engine (a new snapshot,
// a promotion), when its watch fell behind, and when a member left or
// fell below a sequence outside it.
//
// The selection holds up to max sequences. Invariant: every sequence
// outside it has a share at or below floor, and every member one at or
// above it (floor -1: no sequence is outside).
type nearestSet struct {
	max   int
	watch *engine.MarkWatch // on the engine last scraped (held weakly)
	rows  byShare
	floor float64
	// passes counts the passes over every sequence (for tests).
	passes int
}

// member is a sequence of the selection.
type member struct {
	use   engine.Use
	name  string // use.Name().String()
	share float64
	index int // in rows
}

func newMember(u engine.Use) *member {
	return &member{use: u, name: u.Name().String(), share: u.Reserved / u.Total}
}

// byShare is a min-heap of members by share, with their positions in
// it, and an index by name.
type byShare struct {
	h      []*member
	byName map[string]*member
}

func (b *byShare) Len() int           { return len(b.h) }
func (b *byShare) Less(i, j int) bool { return b.h[i].share < b.h[j].share }
func (b *byShare) Swap(i, j int) {
	b.h[i], b.h[j] = b.h[j], b.h[i]
	b.h[i].index, b.h[j].index = i, j
}
func (b *byShare) Push(x any) {
	m := x.(*member)
	m.index = len(b.h)
	b.h = append(b.h, m)
	b.byName[m.name] = m
}
func (b *byShare) Pop() any {
	m := b.h[len(b.h)-1]
	b.h[len(b.h)-1] = nil
	b.h = b.h[:len(b.h)-1]
	delete(b.byName, m.name)
	return m
}

// update brings the selection up to date with eng and returns its
// members, in no order.
func (n *nearestSet) update(eng *engine.Engine) []*member {
	if n.watch == nil || n.watch.Engine() != eng {
		if n.watch != nil {
			n.watch.Stop()
		}
		n.watch = eng.WatchMarks() // before the pass: no write is missed
		n.pass(eng)
		return n.rows.h
	}
	stale := false
	complete := n.watch.Drain(func(u engine.Use) {
		if !stale {
			stale = !n.offer(newMember(u))
		}
	}, func(name engine.Name) {
		if m := n.rows.byName[name.String()]; m != nil && !stale {
			heap.Remove(&n.rows, m.index)
			stale = n.floor >= 0 // one outside may now be among the nearest
		}
	})
	if stale || !complete {
		n.pass(eng)
	}
	return n.rows.h
}

// offer takes the sequence's current use into the selection; false
// means the invariant no longer holds (a member fell below floor).
func (n *nearestSet) offer(c *member) bool {
	if m := n.rows.byName[c.name]; m != nil {
		m.use, m.share = c.use, c.share
		heap.Fix(&n.rows, m.index)
		return m.share >= n.floor
	}
	switch {
	case len(n.rows.h) < n.max && n.floor < 0:
		heap.Push(&n.rows, c)
	case len(n.rows.h) > 0 && c.share > n.rows.h[0].share:
		out := heap.Pop(&n.rows).(*member)
		n.floor = max(n.floor, out.share)
		heap.Push(&n.rows, c)
	default:
		n.floor = max(n.floor, c.share)
	}
	return true
}

// pass selects again from every sequence of eng.
func (n *nearestSet) pass(eng *engine.Engine) {
	n.passes++
	n.rows = byShare{byName: map[string]*member{}}
	n.floor = -1
	eng.EachUse(func(u engine.Use) {
		share := u.Reserved / u.Total
		switch {
		case len(n.rows.h) < n.max:
			heap.Push(&n.rows, newMember(u))
		case share > n.rows.h[0].share:
			out := heap.Pop(&n.rows).(*member)
			n.floor = max(n.floor, out.share)
			heap.Push(&n.rows, newMember(u))
		default:
			n.floor = max(n.floor, share)
		}
	})
}

// stop ends the selection's watch.
func (n *nearestSet) stop() {
	if n.watch != nil {
		n.watch.Stop()
	}
	n.watch = nil
}
