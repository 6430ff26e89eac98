// OIDs: the numbers pg_catalog gives sequences, schemas and roles, made
// on first sight and kept for the process, shared by the sessions of one
// catalog (engine.Lineage: a cluster node's snapshots and terms are one).

package executor

import (
	"sync"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
)

// oidRegistry gives sequences and schemas the object IDs the catalog
// shows. A sequence keeps its OID for the life of the process (sequence
// IDs are never reused, so a sequence dropped and created again gets a
// new one); OIDs are not kept across restarts, which clients do not
// assume for relations. It is safe for concurrent use.
//
// The catalog's own sequences (a million entries after one scan of the
// catalog at a million sequences) are kept without a pointer: the
// collector neither walks those maps nor visits a name per entry, which
// cost every collection of such a heap about a third of its CPU. A
// session's temporary sequences, few, are kept apart.
type oidRegistry struct {
	mu    sync.Mutex
	byID  map[uint64]uint32 // the catalog's sequences: ID -> OID
	seqs  map[uint32]oidSeq // OID -> the catalog's sequence
	names nameArena         // their names
	// temp and tempSeqs are the same for sessions' temporary sequences.
	temp     map[seqKey]uint32
	tempSeqs map[uint32]oidEntry
	schemas  map[string]uint32
	next     uint32
}

// seqKey names a session's temporary sequence: eng is the session's
// temporary engine.
type seqKey struct {
	eng *engine.Engine
	id  uint64
}

type oidEntry struct {
	seqKey
	name engine.Name
}

// oidSeq is one of the catalog's sequences: its ID and where its name
// is in the registry's arena.
type oidSeq struct {
	id   uint64
	name nameRef
}

// firstUserOID is PostgreSQL's FirstNormalObjectId.
const firstUserOID = 16384

// newOIDRegistry is a registry with the OIDs that are PostgreSQL's own:
// its schemas', and pg_monitor's, the predefined role seqd makes (CREATE
// ROLE refuses its name, so no other role can take it).
func newOIDRegistry() *oidRegistry {
	return &oidRegistry{byID: map[uint64]uint32{}, seqs: map[uint32]oidSeq{},
		temp: map[seqKey]uint32{}, tempSeqs: map[uint32]oidEntry{}, next: firstUserOID,
		schemas: map[string]uint32{"pg_catalog": 11, "pg_toast": 99, "public": 2200, "information_schema": 13207,
			roleOIDPrefix + "pg_monitor": catalog.MonitorOID}}
}

// registries holds one OID registry per catalog: sessions of one share
// OIDs, also as a follower's snapshots replace one another; catalogs in
// one process (tests) do not.
var registries sync.Map // engine.Lineage() -> *oidRegistry

func (s *Session) oids() *oidRegistry {
	if s.reg == nil {
		r, _ := registries.LoadOrStore(s.eng.Lineage(), newOIDRegistry())
		s.reg = r.(*oidRegistry)
	}
	return s.reg
}

// oidEng is eng as the registry keys its sequences: nil for the
// session's catalog, the engine itself for its temporary one.
func (s *Session) oidEng(eng *engine.Engine) *engine.Engine {
	if eng == s.eng {
		return nil
	}
	return eng
}

func (r *oidRegistry) forSequence(eng *engine.Engine, info engine.Info) uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if eng != nil {
		k := seqKey{eng, info.ID}
		if oid, ok := r.temp[k]; ok {
			return oid
		}
		oid := r.nextLocked()
		r.temp[k] = oid
		r.tempSeqs[oid] = oidEntry{seqKey: k, name: info.Name}
		return oid
	}
	if oid, ok := r.byID[info.ID]; ok {
		return oid
	}
	oid := r.nextLocked()
	r.byID[info.ID] = oid
	r.seqs[oid] = oidSeq{id: info.ID, name: r.names.add(info.Name)}
	return oid
}

func (r *oidRegistry) nextLocked() uint32 {
	oid := r.next
	r.next++
	return oid
}

// forget drops the OIDs of an engine's sequences (a session's temporary
// engine, when it goes) or of one sequence (id != 0, when it is dropped).
func (r *oidRegistry) forget(eng *engine.Engine, id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case eng == nil:
		if oid, ok := r.byID[id]; ok {
			r.names.drop(r.seqs[oid].name)
			delete(r.seqs, oid)
			delete(r.byID, id)
			r.compactLocked()
		}
	case id != 0:
		k := seqKey{eng, id}
		delete(r.tempSeqs, r.temp[k])
		delete(r.temp, k)
	default:
		for k, oid := range r.temp {
			if k.eng == eng {
				delete(r.temp, k)
				delete(r.tempSeqs, oid)
			}
		}
	}
}

// renamed points a sequence's OID at its new name.
func (r *oidRegistry) renamed(eng *engine.Engine, id uint64, to engine.Name) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if eng != nil {
		k := seqKey{eng, id}
		if oid, ok := r.temp[k]; ok {
			r.tempSeqs[oid] = oidEntry{seqKey: k, name: to}
		}
		return
	}
	if oid, ok := r.byID[id]; ok {
		e := r.seqs[oid]
		r.names.drop(e.name)
		e.name = r.names.add(to)
		r.seqs[oid] = e
		r.compactLocked()
	}
}

// compactLocked copies the names in use to a new arena once the old one
// is mostly names dropped or renamed: the arena stays within about twice
// what is in use.
func (r *oidRegistry) compactLocked() {
	if !r.names.wasteful() {
		return
	}
	var c nameArena
	for oid, e := range r.seqs {
		e.name = c.add(r.names.name(e.name))
		r.seqs[oid] = e
	}
	r.names = c
}

// sequence is the sequence an OID names, and its ID.
func (r *oidRegistry) sequence(oid uint32) (engine.Name, uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.seqs[oid]; ok {
		return r.names.name(e.name), e.id, true
	}
	e, ok := r.tempSeqs[oid]
	return e.name, e.id, ok
}

// nameArena keeps names as bytes in one block, without a pointer per
// name; a name dropped leaves its bytes until the arena is compacted.
type nameArena struct {
	b    []byte
	live int // bytes of the names in use
}

// nameRef is a name in a nameArena: where its key's bytes are.
type nameRef struct{ off, len uint32 }

func (a *nameArena) add(n engine.Name) nameRef {
	key := n.String()
	r := nameRef{off: uint32(len(a.b)), len: uint32(len(key))}
	a.b = append(a.b, key...)
	a.live += len(key)
	return r
}

func (a *nameArena) drop(r nameRef) { a.live -= int(r.len) }

// name is the name at r: one allocation, its key (sequenceByOID calls
// it for every nextval whose argument is an OID).
func (a *nameArena) name(r nameRef) engine.Name {
	n, _ := engine.NameFromKey(string(a.b[r.off : r.off+r.len]))
	return n
}

// wasteful reports whether the arena is mostly bytes no name uses.
func (a *nameArena) wasteful() bool { return len(a.b) > 2*a.live+64<<10 }

func (r *oidRegistry) forSchema(name string) uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if oid, ok := r.schemas[name]; ok {
		return oid
	}
	oid := r.nextLocked()
	r.schemas[name] = oid
	return oid
}

// renamedRole keeps a renamed role's OID under its new name.
func (r *oidRegistry) renamedRole(from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if oid, ok := r.schemas[roleOIDPrefix+from]; ok {
		delete(r.schemas, roleOIDPrefix+from)
		r.schemas[roleOIDPrefix+to] = oid
	}
}

// nameOf is the name forSchema gave oid, if it gave it.
func (r *oidRegistry) nameOf(oid uint32) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, o := range r.schemas {
		if o == oid {
			return name, true
		}
	}
	return "", false
}

// roleOIDPrefix keys roles' OIDs in the registry beside schemas'.
const roleOIDPrefix = "\x00role:"
