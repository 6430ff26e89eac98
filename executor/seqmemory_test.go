package executor

import "testing"

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
