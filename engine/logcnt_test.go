package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/seqmath"
)

// TestLogCnt: log_cnt after the statements of each story is PostgreSQL
// 15's, as its server showed it for the same statements in one session
// (compat's TestLogCntOracle compares the two live).
func TestLogCnt(t *testing.T) {
	type step struct {
		op   string // "next N", "setval V true|false", "alter <spec>", "reserve N"
		want int64
	}
	for _, tc := range []struct {
		name     string
		spec     seqmath.Spec
		unlogged bool
		steps    []step
	}{
		{"cache 1", seqmath.Spec{}, false, []step{{"", 0}, {"next 1", 32}, {"next 1", 31}, {"next 31", 0}, {"next 1", 32}}},
		{"cache 10", seqmath.Spec{Cache: i64(10)}, false, []step{{"next 1", 32}, {"next 9", 32}, {"next 1", 22}, {"next 10", 12}, {"next 10", 2}, {"next 10", 32}}},
		{"cache 20", seqmath.Spec{Cache: i64(20)}, false, []step{{"next 1", 32}, {"next 20", 12}, {"next 20", 32}}},
		{"cache 40", seqmath.Spec{Cache: i64(40)}, false, []step{{"next 1", 32}, {"next 39", 32}, {"next 1", 32}}},
		{"setval", seqmath.Spec{}, false, []step{{"next 3", 30}, {"setval 100 true", 0}, {"next 1", 32}, {"setval 100 false", 0}, {"next 1", 32}, {"next 1", 31}}},
		{"restart", seqmath.Spec{}, false, []step{{"next 3", 30}, {"alter restart", 0}, {"next 2", 31}}},
		{"increment", seqmath.Spec{}, false, []step{{"next 2", 31}, {"alter increment", 0}, {"next 1", 32}, {"next 1", 31}, {"alter start", 31}, {"next 1", 30}}},
		{"cache altered", seqmath.Spec{}, false, []step{{"next 2", 31}, {"alter cache", 0}, {"next 1", 32}, {"next 2", 32}, {"next 1", 29}}},
		{"descending", seqmath.Spec{Increment: i64(-3)}, false, []step{{"next 2", 31}}},
		{"maxvalue", seqmath.Spec{Max: i64(5)}, false, []step{{"next 1", 4}, {"next 1", 3}, {"next 3", 0}}},
		{"cycle", seqmath.Spec{Max: i64(5), Cycle: boolp(true)}, false, []step{{"next 5", 0}, {"next 1", 4}, {"next 1", 3}}},
		{"cycle cache 10", seqmath.Spec{Max: i64(40), Cache: i64(10), Cycle: boolp(true)}, false, []step{{"next 1", 30}, {"next 10", 20}, {"next 30", 30}}},
		{"unlogged", seqmath.Spec{}, true, []step{{"next 2", 32}, {"next 1", 32}}},
		{"unlogged near the limit", seqmath.Spec{Max: i64(10)}, true, []step{{"next 2", 8}}},
		{"a range", seqmath.Spec{}, false, []step{{"reserve 1000000", 32 - (1000000-1)%33}, {"next 1", 32 - 1000000%33}}},
		{"a range to the limit", seqmath.Spec{Max: i64(1000)}, false, []step{{"reserve 960", 30}, {"reserve 31", 9}, {"next 9", 0}}},
		{"a range at cache 10", seqmath.Spec{Cache: i64(10)}, false, []step{{"reserve 95", 22}, {"next 5", 22}, {"next 1", 12}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := openFS(t, vfs.NewMem())
			defer e.Close()
			n := mustName(t, "s")
			if _, err := e.CreateWith(ctx, n, tc.spec, CreateOptions{Unlogged: tc.unlogged}); err != nil {
				t.Fatal(err)
			}
			var done []string
			for _, st := range tc.steps {
				runLogStep(t, e, n, st.op)
				done = append(done, st.op)
				info, err := e.Info(n)
				if err != nil {
					t.Fatal(err)
				}
				if info.LogCnt != st.want {
					t.Fatalf("after %s: log_cnt %d, want %d", strings.Join(done, ", "), info.LogCnt, st.want)
				}
			}
		})
	}
}

// runLogStep runs one step of TestLogCnt's stories.
func runLogStep(t *testing.T, e *Engine, n Name, op string) {
	t.Helper()
	var k int64
	var word string
	switch {
	case op == "":
	case strings.HasPrefix(op, "next "):
		fmt.Sscan(op[5:], &k)
		for range k {
			next(t, e, n)
		}
	case strings.HasPrefix(op, "reserve "):
		fmt.Sscan(op[8:], &k)
		if _, _, err := e.Reserve(ctx, n, k); err != nil {
			t.Fatal(err)
		}
	case strings.HasPrefix(op, "setval "):
		var called bool
		fmt.Sscan(op[7:], &k, &called)
		if _, err := e.Setval(ctx, n, k, called); err != nil {
			t.Fatal(err)
		}
	case strings.HasPrefix(op, "alter "):
		fmt.Sscan(op[6:], &word)
		spec := map[string]seqmath.Spec{"restart": {Restart: true}, "increment": {Increment: i64(2)}, "start": {Start: i64(5)}, "cache": {Cache: i64(3)}}[word]
		if err := e.Alter(ctx, n, spec); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("unknown step %q", op)
	}
}

func boolp(b bool) *bool { return &b }
