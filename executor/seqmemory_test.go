package executor

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
)

func TestSeqMemory(t *testing.T) {
	var s seqMemory
	if _, ok := s.Currval(1); ok {
		t.Fatal("currval defined in a new session")
	}
	if _, _, ok := s.Lastval(); ok {
		t.Fatal("lastval defined in a new session")
	}
	s.Nextval(1, 10)
	s.Nextval(2, 20)
	s.Setval(1, 99)
	if v, _ := s.Currval(1); v != 99 {
		t.Fatalf("currval after setval = %d", v)
	}
	if id, v, _ := s.Lastval(); id != 2 || v != 20 {
		t.Fatalf("lastval = %d %d", id, v)
	}
	s.Setval(2, 7)
	if _, v, _ := s.Lastval(); v != 7 {
		t.Fatalf("lastval after setval of its sequence = %d", v)
	}
}

// TestPlanCacheBytes: a session's plan cache stays within its byte
// bound however many distinct large statements it runs.
func TestPlanCacheBytes(t *testing.T) {
	s, err := NewSession(Config{Engine: testenv.MemEngine(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 200 {
		q := fmt.Sprintf("select %d in (", i) + strings.Repeat("1,", 2000) + "1)"
		st, err := pgsql.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		if st[0].Cost == 0 {
			t.Fatal("a cached statement without its cost")
		}
		p, err := s.PrepareCached(&st[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Execute(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
		if s.planBytes > maxPlanBytes {
			t.Fatalf("after %d statements the plans hold %d bytes, over %d", i+1, s.planBytes, maxPlanBytes)
		}
	}
	if len(s.plans) == 0 {
		t.Fatal("no plan cached")
	}
}
