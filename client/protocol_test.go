package client

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/seqd/seqd/seqmath"
)

// vectors are testdata/protocol.json, the conformance vectors every
// client reads (docs/protocol.md); integers are decimal strings.
type vectors struct {
	Ranges []struct {
		First, Last, Increment, Count string
		Values                        []string
		TailAfter                     []struct{ Used, First string } `json:"tail_after"`
	}
	Shapes []struct {
		Shape, Counter, Value string
		Skipped               bool
	}
	ShapeRanges []struct {
		Shape, First, Last string
		Values             []string
	} `json:"shape_ranges"`
	InvalidShapes []string                       `json:"invalid_shapes"`
	ShapeTexts    []struct{ Text, Shape string } `json:"shape_texts"`
	Release       []struct {
		Current, Prefetched *struct{ First, Last, Increment string }
		UsedCounters        string `json:"used_counters"`
		Release             []struct{ First, Last string }
	}
	Errors []struct{ SQLState, Kind, Retry string }
}

func loadVectors(t *testing.T) vectors {
	t.Helper()
	b, err := os.ReadFile("../testdata/protocol.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Ranges) == 0 || len(v.Shapes) == 0 || len(v.ShapeRanges) == 0 || len(v.Release) == 0 || len(v.Errors) == 0 ||
		len(v.InvalidShapes) == 0 || len(v.ShapeTexts) == 0 {
		t.Fatal("empty vectors")
	}
	return v
}

func num(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestProtocolRanges(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Ranges {
		r := Range{First: num(t, c.First), Last: num(t, c.Last), Step: num(t, c.Increment)}
		if got := r.Count(); got != num(t, c.Count) {
			t.Errorf("%+v: Count = %d, want %s", r, got, c.Count)
		}
		for i, w := range c.Values {
			if got := r.At(int64(i)); got != num(t, w) {
				t.Errorf("%+v: At(%d) = %d, want %s", r, i, got, w)
			}
		}
		for _, ta := range c.TailAfter {
			tail, ok := r.tail(num(t, ta.Used))
			if !ok || tail.First != num(t, ta.First) || tail.Last != r.Last {
				t.Errorf("%+v: tail after %s = %+v, %v; want from %s", r, ta.Used, tail, ok, ta.First)
			}
		}
	}
}

func TestProtocolShapes(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Shapes {
		sh, err := seqmath.ParseShape(c.Shape)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Range{Shape: sh}.Value(num(t, c.Counter))
		if sh.Shaped() && got != num(t, c.Value) || !sh.Shaped() && got != num(t, c.Counter) || ok == c.Skipped {
			t.Errorf("%s: counter %s = %d (value %v), want %s (skipped %v)", c.Shape, c.Counter, got, ok, c.Value, c.Skipped)
		}
	}
	for _, c := range v.ShapeRanges {
		sh, err := seqmath.ParseShape(c.Shape)
		if err != nil {
			t.Fatal(err)
		}
		r := Range{First: num(t, c.First), Last: num(t, c.Last), Step: 1, Shape: sh}
		var got []string
		for i := range r.Count() {
			if v, ok := r.Value(r.At(i)); ok {
				got = append(got, strconv.FormatInt(v, 10))
			}
		}
		if len(got) != len(c.Values) {
			t.Fatalf("%s %s..%s: %v, want %v", c.Shape, c.First, c.Last, got, c.Values)
		}
		for i := range got {
			if got[i] != c.Values[i] {
				t.Fatalf("%s %s..%s: %v, want %v", c.Shape, c.First, c.Last, got, c.Values)
			}
		}
	}
}

// TestProtocolShapeTexts checks that seqd's parser agrees with the
// vectors on what is a shape: the invalid texts are refused, the others
// read as the shape seqd writes.
func TestProtocolShapeTexts(t *testing.T) {
	v := loadVectors(t)
	for _, text := range v.InvalidShapes {
		if sh, err := seqmath.ParseShape(text); err == nil {
			t.Errorf("%q: read as %q, want an error", text, sh)
		}
	}
	for _, c := range v.ShapeTexts {
		sh, err := seqmath.ParseShape(c.Text)
		if err != nil || sh.String() != c.Shape {
			t.Errorf("%q: %q, %v; want %q", c.Text, sh, err, c.Shape)
		}
	}
	for _, c := range v.Shapes {
		if sh, err := seqmath.ParseShape(c.Shape); err != nil || sh.String() != c.Shape {
			t.Errorf("%q: written as %q, %v", c.Shape, sh, err)
		}
	}
}

// releaseRecorder is a Source that records the ranges given back.
type releaseRecorder struct {
	mu       sync.Mutex
	released []Range
}

func (*releaseRecorder) Create(context.Context, string, int64) error { return nil }
func (*releaseRecorder) Reserve(context.Context, string, int64) (Range, error) {
	return Range{}, errors.New("not used")
}
func (r *releaseRecorder) Release(_ context.Context, _ string, rg Range) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.released = append(r.released, rg)
	return true, nil
}

func TestProtocolRelease(t *testing.T) {
	v := loadVectors(t)
	for i, c := range v.Release {
		src := &releaseRecorder{}
		b := NewBatch(src, "s", BatchOptions{Size: 10})
		b.mu.Lock()
		b.setCurLocked(Range{First: num(t, c.Current.First), Last: num(t, c.Current.Last), Step: num(t, c.Current.Increment)})
		b.used = num(t, c.UsedCounters)
		if p := c.Prefetched; p != nil {
			b.next, b.hasNext = Range{First: num(t, p.First), Last: num(t, p.Last), Step: num(t, p.Increment)}, true
		}
		b.mu.Unlock()
		if err := b.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(src.released) != len(c.Release) {
			t.Fatalf("case %d: released %+v, want %+v", i, src.released, c.Release)
		}
		for j, w := range c.Release {
			if got := src.released[j]; got.First != num(t, w.First) || got.Last != num(t, w.Last) {
				t.Fatalf("case %d: release %d = %+v, want %s..%s", i, j, got, w.First, w.Last)
			}
		}
	}
}

// sqlStateError is a driver error with an SQLSTATE, as pgx's and lib/pq's.
type sqlStateError string

func (e sqlStateError) Error() string    { return "error " + string(e) }
func (e sqlStateError) SQLState() string { return string(e) }

func TestProtocolErrors(t *testing.T) {
	v := loadVectors(t)
	kinds := map[string]error{"not_found": ErrNotFound, "limit_reached": ErrLimitReached, "invalid": ErrInvalid,
		"auth": ErrAuth, "conflict": ErrConflict, "unavailable": ErrUnavailable, "other": nil}
	for _, c := range v.Errors {
		want, ok := kinds[c.Kind]
		if !ok {
			t.Fatalf("unknown kind %q", c.Kind)
		}
		if got := kindOf(sqlStateError(c.SQLState)); got != want {
			t.Errorf("%s: %v, want %v (%s)", c.SQLState, got, want, c.Kind)
		}
		// Over the HTTP API the SQLSTATE comes in the problem: the same
		// kind (SeqdHTTP's errors).
		if got := kindOf(&apiError{Status: 400, Code: c.SQLState, Detail: "x"}); got != want {
			t.Errorf("%s over HTTP: %v, want %v (%s)", c.SQLState, got, want, c.Kind)
		}
		// Only the kinds the table calls transient may be retried.
		transient := want == ErrConflict || want == ErrUnavailable
		if transient != (c.Retry != "no") {
			t.Errorf("%s: kind %s but retry %q", c.SQLState, c.Kind, c.Retry)
		}
	}
}
