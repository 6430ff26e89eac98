package executor

// seqMemory is a session's memory of the values it obtained, which currval
// and lastval read. Keys are sequence IDs, which are never reused, so a
// sequence dropped and created again under the same name is a new
// sequence, as in PostgreSQL. The zero value is ready to use. It is not
// safe for concurrent use: it belongs to one session.
type seqMemory struct {
	values   map[uint64]int64
	lastID   uint64
	haveLast bool
}

// Nextval records a value nextval returned; lastval follows it.
func (s *seqMemory) Nextval(id uint64, v int64) {
	s.set(id, v)
	s.lastID, s.haveLast = id, true
}

// Setval records setval(..., is_called => true): currval changes, and so does
// lastval if it refers to this sequence, but lastval does not move to it.
func (s *seqMemory) Setval(id uint64, v int64) { s.set(id, v) }

func (s *seqMemory) set(id uint64, v int64) {
	if s.values == nil {
		s.values = make(map[uint64]int64)
	}
	s.values[id] = v
}

// Currval is the last value this session obtained from the sequence.
func (s *seqMemory) Currval(id uint64) (int64, bool) {
	v, ok := s.values[id]
	return v, ok
}

// Lastval is the sequence and value of the most recent nextval.
func (s *seqMemory) Lastval() (id uint64, v int64, ok bool) {
	if !s.haveLast {
		return 0, 0, false
	}
	return s.lastID, s.values[s.lastID], true
}
