package torture

import (
	"strings"
	"testing"
	"time"
)

// The checkers must find what they look for: each gets a history with one
// planted violation and the same history without it.

var up = Seq{"s", 1}

func nv(client int, call, ret int64, v int64) Op {
	return Op{Seq: "s", Kind: Nextval, Client: client, Want: 1, Call: call, Return: ret, Values: []int64{v}}
}

func expect(t *testing.T, what string, got []string, want int, substr string) {
	t.Helper()
	if len(got) != want {
		t.Fatalf("%s: %d violations, want %d: %q", what, len(got), want, got)
	}
	for _, g := range got {
		if !strings.Contains(g, substr) {
			t.Errorf("%s: %q lacks %q", what, g, substr)
		}
	}
}

func TestCheckUnique(t *testing.T) {
	ops := []Op{nv(0, 0, 1, 1), nv(1, 0, 1, 2), {Seq: "s", Kind: Range, Values: []int64{3, 4, 5}, Outcome: OK}}
	expect(t, "distinct", CheckUnique(ops), 0, "")
	// A value that arrived on a request whose outcome is unknown counts.
	ops = append(ops, Op{Seq: "s", Kind: Bulk, Outcome: Unknown, Values: []int64{6, 4}, Times: []int64{2, 2}})
	expect(t, "repeated", CheckUnique(ops), 1, "returned 4 more than once")
}

func TestCheckOrder(t *testing.T) {
	good := []Op{nv(0, 0, 5, 10), nv(1, 4, 8, 9), nv(2, 6, 9, 11)}
	expect(t, "concurrent", CheckOrder(good, []Seq{up}), 0, "")
	if v, _, err := CheckLinearizable(good, []Seq{up}, time.Second); err != nil || len(v) != 0 {
		t.Fatalf("porcupine on a linearizable history: %v %v", v, err)
	}
	bad := []Op{nv(0, 0, 5, 10), nv(1, 6, 8, 9)}
	expect(t, "stale", CheckOrder(bad, []Seq{up}), 1, "returned 9, but nextval by client 0 had returned 10")
	if v, _, err := CheckLinearizable(bad, []Seq{up}, time.Second); err != nil || len(v) != 1 {
		t.Fatalf("porcupine on a stale read: %v %v", v, err)
	}
	// A setval that completed before a nextval is called bounds it.
	set := []Op{{Seq: "s", Kind: Setval, Call: 0, Return: 1, Values: []int64{1000}}, nv(0, 2, 3, 500)}
	expect(t, "after setval", CheckOrder(set, []Seq{up}), 1, "had returned 1000")
	if v, _, _ := CheckLinearizable(set, []Seq{up}, time.Second); len(v) != 1 {
		t.Fatalf("porcupine after setval: %v", v)
	}
	// Rows of one generate_series rise, and each is done when it arrives.
	rows := []Op{{Seq: "s", Kind: Bulk, Want: 3, Call: 0, Return: 10, Values: []int64{1, 3, 2}, Times: []int64{1, 2, 3}}}
	expect(t, "falling rows", CheckOrder(rows, []Seq{up}), 1, "returned 2 after 3 in one response")
	rows = []Op{{Seq: "s", Kind: Bulk, Want: 2, Call: 0, Return: 10, Values: []int64{5, 6}, Times: []int64{1, 9}}, nv(1, 2, 3, 4)}
	expect(t, "after a row", CheckOrder(rows, []Seq{up}), 1, "had returned 5")
	// A descending sequence is checked in its direction.
	down := Seq{"s", -1}
	expect(t, "descending", CheckOrder([]Op{nv(0, 0, 1, -5), nv(0, 2, 3, -6)}, []Seq{down}), 0, "")
	expect(t, "descending stale", CheckOrder([]Op{nv(0, 0, 1, -5), nv(0, 2, 3, -4)}, []Seq{down}), 1, "returned -4")
	// An unknown outcome without values constrains nothing.
	unk := []Op{nv(0, 0, 5, 10), {Seq: "s", Kind: Nextval, Want: 1, Call: 6, Outcome: Unknown}, nv(1, 7, 8, 11)}
	expect(t, "unknown", CheckOrder(unk, []Seq{up}), 0, "")
	if v, _, err := CheckLinearizable(unk, []Seq{up}, time.Second); err != nil || len(v) != 0 {
		t.Fatalf("porcupine with an unknown outcome: %v %v", v, err)
	}
}

func TestCheckGaps(t *testing.T) {
	ops := []Op{nv(0, 0, 1, 100)}
	crash := func(probe int64) Restart {
		return Restart{Epoch: 0, Cache: map[string]int64{"s": 10}, Probe: map[string]int64{"s": probe}}
	}
	gaps := func(r Restart) []string {
		v, _ := CheckGaps(ops, []Seq{up}, []Restart{r})
		return v
	}
	expect(t, "within CACHE", gaps(crash(110)), 0, "")
	expect(t, "beyond CACHE", gaps(crash(111)), 1, "10 skipped, at most 9 allowed")
	expect(t, "backwards", gaps(crash(100)), 1, "resumed at 100 after 100")
	clean := Restart{Epoch: 0, Clean: true, Cache: map[string]int64{"s": 10}, Probe: map[string]int64{"s": 102}}
	expect(t, "clean", gaps(clean), 1, "clean stop")
	// A request that got no answer may have consumed what it asked for.
	ops = append(ops, Op{Seq: "s", Kind: Range, Want: 5, Outcome: Unknown})
	expect(t, "unanswered", gaps(crash(115)), 0, "")
	expect(t, "unanswered", gaps(crash(116)), 1, "15 skipped, at most 14 allowed")
	// The skip reported is what CACHE bounds: beyond the unanswered values.
	if _, skip := CheckGaps(ops, []Seq{up}, []Restart{crash(115)}); skip["s"] != 9 {
		t.Errorf("skip beyond unanswered requests: %d, want 9", skip["s"])
	}
}

func TestCatalogVerify(t *testing.T) {
	a, b := SeqDef{Inc: 1, Cache: 1, Max: 10}, SeqDef{Inc: 2, Cache: 20, Max: 30}
	c := NewCatalog()
	c.Send("x", &a)
	c.Answer(true)
	c.Send("y", &b)
	c.Answer(true)
	expect(t, "as acknowledged", c.Verify(map[string]SeqDef{"x": a, "y": b}), 0, "")
	expect(t, "lost create", c.Verify(map[string]SeqDef{"x": a}), 1, "acknowledged sequence y")
	expect(t, "lost alter", c.Verify(map[string]SeqDef{"x": a, "y": a}), 1, "but")
	c.Send("y", nil)
	c.Answer(true)
	expect(t, "dropped is back", c.Verify(map[string]SeqDef{"x": a, "y": b}), 1, "dropped sequence y is back")
	// The statement in flight at a crash may go either way.
	c.Send("x", nil)
	expect(t, "pending drop done", c.Verify(map[string]SeqDef{}), 0, "")
	c.Send("x", &b)
	expect(t, "pending create lost", c.Verify(map[string]SeqDef{}), 0, "")
	c.Send("x", &b)
	expect(t, "pending create done", c.Verify(map[string]SeqDef{"x": b}), 0, "")
	expect(t, "then acknowledged", c.Verify(map[string]SeqDef{}), 1, "acknowledged sequence x")

	// A block's COMMIT in flight: all of it or none of it.
	c = NewCatalog()
	c.Send("x", &a)
	c.Answer(true)
	block := map[string]*SeqDef{"x": nil, "y": &a, "z": &b}
	c.SendBlock(block)
	expect(t, "pending block lost", c.Verify(map[string]SeqDef{"x": a}), 0, "")
	c.SendBlock(block)
	expect(t, "pending block in part", c.Verify(map[string]SeqDef{"y": a}), 1, "took effect in part")
	c.SendBlock(block)
	expect(t, "pending block done", c.Verify(map[string]SeqDef{"y": a, "z": b}), 0, "")
	expect(t, "then acknowledged", c.Verify(map[string]SeqDef{"y": a, "z": b}), 0, "")
	c.SendBlock(map[string]*SeqDef{"y": nil})
	c.Answer(false)
	expect(t, "refused block", c.Verify(map[string]SeqDef{"z": b}), 1, "acknowledged sequence y")
}

func TestCheckNodeOrder(t *testing.T) {
	on := func(node, client int, call, ret, v int64) Op {
		op := nv(client, call, ret, v)
		op.Outcome, op.Node = OK, node
		return op
	}
	// Each node's values rise in real time; across nodes anything goes;
	// overlapping requests of one node are not ordered.
	good := []Op{on(0, 0, 0, 1, 100), on(1, 1, 0, 1, 5), on(0, 0, 2, 3, 101), on(1, 1, 2, 3, 6), on(0, 2, 2, 4, 150), on(0, 3, 3, 5, 120)}
	expect(t, "per node", CheckNodeOrder(good, "s"), 0, "")
	bad := append(good, on(1, 1, 4, 5, 4))
	expect(t, "node 1 went back", CheckNodeOrder(bad, "s"), 1, "node 1 gave 4 (client 1) after 6")
	expect(t, "another sequence", CheckNodeOrder(bad, "t"), 0, "")
}

func TestCheckFailoverGap(t *testing.T) {
	// 1..10, then 31: a skip of 20 values.
	var ops []Op
	for v := int64(1); v <= 10; v++ {
		ops = append(ops, nv(0, v, v, v))
	}
	ops = append(ops, nv(0, 11, 11, 31))
	gap := func(cache int64) []string {
		g, v := CheckFailoverGap(ops, "s", cache)
		if g != 20 {
			t.Fatalf("largest skip %d, want 20", g)
		}
		return v
	}
	expect(t, "within CACHE", gap(20), 0, "")
	expect(t, "beyond CACHE", gap(19), 1, "skipped 20 values at once, more than CACHE 19")
	// A request of unknown outcome may have taken one value unseen.
	ops = append(ops, Op{Seq: "s", Kind: Nextval, Want: 1, Outcome: Unknown})
	expect(t, "one unanswered", gap(19), 0, "")
	expect(t, "one unanswered", gap(18), 1, "the 1 requests of unknown outcome")
}

func TestCheckBurned(t *testing.T) {
	// Values 1..100 and 201..250 handed out: 100 burned below 250.
	var ops []Op
	for v := int64(1); v <= 250; v++ {
		if v <= 100 || v > 200 {
			ops = append(ops, nv(0, v, v, v))
		}
	}
	burned := func(deaths, nodes int) []string {
		b, v := CheckBurned(ops, "s", 25, deaths, nodes)
		if b != 100 {
			t.Fatalf("burned %d, want 100", b)
		}
		return v
	}
	// A node holds at most two blocks (one reserved ahead).
	expect(t, "two blocks for each of 1 node and 1 death", burned(1, 1), 0, "")
	expect(t, "beyond two blocks for 1 node", burned(0, 1), 1, "skipped 100 values, more than two blocks (25) for each of 0 nodes that died and 1 nodes")
	ops = append(ops, Op{Seq: "s", Kind: Nextval, Want: 1, Outcome: Unknown}, Op{Seq: "s", Kind: Nextval, Want: 1, Outcome: Unknown})
	expect(t, "two unanswered requests' blocks", burned(0, 1), 0, "")
}
