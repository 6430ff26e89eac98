package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/storage"
)

// Schemas are durable catalog records beside the sequences. A schema's key
// is catalogPrefix + "schema:" + its name; sequence keys ("schema.rel")
// never start with the prefix byte, which identifiers cannot contain.
// The record's value is a version byte: 1 alone (a schema from before
// schema privileges: owned by no role, PUBLIC holding USAGE, which is
// what it allowed), or 2 followed by the schema's ACL as a sequence's is
// encoded. The database's ACL is the record at databaseKey, encoded the
// same way; without it, PostgreSQL's defaults hold (no owning role,
// PUBLIC holding CONNECT and TEMPORARY). This layout is part of the
// on-disk format.
const (
	catalogPrefix = "\x00"
	schemaKey     = catalogPrefix + "schema:"
	// catalogKey marks a store whose schemas are records: a store written
	// before schemas existed gets one record for public and for each
	// schema holding sequences when it is first opened.
	catalogKey = catalogPrefix + "catalog"
	// runningKey is written when an engine opens and deleted when it
	// closes cleanly: found at Open, it says the last run crashed.
	runningKey = catalogPrefix + "running"
	// epochKey counts the engine's opens (takeovers included): version
	// byte, then the epoch as a big-endian uint64. New sequence IDs carry
	// it in their high 32 bits, so no two opens make the same ID.
	epochKey = catalogPrefix + "epoch"
	// secretKey is the store's secret (Engine.Secret): version byte,
	// then 32 random bytes, written once, at the first open.
	secretKey     = catalogPrefix + "secret"
	databaseKey   = catalogPrefix + "database"
	schemaVersion = 1
	// schemaACLVersion is a schema record's version with its ACL;
	// schemaCommentVersion's has its comment after it (COMMENT ON SCHEMA
	// made it: "" is a comment removed, which for public is not
	// PostgreSQL's initial "standard public schema").
	schemaACLVersion     = 2
	schemaCommentVersion = 3
)

// Sentinel errors of schemas.
var (
	ErrNoSchema     = errors.New("seqd: schema not found")
	ErrSchemaExists = errors.New("seqd: schema already exists")
	ErrDependents   = errors.New("seqd: objects depend on the schema")
)

// DefaultSchema is the schema a new store has.
const DefaultSchema = "public"

// schema is one schema's state. REQUIRES: catMu for every field.
type schema struct {
	acl      ACL
	comment  *string // nil: none ever set
	rev      storage.Rev
	writing  bool // its record is being written or deleted
	dropping bool // DROP SCHEMA is under way: nothing may be created in it
}

// loadCatalog reads a catalog record during Open.
func (e *Engine) loadCatalog(kv storage.KV) error {
	switch {
	case kv.Key == catalogKey:
		e.catalogRev = kv.Rev
	case kv.Key == runningKey:
		e.runningRev = kv.Rev
	case kv.Key == secretKey:
		if len(kv.Value) != 33 || kv.Value[0] != schemaVersion {
			return fmt.Errorf("seqd: corrupt secret record")
		}
		e.secret = kv.Value[1:]
	case kv.Key == epochKey:
		if len(kv.Value) != 9 || kv.Value[0] != schemaVersion {
			return fmt.Errorf("seqd: corrupt epoch record")
		}
		e.epoch, e.epochRev = binary.BigEndian.Uint64(kv.Value[1:]), kv.Rev
	case strings.HasPrefix(kv.Key, roleKey):
		return e.loadRole(kv)
	case strings.HasPrefix(kv.Key, commentPrefix):
		return e.loadComment(kv)
	case strings.HasPrefix(kv.Key, aclPrefix):
		return e.loadACL(kv)
	case strings.HasPrefix(kv.Key, timeMarkPrefix):
		return e.loadTimeMark(kv)
	case strings.HasPrefix(kv.Key, rangePrefix):
		// A NOORDER sequence's reserved blocks: the nodes' (noorder.go).
		id, err := strconv.ParseUint(kv.Key[len(rangePrefix):], 16, 64)
		if err != nil {
			return fmt.Errorf("seqd: corrupt range record key %q", kv.Key)
		}
		e.rangeRevs[id] = kv.Rev
		if r, err := decodeRangeRecord(kv.Value); err == nil {
			e.rangeAt[id] = r
		}
	case kv.Key == databaseKey:
		a, err := decodeACL(kv.Value)
		if err != nil {
			return fmt.Errorf("%w: key %q", err, kv.Key)
		}
		e.dbACL = aclRecord{acl: a, rev: kv.Rev}
	case strings.HasPrefix(kv.Key, schemaKey):
		a, comment, err := decodeSchema(kv.Value)
		if err != nil {
			return fmt.Errorf("%w: key %q", err, kv.Key)
		}
		e.schemas[kv.Key[len(schemaKey):]] = &schema{acl: a, comment: comment, rev: kv.Rev}
	default:
		return fmt.Errorf("seqd: unknown catalog record %q", kv.Key)
	}
	return nil
}

// migrateCatalog gives a store written before schemas were records its
// schema records: public and every schema that holds a sequence.
func (e *Engine) migrateCatalog(ctx context.Context) error {
	if e.catalogRev != 0 {
		return nil
	}
	e.fresh = e.seqs.len() == 0 && len(e.schemas) == 0
	names := map[string]bool{DefaultSchema: true}
	for key := range e.seqs.all() {
		n, _ := nameFromKey(key)
		names[n.Schema()] = true
	}
	ops := []storage.Op{{Key: catalogKey, Value: []byte{schemaVersion}}}
	for name := range names {
		if e.schemas[name] == nil {
			ops = append(ops, storage.Op{Key: schemaKey + name, Value: encodeSchema(legacySchemaACL(), nil)})
		}
	}
	rev, err := e.store.Commit(ctx, e.token, ops)
	if err != nil {
		return fmt.Errorf("seqd: writing the schema catalog: %w", err)
	}
	e.catalogRev = rev
	for _, op := range ops[1:] {
		e.schemas[op.Key[len(schemaKey):]] = &schema{acl: legacySchemaACL(), rev: rev}
	}
	return nil
}

// legacySchemaACL is the ACL of a schema recorded before schema
// privileges, and of public in a new store, as PostgreSQL 15 makes it:
// owned by no role (superusers; catalogs show pg_database_owner for
// public), PUBLIC holding USAGE.
func legacySchemaACL() ACL { return ACL{Grants: map[string]Privs{Public: PrivUsage}} }

// defaultDatabaseACL is the database's ACL until one is recorded:
// PostgreSQL's defaults.
func defaultDatabaseACL() ACL { return ACL{Grants: map[string]Privs{Public: PrivConnect | PrivTemp}} }

// encodeSchema is a schema's record: version 2 and its ACL, or, once it
// has had a comment, version 3, the ACL's length (uvarint), the ACL and
// the comment.
func encodeSchema(a ACL, comment *string) []byte {
	if comment == nil {
		return append([]byte{schemaACLVersion}, a.encode()...)
	}
	acl := a.encode()
	b := binary.AppendUvarint([]byte{schemaCommentVersion}, uint64(len(acl)))
	return append(append(b, acl...), *comment...)
}

func decodeSchema(b []byte) (ACL, *string, error) {
	switch {
	case len(b) == 1 && b[0] == schemaVersion:
		return legacySchemaACL(), nil, nil
	case len(b) > 1 && b[0] == schemaACLVersion:
		a, err := decodeACL(b[1:])
		return a, nil, err
	case len(b) > 1 && b[0] == schemaCommentVersion:
		n, k := binary.Uvarint(b[1:])
		if k <= 0 || n > uint64(len(b)-1-k) {
			break
		}
		a, err := decodeACL(b[1+k : 1+k+int(n)])
		comment := string(b[1+k+int(n):])
		return a, &comment, err
	}
	return ACL{}, nil, fmt.Errorf("seqd: corrupt schema record (%d bytes)", len(b))
}

// SchemaComment is the schema's comment; ok is false when none was ever
// set (COMMENT ON SCHEMA).
func (e *Engine) SchemaComment(name string) (comment string, ok bool, err error) {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	if err := e.schemaUsableLocked(name); err != nil {
		return "", false, err
	}
	if c := e.schemas[name].comment; c != nil {
		return *c, true, nil
	}
	return "", false, nil
}

// SetSchemaComment sets the schema's comment durably, as a transaction
// of its own; "" removes it.
func (e *Engine) SetSchemaComment(ctx context.Context, name, text string) error {
	t := e.Begin()
	defer t.Rollback()
	if err := t.SetSchemaComment(ctx, name, text); err != nil {
		return err
	}
	return t.Commit(ctx)
}

// SchemaACL is the schema's owner and grants.
func (e *Engine) SchemaACL(name string) (ACL, error) {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	if err := e.schemaUsableLocked(name); err != nil {
		return ACL{}, err
	}
	return e.schemas[name].acl.clone(), nil
}

// UpdateSchemaACL changes the schema's ACL durably, as a transaction of
// its own: f gets the current one (which it may modify).
func (e *Engine) UpdateSchemaACL(ctx context.Context, name string, f func(*ACL) error) error {
	t := e.Begin()
	defer t.Rollback()
	if err := t.UpdateSchemaACL(ctx, name, f); err != nil {
		return err
	}
	return t.Commit(ctx)
}

// DatabaseACL is the database's owner and grants.
func (e *Engine) DatabaseACL() ACL {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	if e.dbACL.rev == 0 {
		return defaultDatabaseACL()
	}
	return e.dbACL.acl.clone()
}

// UpdateDatabaseACL changes the database's ACL durably, as
// UpdateSchemaACL does a schema's.
func (e *Engine) UpdateDatabaseACL(ctx context.Context, f func(*ACL) error) error {
	t := e.Begin()
	defer t.Rollback()
	if err := t.UpdateDatabaseACL(ctx, f); err != nil {
		return err
	}
	return t.Commit(ctx)
}

func noSchema(name string) error {
	return &Error{Kind: ErrNoSchema, Msg: fmt.Sprintf("schema \"%s\" does not exist", name)}
}

// schemaUsableLocked reports whether sequences may be created in the
// schema. REQUIRES: catMu held.
func (e *Engine) schemaUsableLocked(name string) error {
	if sc := e.schemas[name]; sc == nil || sc.dropping || sc.writing && sc.rev == 0 {
		return noSchema(name)
	}
	return nil
}

// Fresh reports whether Open found an empty store (and so made a new one).
func (e *Engine) Fresh() bool { return e.fresh }

// SchemaExists reports whether the schema exists.
func (e *Engine) SchemaExists(name string) bool {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	return e.schemaUsableLocked(name) == nil
}

// Schemas lists the schemas, sorted.
func (e *Engine) Schemas() []string {
	e.catMu.RLock()
	out := make([]string, 0, len(e.schemas))
	for name, sc := range e.schemas {
		if sc.rev != 0 {
			out = append(out, name)
		}
	}
	e.catMu.RUnlock()
	sort.Strings(out)
	return out
}

// CatalogVersion changes whenever a sequence or schema is created or
// dropped: plans that resolved names may be reused while it stands still.
func (e *Engine) CatalogVersion() uint64 { return e.catalogVersion.Load() }

// writeCatalog makes one catalog record durable and waits for it.
func (e *Engine) writeCatalog(op storage.Op) (storage.Rev, error) {
	done := make(chan error, 1)
	var got storage.Rev
	e.w.submit(&write{op: op, done: func(rev storage.Rev, err error) {
		got = rev
		done <- err
	}})
	err := <-done
	if err != nil {
		err = &Error{Kind: ErrStorage, Err: err, Msg: fmt.Sprintf("could not persist the catalog: %v", err)}
	}
	return got, err
}

// CreateSchema makes a schema owned by owner durable; with ifNotExists an
// existing one is left alone and created is false.
func (e *Engine) CreateSchema(ctx context.Context, name, owner string, ifNotExists bool) (created bool, err error) {
	if name == "" || strings.ContainsAny(name, ".\x00") {
		return false, &Error{Kind: ErrInvalidName, Msg: fmt.Sprintf("invalid schema name %q", name)}
	}
	e.catMu.Lock()
	if e.closing {
		e.catMu.Unlock()
		return false, closedError()
	}
	for {
		waited, err := e.waitNameLocked(ctx, schemaKey+name)
		if err != nil {
			e.catMu.Unlock()
			return false, err
		}
		if !waited {
			break
		}
	}
	if sc := e.schemas[name]; sc != nil {
		e.catMu.Unlock()
		if ifNotExists {
			return false, nil
		}
		return false, &Error{Kind: ErrSchemaExists, Msg: fmt.Sprintf("schema \"%s\" already exists", name)}
	}
	acl := ACL{Owner: owner, Grants: map[string]Privs{}}
	sc := &schema{acl: acl, writing: true}
	e.schemas[name] = sc
	e.catMu.Unlock()
	rev, err := e.writeCatalog(storage.Op{Key: schemaKey + name, Value: encodeSchema(acl, nil)})
	e.catMu.Lock()
	defer e.catMu.Unlock()
	sc.writing = false
	if err != nil {
		// The outcome is unknown: keep the name taken (as a failed
		// sequence does) so that nothing is created over it, and report
		// the failure until restart.
		sc.dropping = true
		return false, err
	}
	sc.rev = rev
	e.catalogVersion.Add(1)
	return true, nil
}

// SchemaSequences lists the sequences of a schema in the order they were
// created.
func (e *Engine) SchemaSequences(name string) []Name {
	e.catMu.RLock()
	var seqs []*seq
	for key, s := range e.seqs.all() {
		if n, _ := nameFromKey(key); n.Schema() == name {
			seqs = append(seqs, s)
		}
	}
	e.catMu.RUnlock()
	sort.Slice(seqs, func(i, j int) bool { return seqs[i].id < seqs[j].id })
	out := make([]Name, len(seqs))
	for i, s := range seqs {
		out[i] = s.name()
	}
	return out
}

// DropSchema removes a schema. Without cascade a schema holding sequences
// is refused with ErrDependents; with it, they are dropped first, each
// durably (a crash in between leaves the schema with fewer sequences, never
// a sequence without its schema). dropped lists what cascaded.
func (e *Engine) DropSchema(ctx context.Context, name string, cascade bool) (dropped []Name, err error) {
	e.catMu.Lock()
	for {
		waited, err := e.waitSchemaLocked(ctx, name)
		if err != nil {
			e.catMu.Unlock()
			return nil, err
		}
		if !waited {
			break
		}
	}
	sc := e.schemas[name]
	if sc == nil || sc.rev == 0 || sc.dropping {
		e.catMu.Unlock()
		return nil, noSchema(name)
	}
	sc.dropping = true
	e.catMu.Unlock()
	undo := func() {
		e.catMu.Lock()
		sc.dropping = false
		e.catMu.Unlock()
	}
	seqs := e.SchemaSequences(name)
	if len(seqs) > 0 && !cascade {
		undo()
		return seqs, &Error{Kind: ErrDependents, Msg: fmt.Sprintf("cannot drop schema %s because other objects depend on it", name)}
	}
	settle := false
	defer func() {
		if settle {
			e.ranges.settle(ctx) // once for all the NOORDER ones
		}
	}()
	for _, n := range seqs {
		noOrder, err := e.drop(ctx, n)
		if err != nil && !errors.Is(err, ErrNotFound) {
			undo()
			return dropped, err
		}
		settle = settle || noOrder
		dropped = append(dropped, n)
	}
	if _, err := e.writeCatalog(storage.Op{Key: schemaKey + name, Expect: sc.rev}); err != nil {
		return dropped, err // the name stays taken (dropping) until restart
	}
	e.catMu.Lock()
	delete(e.schemas, name)
	e.catMu.Unlock()
	e.catalogVersion.Add(1)
	return dropped, nil
}

// nextEpoch is this open's epoch: one more than the last open's. A store
// written before epochs were recorded made its IDs from its ownership
// tokens in the same high bits: its first epoch is above all of theirs.
func (e *Engine) nextEpoch() (uint64, error) {
	next := e.epoch + 1
	if e.epochRev == 0 {
		for s := range e.seqs.values() {
			next = max(next, s.id>>32+1)
		}
		for id := range e.comments {
			next = max(next, id>>32+1)
		}
		e.eachACLLocked(func(id uint64, _ aclRecord) { next = max(next, id>>32+1) })
	}
	if next >= 1<<32 {
		return 0, fmt.Errorf("seqd: the store has been opened %d times, more than sequence IDs can tell apart", next)
	}
	return next, nil
}

// markRunning records that the engine runs. If the last run did not close
// cleanly, unlogged sequences go back to their start first, in the same
// write: PostgreSQL resets them after a crash.
func (e *Engine) markRunning(ctx context.Context) error {
	crashed := e.runningRev != 0
	epoch, err := e.nextEpoch()
	if err != nil {
		return err
	}
	ops := []storage.Op{
		{Key: runningKey, Value: []byte{schemaVersion}, Expect: e.runningRev},
		{Key: epochKey, Value: binary.BigEndian.AppendUint64([]byte{schemaVersion}, epoch), Expect: e.epochRev},
	}
	var secret []byte
	if e.secret == nil {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return err
		}
		ops = append(ops, storage.Op{Key: secretKey, Value: append([]byte{schemaVersion}, secret...)})
	}
	type reset struct {
		s     *seq
		state seqmath.State
	}
	// The range records of NOORDER sequences dropped since: no node can
	// write them any more (a reservation compares the sequence's record).
	live := map[uint64]bool{}
	if len(e.rangeRevs) > 0 {
		for s := range e.seqs.values() {
			if _, ok := e.rangeRevs[s.id]; ok {
				live[s.id] = true
			}
		}
	}
	for id, rev := range e.rangeRevs {
		if !live[id] && len(ops) < maxCleanup {
			ops = append(ops, storage.Op{Key: rangeKey(id), Expect: rev, Shared: true})
		}
	}
	var resets []reset
	if crashed {
		for s := range e.seqs.values() {
			if !s.unlogged {
				continue
			}
			_, st, err := seqmath.Alter(*s.opts, s.cur, seqmath.Spec{Restart: true})
			if err != nil {
				return err
			}
			rec := record{id: s.id, opts: *s.opts, state: st, unlogged: true, epoch: s.epoch + 1}
			ops = append(ops, storage.Op{Key: s.key, Value: rec.encode(), Expect: s.rev})
			resets = append(resets, reset{s, st})
		}
	}
	// NOORDER sequences a leader froze to make them ORDER, and did not
	// (its write failed, or it died): thawed, NOORDER as before (an
	// unlogged one reset above is written thawed).
	var thawed []*seq
	for _, s := range e.frozen {
		if !crashed || !s.unlogged {
			rec := record{id: s.id, opts: *s.opts, state: s.cur, unlogged: s.unlogged, epoch: s.epoch}
			ops = append(ops, storage.Op{Key: s.key, Value: rec.encode(), Expect: s.rev})
			thawed = append(thawed, s)
		}
	}
	rev, err := e.store.Commit(ctx, e.token, ops)
	if err != nil {
		return fmt.Errorf("seqd: marking the store in use: %w", err)
	}
	e.runningRev, e.epoch, e.epochRev = rev, epoch, rev
	if secret != nil {
		e.secret = secret
	}
	for _, r := range resets {
		r.s.cur, r.s.rev = r.state, rev
		r.s.epoch++
	}
	for _, s := range thawed {
		s.rev = rev
	}
	e.frozen = nil
	return nil
}

// Secret is a random key made with the store, the same on every open and
// every node, never shown: for what must not change across restarts yet
// cannot be guessed, as SCRAM's made-up salts for roles that do not exist
// (PostgreSQL keeps its mock nonce in pg_control). Nil for an engine that
// has not been opened for writing (it then has none to give).
func (e *Engine) Secret() []byte { return e.secret }
