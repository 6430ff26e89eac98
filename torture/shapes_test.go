package torture

import "testing"

// TestShapedRanks: rank and counter are inverse over the counters whose
// values are not skipped, and ranks are consecutive.
func TestShapedRanks(t *testing.T) {
	for name, sh := range shapedSeqs {
		want := int64(1)
		for c := int64(1); c <= 5000; c++ {
			if sh.shape.Skipped(sh.shape.Value(c)) {
				continue
			}
			if k := sh.rank(c); k != want || sh.counter(k) != c {
				t.Fatalf("%s: counter %d has rank %d (want %d), which maps back to %d", name, c, k, want, sh.counter(k))
			}
			want++
		}
	}
}
