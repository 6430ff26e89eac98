package engine

// NodeBlock is what a node holds of a NOORDER sequence's values: the
// last value it handed out from its block (or the block's start, not
// called), how many of the block remain, and how many a block reserved
// ahead holds (0: none).
type NodeBlock struct {
	Last      int64
	Called    bool
	Remaining int64
	Ahead     int64
}

// BlockOf is the node's block of the sequence of ID id (for the operator
// console); ok is false when it holds none.
func (r *Ranges) BlockOf(id uint64) (b NodeBlock, ok bool) {
	r.mu.Lock()
	blk := r.blocks[id]
	r.mu.Unlock() // before the block's mu: that one is taken first
	if blk == nil {
		return NodeBlock{}, false
	}
	blk.mu.Lock()
	defer blk.mu.Unlock()
	b = NodeBlock{Last: blk.cur.Last, Called: blk.cur.Called, Remaining: blk.remaining}
	if blk.next != nil {
		b.Ahead = blk.next.remaining
	}
	return b, b.Remaining > 0 || blk.next != nil
}
