package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage/memstore"
)

// TestPageByName pages through sequences in the catalog's order (name,
// then schema), keeping what keep accepts and resuming where a page or a
// scan ended.
func TestPageByName(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, schema := range []string{"a", "b"} {
		if _, err := e.CreateSchema(ctx, schema, "", false); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"b.s1", "a.s1", "a.s2", "a.t1", "b.t2", "a.u1"} {
		n, _ := NameFromKey(key)
		if _, err := e.Create(ctx, n, seqmath.Spec{}, false); err != nil {
			t.Fatal(err)
		}
	}
	all := func(string, ACL) bool { return true }
	onlyT := func(key string, _ ACL) bool { return strings.Contains(key, ".t") }
	for _, tc := range []struct {
		after       string
		limit, scan int
		keep        func(string, ACL) bool
		want, next  string
	}{
		{"", 10, 10, all, "a.s1 b.s1 a.s2 a.t1 b.t2 a.u1", ""},
		{"", 2, 10, all, "a.s1 b.s1", "b.s1"},
		{"b.s1", 2, 10, all, "a.s2 a.t1", "a.t1"},
		{"a.t1", 2, 10, all, "b.t2 a.u1", ""},
		{"", 10, 10, onlyT, "a.t1 b.t2", ""},
		{"", 10, 3, onlyT, "", "a.s2"},          // the scan ran out first
		{"a.s2", 10, 3, onlyT, "a.t1 b.t2", ""}, // the last three keys
		{"a.s2", 10, 2, onlyT, "a.t1 b.t2", "b.t2"},
	} {
		p := e.PageByName(tc.after, tc.limit, tc.scan, tc.keep)
		var got []string
		for _, i := range p.Infos {
			got = append(got, i.Name.String())
		}
		if strings.Join(got, " ") != tc.want || p.Next != tc.next {
			t.Errorf("after %q, limit %d, scan %d: %v next %q, want %s next %q", tc.after, tc.limit, tc.scan, got, p.Next, tc.want, tc.next)
		}
	}
}
