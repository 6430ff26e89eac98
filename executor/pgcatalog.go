package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
)

// relation is a virtual relation of the catalog (or a sequence).
type relation struct {
	oid          uint32
	schema, name string
	kind         byte // relkind: 'r' table, 'v' view
	cols         []eval.RelColumn
	rows         func(s *Session) ([][]eval.Datum, error)
	// stream, set instead of rows for a relation with rows per sequence,
	// makes them as they are read (stream.go).
	stream func(s *Session) eval.Rows
	// by, when set, looks up the rows of named sequences (lookup.go).
	by *seqLookup
	// acl and insertable are PostgreSQL's, from its shape
	// (catalog.Shape); a relation seqd adds has none, and PUBLIC reads it.
	acl                       string
	publicColumns, insertable bool
	// view is the catalog's view of a catalog relation; nil for a
	// sequence.
	view *catalog.View
}

var (
	catalogOnce  sync.Once
	catalogViews *catalog.Catalog
	catalogRels  map[string]*relation // "schema.name"
	catalogOIDs  map[uint32]*relation
	catalogOrder []*relation
)

// registerCatalog registers the catalog's views, and the rest of
// PostgreSQL 15's catalog from its shapes (with its columns, and the
// rows of those seqd populates), as the session's relations.
func registerCatalog() {
	catalogViews = catalog.New()
	catalogRels = map[string]*relation{}
	catalogOIDs = map[uint32]*relation{}
	for _, v := range catalogViews.Views() {
		r := viewRelation(v)
		r.acl, r.publicColumns, r.insertable = v.ACL, v.PublicColumns, v.Insertable
		catalogRels[r.schema+"."+r.name] = r
		catalogOIDs[r.oid] = r
		catalogOrder = append(catalogOrder, r)
	}
}

// viewRelation is the relation of a catalog view: its rows, or, for a
// view with rows per sequence, its stream and lookups.
func viewRelation(v *catalog.View) *relation {
	r := &relation{oid: v.OID, schema: v.Schema, name: v.Name, kind: v.Kind, cols: v.Columns, view: v}
	ps := v.PerSequence
	if ps == nil {
		r.rows = func(s *Session) ([][]eval.Datum, error) { return v.Rows(s.source()) }
		return r
	}
	r.stream = func(s *Session) eval.Rows {
		src := s.source()
		g := &seqStream{s: s, more: s.sequenceBatches(), reserved: ps.Reserved, per: func(i seqInfo) [][]eval.Datum { return ps.Row(src, i) }}
		if ps.Before != nil {
			g.before = ps.Before(src)
		}
		if ps.After != nil {
			g.after = func() [][]eval.Datum { return ps.After(src) }
		}
		return g
	}
	r.by = &seqLookup{nameCol: ps.NameCol, oidCol: ps.OIDCol, rows: func(s *Session, seqs []seqInfo, col int, v eval.Datum, prefix bool) ([][]eval.Datum, error) {
		src := s.source()
		out, err := rowsOf(s, seqs, ps.Reserved, func(i seqInfo) [][]eval.Datum { return ps.Row(src, i) })
		if err != nil {
			return nil, err
		}
		if ps.Fixed != nil {
			out = append(out, ps.Fixed(src, col, v, prefix)...)
		}
		return out, nil
	}}
	return r
}

// catalogRelation finds a catalog relation; an empty schema means
// pg_catalog (always searched first, as PostgreSQL does).
func catalogRelation(schema, name string) *relation {
	catalogOnce.Do(registerCatalog)
	if schema == "" {
		schema = "pg_catalog"
	}
	return catalogRels[schema+"."+name]
}

func catalogByOID(oid uint32) *relation {
	catalogOnce.Do(registerCatalog)
	return catalogOIDs[oid]
}

// seqdRelations names the catalog relations of seqd's own, for hints.
func seqdRelations() string {
	catalogOnce.Do(registerCatalog)
	var out []string
	for _, r := range catalogOrder {
		if strings.HasPrefix(r.name, "seqd_") {
			out = append(out, r.name)
		}
	}
	return strings.Join(out, ", ")
}

const (
	superuserOID    = catalog.SuperuserOID
	dbOwnerOID      = catalog.DBOwnerOID
	pgClassOID      = catalog.PgClassOID
	pgNamespaceOID  = catalog.PgNamespaceOID
	publicSchemaOID = catalog.PublicSchemaOID
	seqdDatabaseOID = catalog.DatabaseOID
)

// seqInfo is a sequence with its catalog identity.
type seqInfo = catalog.Sequence

// reserved is info with a NOORDER sequence's position in cluster mode:
// how far the nodes have reserved its values (engine.Reserved).
func (s *Session) reserved(info engine.Info) (engine.Info, error) {
	if s.isTemp(info.Name) {
		return info, nil
	}
	return s.eng.Reserved(context.Background(), info)
}

// sequences lists the server's sequences and the session's temporary
// ones.
func (s *Session) sequences() []seqInfo {
	var out []seqInfo
	s.eachCatalog(func(eng *engine.Engine, cat seqCatalog) {
		for _, info := range cat.List() {
			out = append(out, seqInfo{Info: info, OID: s.oids().forSequence(s.oidEng(eng), info), Namespace: s.oids().forSchema(info.Name.Schema())})
		}
	})
	return out
}

// sequencesWhere are the sequences the session sees whose ACL and
// comment keep accepts, as sequences lists them: read from the engine's
// records without describing the others (engine.Matching), or, in a
// transaction that changed the catalog, from its list.
func (s *Session) sequencesWhere(keep func(a engine.ACL, comment string) bool) ([]seqInfo, error) {
	var out []seqInfo
	var err error
	s.eachCatalog(func(eng *engine.Engine, cat seqCatalog) {
		var infos []engine.Info
		if e, ok := cat.(*engine.Engine); ok {
			infos = e.Matching(keep)
		} else {
			for _, info := range cat.List() {
				a, aerr := cat.ACL(info.Name)
				c, cerr := cat.Comment(info.Name)
				if aerr != nil || cerr != nil {
					err = errors.Join(aerr, cerr)
					return
				}
				if keep(a, c) {
					infos = append(infos, info)
				}
			}
		}
		for _, info := range infos {
			out = append(out, seqInfo{Info: info, OID: s.oids().forSequence(s.oidEng(eng), info), Namespace: s.oids().forSchema(info.Name.Schema())})
		}
	})
	return out, err
}

// schemaNames are the schemas that exist: the catalog's and the durable
// ones, in OID order as pg_namespace lists them.
func (s *Session) schemaNames() []string {
	out := append(append([]string(nil), builtinSchemas...), s.cat().Schemas()...)
	if s.tempEng != nil {
		out = append(out, s.tempSchema)
	}
	sort.SliceStable(out, func(i, j int) bool { return s.oids().forSchema(out[i]) < s.oids().forSchema(out[j]) })
	return out
}

func (s *Session) roleName(oid int64) string {
	switch oid {
	case superuserOID:
		return s.bootstrapUser()
	case dbOwnerOID:
		return "pg_database_owner"
	}
	for _, r := range s.roleList() {
		if int64(r.OID) == oid {
			return r.Name
		}
	}
	// An owner that is not a role: a user trust authentication let in
	// under that name, which owns what it created.
	if name, ok := s.oids().nameOf(uint32(oid)); ok && strings.HasPrefix(name, roleOIDPrefix) {
		return strings.TrimPrefix(name, roleOIDPrefix)
	}
	return fmt.Sprintf("unknown (OID=%d)", oid)
}

// roleRow is a role as the catalog shows it.
type roleRow = catalog.Role

// bootstrapUser is the bootstrap superuser, OID 10: Config.Superuser
// when that role exists; else the user trust authentication let in when
// it is no role (the owner of everything it makes); else
// Config.Superuser's name, a superuser trust would let in. It is the same
// whichever role the session takes (SET ROLE).
func (s *Session) bootstrapUser() string {
	if s.cfg.Superuser != "" {
		if _, ok := s.roles().Role(s.cfg.Superuser); ok {
			return s.cfg.Superuser
		}
	}
	if !s.userWasRole || s.cfg.Superuser == "" {
		return s.loginUser
	}
	return s.cfg.Superuser
}

// roleList is pg_roles: the engine's roles, the bootstrap superuser with
// OID 10 (a superuser that can log in when it is not a role itself,
// under trust), and a user trust let in that is no role, which acts as
// a superuser.
func (s *Session) roleList() []roleRow {
	boot := s.bootstrapUser()
	out := []roleRow{{Role: engine.Role{Name: boot, Superuser: true, Login: true, CreateRole: true}, OID: superuserOID}}
	for _, r := range s.roles().Roles() {
		if r.Name == boot {
			out[0].Role = r
			continue
		}
		out = append(out, roleRow{Role: r, OID: s.oids().forSchema(roleOIDPrefix + r.Name)})
	}
	if !s.userWasRole && s.loginUser != boot {
		out = append(out, roleRow{Role: engine.Role{Name: s.loginUser, Superuser: true, Login: true}, OID: s.oids().forSchema(roleOIDPrefix + s.loginUser)})
	}
	return out
}

// relationVisible is pg_table_is_visible: the relation is what its bare
// name finds along the search path.
func (s *Session) relationVisible(oid uint32) bool {
	if r := catalogByOID(oid); r != nil {
		return s.catalogVisible(r)
	}
	n, _, ok := s.oids().sequence(oid)
	return ok && s.visible(n)
}

// catalogVisible reports whether catalog relation r is what its bare
// name finds: pg_catalog's always (unless the path puts a schema with a
// sequence of that name first), information_schema's where the path
// lists it.
func (s *Session) catalogVisible(r *relation) bool {
	found, err := s.resolveRelation(pgsql.QName{Rel: r.name})
	return err == nil && found.oid == r.oid
}

func (s *Session) setSetting(name, value string, local bool) error {
	if d := settingDefs[strings.ToLower(name)]; d.pg != nil {
		if err := d.pg.checkContext(false, s.isSuperuser(s.cfg.User)); err != nil {
			return err
		}
	}
	if local && !s.tx.open {
		return nil // PostgreSQL warns and ignores SET LOCAL outside a block
	}
	if err := s.settings.set(name, value, local); err != nil {
		return err
	}
	s.changed(name)
	s.pathVersion++
	return nil
}

// rowsOf makes a row of each of seqs; reserved first reads a NOORDER
// sequence's position from the store, in cluster mode (the views that
// show last_value).
func rowsOf(s *Session, seqs []seqInfo, reserved bool, f func(seqInfo) [][]eval.Datum) ([][]eval.Datum, error) {
	s.seqRowsMade += len(seqs)
	var out [][]eval.Datum
	for _, info := range seqs {
		if reserved {
			var err error
			if info.Info, err = s.reserved(info.Info); err != nil {
				return nil, err
			}
		}
		out = append(out, f(info)...)
	}
	return out, nil
}

// sqlTypeName maps seqmath's type names to pg_type's.
func sqlTypeName(s string) string { return catalog.SQLTypeName(s) }

// resolveRelation finds a relation by name: a catalog relation or a
// sequence, along the search path when the name has no schema.
func (s *Session) resolveRelation(q pgsql.QName) (*relation, error) {
	if err := s.checkCatalog(q); err != nil {
		return nil, err
	}
	if q.Schema == "" {
		for _, schema := range s.effectivePath() {
			if isBuiltinSchema(schema) {
				if rel := catalogRelation(schema, q.Rel); rel != nil {
					return rel, nil
				}
			}
		}
	} else if isBuiltinSchema(q.Schema) {
		if rel := catalogRelation(q.Schema, q.Rel); rel != nil {
			return rel, nil
		}
	}
	n, err := s.lookupSequence(q)
	if err != nil {
		return nil, err
	}
	return s.sequenceRelation(n)
}

// sequenceRelation is SELECT ... FROM s.
func (s *Session) sequenceRelation(n engine.Name) (*relation, error) {
	return s.sequenceRelationOf(n, catalog.SequenceColumns, func(info engine.Info) []eval.Datum {
		return []eval.Datum{eval.Int(info.Options.Value(info.State.Last)), eval.Int(info.LogCnt), eval.Bool(info.State.Called)}
	})
}

// sequenceRelationOf is sequence n read as a relation of cols, whose one
// row is row of its Info as it stands when read: with SELECT on it, as
// PostgreSQL 15 reads a sequence relation (USAGE is not enough).
func (s *Session) sequenceRelationOf(n engine.Name, cols []eval.RelColumn, row func(engine.Info) []eval.Datum) (*relation, error) {
	eng := s.engFor(n)
	info, err := eng.Info(n)
	if err != nil {
		return nil, err
	}
	return &relation{oid: s.oids().forSequence(s.oidEng(s.baseFor(n)), info), schema: n.Schema(), name: n.Rel(), kind: 'S', cols: cols,
		rows: func(s *Session) ([][]eval.Datum, error) {
			if err := s.checkPrivilege(n, engine.PrivSelect); err != nil {
				return nil, err
			}
			info, err := eng.Info(n)
			if err == nil {
				info, err = s.reserved(info)
			}
			if err != nil {
				return nil, err
			}
			return [][]eval.Datum{row(info)}, nil
		}}, nil
}

// schemaComment is a schema's description, by OID (obj_description).
func (s *Session) schemaComment(oid uint32) eval.Datum {
	for _, n := range s.cat().Schemas() {
		if s.oids().forSchema(n) == oid {
			return s.schemaCommentNamed(n)
		}
	}
	return eval.Null
}

// schemaCommentNamed is a schema's description: its COMMENT ON SCHEMA,
// or the public schema's as PostgreSQL's initdb sets it ("standard public
// schema") until one is made.
func (s *Session) schemaCommentNamed(n string) eval.Datum {
	c, set, err := s.cat().SchemaComment(n)
	switch {
	case err != nil || set && c == "":
		return eval.Null
	case set:
		return eval.Text(c)
	case n == "public" && s.oids().forSchema(n) == publicSchemaOID:
		return eval.Text("standard public schema")
	}
	return eval.Null
}
