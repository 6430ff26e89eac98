package torture

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPartialPartition: the links each partial partition cuts, with the
// members laid out in order, and for any layout a ring of five in which
// every member sees a majority (itself and its two neighbours), no two
// the same one.
func TestPartialPartition(t *testing.T) {
	for _, tc := range []struct {
		fault string
		n     int
		want  [][2]int
	}{
		{EtcdBridge, 3, [][2]int{{0, 2}}},
		{EtcdBridge, 5, [][2]int{{0, 3}, {0, 4}, {1, 3}, {1, 4}}},
		{EtcdRing, 3, nil},
		{EtcdRing, 5, [][2]int{{0, 2}, {0, 3}, {1, 3}, {1, 4}, {2, 4}}},
		{EtcdHalves, 5, [][2]int{{0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}}},
	} {
		perm := make([]int, tc.n)
		for i := range perm {
			perm[i] = i
		}
		if got := partialPartition(tc.fault, perm); !slices.Equal(got, tc.want) {
			t.Errorf("%s of %d: %v, want %v", tc.fault, tc.n, got, tc.want)
		}
	}
	for range 20 {
		perm := rand.Perm(5)
		cut := map[[2]int]bool{}
		for _, l := range partialPartition(EtcdRing, perm) {
			cut[l] = true
		}
		seen := map[string]bool{}
		for i := range 5 {
			var sees []int
			for j := range 5 {
				if i == j || !cut[[2]int{min(i, j), max(i, j)}] {
					sees = append(sees, j)
				}
			}
			if len(sees) != 3 || seen[fmt.Sprint(sees)] {
				t.Fatalf("ring %v: member %d sees %v", perm, i, sees)
			}
			seen[fmt.Sprint(sees)] = true
		}
	}
}
