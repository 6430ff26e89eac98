package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seqd/seqd/storage"
)

// Derive opens a read-only engine over cfg.Store that is o with changes
// applied, in order: the store as of a later revision, for a cluster
// follower whose watch delivered every change to the store since o was
// read. It costs a copy of o (no read of the store), where a full read
// at a million sequences takes seconds of the node's and etcd's time.
// changes are records as Load gives them, a nil value for a deleted
// one; those Follow took in place must not be among them, and a put of
// a sequence's record older than the record o holds (one Follow took
// after it) is passed over. o is not changed: its sessions may go on
// reading it.
func (o *Engine) Derive(ctx context.Context, cfg Config, changes []storage.KV) (*Engine, error) {
	if !cfg.ReadOnly || !o.readOnly {
		return nil, errors.New("seqd: Derive takes a read-only engine and opens another")
	}
	e, err := newEngine(cfg)
	if err != nil {
		return nil, err
	}
	e.readOnly = true
	e.store = readOnlyStore{cfg.Store}
	e.known = o.copyInto(e)
	for _, kv := range changes {
		if err := e.apply(kv); err != nil {
			return nil, err
		}
	}
	if err := e.start(ctx, cfg, e.known); err != nil {
		return nil, err
	}
	return e, nil
}

// apply makes one record's change in an engine still being opened, as
// Open's load would have seen it: a put replaces what the record held,
// a delete forgets it.
func (e *Engine) apply(kv storage.KV) error {
	if strings.HasPrefix(kv.Key, catalogPrefix) {
		if err := e.forgetCatalog(kv.Key); err != nil || kv.Value == nil {
			return err
		}
		return e.loadCatalog(kv)
	}
	if _, ok := nameFromKey(kv.Key); !ok {
		return fmt.Errorf("seqd: corrupt sequence key %q", kv.Key)
	}
	if old := e.seqs.get(kv.Key); old != nil {
		if kv.Value != nil && old.rev > kv.Rev {
			// A store's commit made at kv.Rev and applied later, whose
			// record the engine took as it came (Follow): what it
			// holds is newer. (Such a commit deletes no record that
			// anything wrote after it was made.)
			return nil
		}
		e.delSeqLocked(kv.Key)
		delete(e.known, old)
		e.frozen = slices.DeleteFunc(e.frozen, func(s *seq) bool { return s == old })
	}
	if kv.Value == nil {
		return nil
	}
	rec, err := decodeRecord(kv.Value)
	if err != nil {
		return fmt.Errorf("%w: key %q", err, kv.Key)
	}
	s := &seq{key: kv.Key, id: rec.id, opts: internOptions(rec.opts), cur: rec.state, rev: kv.Rev, unlogged: rec.unlogged, epoch: rec.epoch}
	e.setSeqLocked(kv.Key, s)
	if rec.hasKnown && !rec.unlogged {
		e.known[s] = rec.known
	}
	if rec.frozen {
		e.frozen = append(e.frozen, s)
	}
	return nil
}

// forgetCatalog is a catalog record's delete: what loadCatalog took
// from it goes.
func (e *Engine) forgetCatalog(key string) error {
	id := func(prefix string) (uint64, error) {
		id, err := strconv.ParseUint(key[len(prefix):], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("seqd: corrupt catalog record key %q", key)
		}
		return id, nil
	}
	switch {
	case key == catalogKey:
		e.catalogRev = 0
	case key == runningKey:
		e.runningRev = 0
	case key == secretKey:
		e.secret = nil
	case key == epochKey:
		e.epoch, e.epochRev = 0, 0
	case key == databaseKey:
		e.dbACL = aclRecord{}
	case strings.HasPrefix(key, roleKey):
		delete(e.roles, key[len(roleKey):])
	case strings.HasPrefix(key, schemaKey):
		delete(e.schemas, key[len(schemaKey):])
	case strings.HasPrefix(key, commentPrefix):
		id, err := id(commentPrefix)
		if err != nil {
			return err
		}
		delete(e.comments, id)
	case strings.HasPrefix(key, aclPrefix):
		id, err := id(aclPrefix)
		if err != nil {
			return err
		}
		e.dropACLLocked(id)
	case strings.HasPrefix(key, timeMarkPrefix):
		delete(e.timeMarks, key[len(timeMarkPrefix):])
	case strings.HasPrefix(key, rangePrefix):
		id, err := id(rangePrefix)
		if err != nil {
			return err
		}
		delete(e.rangeRevs, id)
		delete(e.rangeAt, id)
	default:
		return fmt.Errorf("seqd: unknown catalog record %q", key)
	}
	return nil
}
