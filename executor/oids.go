// OIDs: the numbers pg_catalog gives sequences, schemas and roles, made
// on first sight and kept for the process, shared by the sessions of one
// catalog (engine.Lineage: a cluster node's snapshots and terms are one).

package executor

import (
	"sync"

	"github.com/seqd/seqd/engine"
)

// oidRegistry gives sequences and schemas the object IDs the catalog
// shows. A sequence keeps its OID for the life of the process (sequence
// IDs are never reused, so a sequence dropped and created again gets a
// new one); OIDs are not kept across restarts, which clients do not
// assume for relations. It is safe for concurrent use.
type oidRegistry struct {
	mu      sync.Mutex
	byID    map[seqKey]uint32
	seqs    map[uint32]oidEntry
	schemas map[string]uint32
	next    uint32
}

// seqKey names a sequence across engines: eng is nil for the catalog's
// own (whichever of its engines a session reads), a session's temporary
// engine for its sequences (numbered on their own).
type seqKey struct {
	eng *engine.Engine
	id  uint64
}

type oidEntry struct {
	seqKey
	name engine.Name
}

// firstUserOID is PostgreSQL's FirstNormalObjectId.
const firstUserOID = 16384

func newOIDRegistry() *oidRegistry {
	return &oidRegistry{byID: map[seqKey]uint32{}, seqs: map[uint32]oidEntry{}, next: firstUserOID,
		schemas: map[string]uint32{"pg_catalog": 11, "pg_toast": 99, "public": 2200, "information_schema": 13207}}
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
	k := seqKey{eng, info.ID}
	r.mu.Lock()
	defer r.mu.Unlock()
	if oid, ok := r.byID[k]; ok {
		return oid
	}
	oid := r.next
	r.next++
	r.byID[k] = oid
	r.seqs[oid] = oidEntry{seqKey: k, name: info.Name}
	return oid
}

// forget drops the OIDs of an engine's sequences (a session's temporary
// engine, when it goes) or of one sequence (id != 0, when it is dropped).
func (r *oidRegistry) forget(eng *engine.Engine, id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id != 0 {
		k := seqKey{eng, id}
		delete(r.seqs, r.byID[k])
		delete(r.byID, k)
		return
	}
	for k, oid := range r.byID {
		if k.eng == eng {
			delete(r.byID, k)
			delete(r.seqs, oid)
		}
	}
}

// renamed points a sequence's OID at its new name.
func (r *oidRegistry) renamed(eng *engine.Engine, id uint64, to engine.Name) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := seqKey{eng, id}
	if oid, ok := r.byID[k]; ok {
		r.seqs[oid] = oidEntry{seqKey: k, name: to}
	}
}

// sequence is the sequence an OID names, and its ID.
func (r *oidRegistry) sequence(oid uint32) (engine.Name, uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.seqs[oid]
	return e.name, e.id, ok
}

func (r *oidRegistry) forSchema(name string) uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if oid, ok := r.schemas[name]; ok {
		return oid
	}
	oid := r.next
	r.next++
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
