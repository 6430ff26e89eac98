package console

import (
	"container/heap"
	"net/http"
	"strconv"
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/seqmath"
)

// Bounds of a listing's work.
const (
	// maxScan bounds the names one page by name looks at: a search that
	// matches little over a million sequences answers within it, with a
	// cursor to continue from.
	maxScan = 100_000
	// maxOffset bounds a listing by range used: it keeps offset+limit
	// sequences while it passes over them all.
	maxOffset = 10_000
)

// row is a sequence as the list shows it.
type row struct {
	Schema     string      `json:"schema"`
	Name       string      `json:"name"`
	Type       string      `json:"type"`
	Shape      string      `json:"shape"`
	Position   string      `json:"position"` // a decimal: int64 does not fit a JavaScript number
	Called     bool        `json:"called"`
	Increment  string      `json:"increment"`
	Used       float64     `json:"used"`  // values used, in increments
	Total      float64     `json:"total"` // values the range holds, in increments
	Cache      int64       `json:"cache"`
	Burned     int64       `json:"burned"` // by crashes, failovers and late releases since start
	NoOrder    bool        `json:"noorder"`
	Cycle      bool        `json:"cycle"`
	Projection *Projection `json:"projection"` // null: not projected to run out
}

// rowOf is info as a row.
func (c *Console) rowOf(info engine.Info) row {
	used, total := info.RangeUse()
	o := info.Options
	r := row{Schema: info.Name.Schema(), Name: info.Name.Rel(), Type: o.Type.String(), Shape: shapeName(o.Shape),
		Position: strconv.FormatInt(info.State.Last, 10), Called: info.State.Called, Increment: strconv.FormatInt(o.Increment, 10),
		Used: used, Total: total, Cache: o.Cache, NoOrder: o.NoOrder, Cycle: o.Cycle,
		Burned: info.Burned.Crash + info.Burned.Failover + info.Burned.Release}
	if c.cfg.Projection != nil {
		if p, ok := c.cfg.Projection(info.ID, used, total); ok {
			r.Projection = &p
		}
	}
	return r
}

func shapeName(s seqmath.Shape) string {
	switch s.Kind {
	case seqmath.BitReversed:
		return "bit_reversed_positive"
	case seqmath.Sharded:
		return "shard_bits"
	case seqmath.Snowflake:
		return "snowflake"
	}
	return "ordered"
}

// listing is a request for a page of the list.
type listing struct {
	search string
	sort   string // "name" or "used" (most used first)
	after  string // name: the cursor (cursors) to continue after
	offset int    // used: how many to skip
	limit  int
}

// parseListing reads and checks the listing's parameters.
func parseListing(r *http.Request) (listing, error) {
	q := r.URL.Query()
	l := listing{search: q.Get("q"), sort: q.Get("sort"), after: q.Get("after"), limit: DefaultLimit}
	for k := range q {
		switch k {
		case "q", "sort", "after", "offset", "limit":
		default:
			return l, badRequest("unknown parameter " + strconv.Quote(k) + " (want q, sort, after, offset, limit)")
		}
	}
	if len(l.search) > MaxSearch {
		return l, badRequest("q is longer than 128 bytes")
	}
	switch l.sort {
	case "":
		l.sort = "name"
	case "name", "used":
	default:
		return l, badRequest("sort must be name or used")
	}
	var err error
	if l.limit, err = intParam(q.Get("limit"), "limit", DefaultLimit, 1, MaxLimit); err != nil {
		return l, err
	}
	if l.offset, err = intParam(q.Get("offset"), "offset", 0, 0, maxOffset); err != nil {
		return l, err
	}
	if l.sort == "name" && l.offset != 0 {
		return l, badRequest("offset is for sort=used; sort=name continues from a page's next (after)")
	}
	return l, nil
}

// intParam is the integer text s, def when empty, within [lo, hi].
func intParam(s, name string, def, lo, hi int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, badRequest(name + " must be an integer from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi))
	}
	return n, nil
}

// sequences lists a page of the sequences the viewer holds a privilege
// on, whose name holds the search text.
func (c *Console) sequences(v *viewer, r *http.Request) (any, error) {
	l, err := parseListing(r)
	if err != nil {
		return nil, err
	}
	eng := c.cfg.Engine()
	var infos []engine.Info
	next := ""
	if l.sort == "name" {
		after, err := c.cursors.open(l.after)
		if err != nil {
			return nil, badRequest(err.Error())
		}
		p := eng.PageByName(after, l.limit, maxScan, func(key string, acl engine.ACL) bool {
			return strings.Contains(key, l.search) && v.privileges(acl) != 0
		})
		infos, next = p.Infos, c.cursors.seal(p.Next)
	} else {
		infos = mostUsed(eng, v, l)
		if len(infos) == l.limit {
			next = strconv.Itoa(l.offset + l.limit)
		}
	}
	rows := make([]row, 0, len(infos))
	for _, info := range infos {
		rows = append(rows, c.rowOf(info))
	}
	return map[string]any{"sequences": rows, "next": next, "total": eng.Count()}, nil
}

// mostUsed is the page of the sequences that used the largest share of
// their range, which the viewer may see: a pass over every sequence
// that keeps offset+limit of them.
func mostUsed(eng *engine.Engine, v *viewer, l listing) []engine.Info {
	keep := l.offset + l.limit
	h := &useHeap{}
	eng.EachUse(func(u engine.Use) {
		share := u.Used / u.Total
		if h.Len() == keep && share <= (*h)[0].share {
			return
		}
		n := u.Name()
		if !strings.Contains(n.String(), l.search) || !v.maySee(eng, n) {
			return
		}
		heap.Push(h, shared{n, share})
		if h.Len() > keep {
			heap.Pop(h)
		}
	})
	names := make([]string, h.Len())
	for i := len(names) - 1; i >= 0; i-- {
		names[i] = heap.Pop(h).(shared).name.String()
	}
	if l.offset >= len(names) {
		return nil
	}
	return eng.Describe(names[l.offset:])
}

// maySee reports whether the viewer holds a privilege on n.
func (v *viewer) maySee(eng *engine.Engine, n engine.Name) bool {
	if v.superuser {
		return true
	}
	acl, err := eng.ACL(n)
	return err == nil && v.privileges(acl) != 0
}

type shared struct {
	name  engine.Name
	share float64
}

// useHeap is a min-heap by share.
type useHeap []shared

func (h useHeap) Len() int           { return len(h) }
func (h useHeap) Less(i, j int) bool { return h[i].share < h[j].share }
func (h useHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *useHeap) Push(x any)        { *h = append(*h, x.(shared)) }
func (h *useHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
