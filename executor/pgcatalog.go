package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/seqd/seqd/eval"

	"github.com/seqd/seqd/engine"
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
	// (catalogShape); a relation seqd adds has none, and PUBLIC reads it.
	acl                       string
	publicColumns, insertable bool
}

var (
	catalogOnce  sync.Once
	catalogRels  map[string]*relation // "schema.name"
	catalogOIDs  map[uint32]*relation
	catalogOrder []*relation
)

func registerCatalog() {
	catalogRels = map[string]*relation{}
	catalogOIDs = map[uint32]*relation{}
	add := func(r *relation) {
		catalogRels[r.schema+"."+r.name] = r
		catalogOIDs[r.oid] = r
		catalogOrder = append(catalogOrder, r)
	}
	shapes := map[string]catalogShape{}
	for _, sh := range pgCatalogShapes {
		shapes[sh.schema+"."+sh.name] = sh
	}
	for _, r := range catalogRelations() {
		r.acl = publicACL
		if sh, ok := shapes[r.schema+"."+r.name]; ok {
			r.acl, r.publicColumns, r.insertable = sh.acl, sh.publicColumns, sh.insertable
		}
		add(r)
	}
	// The rest of PostgreSQL 15's catalog, with its columns and no rows:
	// seqd has no such objects.
	for _, sh := range pgCatalogShapes {
		if catalogRels[sh.schema+"."+sh.name] == nil {
			add(sh.relation())
		}
	}
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

// The information_schema columns' domains (sql_identifier,
// character_data, cardinal_number, yes_or_no) are described to clients by
// their base types, as PostgreSQL describes domain columns.
var (
	tSQLIdentifier  = eval.TName
	tCharacterData  = eval.TVarchar
	tCardinalNumber = eval.TInt4
	tYesOrNo        = eval.TVarchar
	tXid            = eval.TypeByOID(28)
)

const (
	superuserOID     = 10
	dbOwnerOID       = 6171
	pgClassOID       = 1259
	pgNamespaceOID   = 2615
	publicSchemaOID  = 2200
	seqdDatabaseOID  = 5
	sequenceRelAttrs = 3
)

// seqInfo is a sequence with its catalog identity.
type seqInfo struct {
	engine.Info
	oid, nsp uint32
}

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
			out = append(out, seqInfo{Info: info, oid: s.oids().forSequence(s.oidEng(eng), info), nsp: s.oids().forSchema(info.Name.Schema())})
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
			out = append(out, seqInfo{Info: info, oid: s.oids().forSequence(s.oidEng(eng), info), nsp: s.oids().forSchema(info.Name.Schema())})
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
		if int64(r.oid) == oid {
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
type roleRow struct {
	engine.Role
	oid uint32
}

// bootstrap reports whether r is the bootstrap superuser (OID 10), which
// has every attribute, as initdb's; seqd has no CREATEDB, REPLICATION or
// BYPASSRLS to give any other role.
func (r roleRow) bootstrap() bool { return r.oid == superuserOID && r.Superuser && r.CreateRole }

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
	out := []roleRow{{Role: engine.Role{Name: boot, Superuser: true, Login: true, CreateRole: true}, oid: superuserOID}}
	for _, r := range s.roles().Roles() {
		if r.Name == boot {
			out[0].Role = r
			continue
		}
		out = append(out, roleRow{Role: r, oid: s.oids().forSchema(roleOIDPrefix + r.Name)})
	}
	if !s.userWasRole && s.loginUser != boot {
		out = append(out, roleRow{Role: engine.Role{Name: s.loginUser, Superuser: true, Login: true}, oid: s.oids().forSchema(roleOIDPrefix + s.loginUser)})
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

func boolText(b bool) eval.Datum {
	if b {
		return eval.Text("YES")
	}
	return eval.Text("NO")
}

// catalogRelations are the catalog's virtual relations, in the order
// pg_class lists them.
func catalogRelations() []*relation {
	return slices.Concat(classRelations(), roleRelations(), describingRelations(), viewRelations(), restRelations())
}

// rowsOf makes a row of each of seqs; reserved first reads a NOORDER
// sequence's position from the store, in cluster mode (the views that
// show last_value).
func rowsOf(s *Session, seqs []seqInfo, reserved bool, f func(seqInfo) []eval.Datum) ([][]eval.Datum, error) {
	s.seqRowsMade += len(seqs)
	var out [][]eval.Datum
	for _, info := range seqs {
		if reserved {
			var err error
			if info.Info, err = s.reserved(info.Info); err != nil {
				return nil, err
			}
		}
		out = append(out, f(info))
	}
	return out, nil
}

// catalogClassRows are the catalog relations' pg_class rows.
func catalogClassRows(s *Session) [][]eval.Datum {
	catalogOnce.Do(registerCatalog)
	out := make([][]eval.Datum, 0, len(catalogOrder))
	for _, r := range catalogOrder {
		out = append(out, catalogRow(s, r, s.oids().forSchema(r.schema)))
	}
	return out
}

// dependRow is a sequence's pg_depend row: on its schema.
func dependRow(i seqInfo) []eval.Datum {
	return []eval.Datum{eval.Int(pgClassOID), eval.Int(int64(i.oid)), eval.Int(0), eval.Int(pgNamespaceOID), eval.Int(int64(i.nsp)), eval.Int(0), eval.Text("n")}
}

// pgSequencesRow is a sequence's pg_sequences row.
func pgSequencesRow(s *Session, i seqInfo) []eval.Datum {
	o := i.Options
	last := eval.Null
	// As PostgreSQL's view: last_value only with SELECT or USAGE.
	if p, err := s.privilegesOn(i.Name); i.State.Called && err == nil && p&(engine.PrivSelect|engine.PrivUsage) != 0 {
		last = eval.Int(o.Value(i.State.Last)) // a shaped sequence's value; the rest are its counter's
	}
	owner := s.bootstrapUser()
	if a, err := s.engFor(i.Name).ACL(i.Name); err == nil {
		owner = s.ownerName(a)
	}
	t := eval.TypeByName(sqlTypeName(o.Type.String()))
	return []eval.Datum{eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), eval.Text(owner), t.Regtype(),
		eval.Int(o.Start), eval.Int(o.Min), eval.Int(o.Max), eval.Int(o.Increment), eval.Bool(o.Cycle), eval.Int(o.Cache), last}
}

// pgSequenceRow is a sequence's pg_sequence row.
func pgSequenceRow(i seqInfo) []eval.Datum {
	o := i.Options
	return []eval.Datum{eval.Int(int64(i.oid)), eval.Int(int64(eval.TypeByName(sqlTypeName(o.Type.String())).OID())), eval.Int(o.Start),
		eval.Int(o.Increment), eval.Int(o.Max), eval.Int(o.Min), eval.Int(o.Cache), eval.Bool(o.Cycle)}
}

// classRow is a sequence's pg_class row.
func classRow(s *Session, i seqInfo) []eval.Datum {
	a, _ := s.engFor(i.Name).ACL(i.Name)
	owner := s.ownerName(a)
	return []eval.Datum{eval.Int(int64(i.oid)), eval.Text(i.Name.Rel()), eval.Int(int64(i.nsp)), eval.Int(0), eval.Int(0), eval.Int(s.ownerOID(owner)), eval.Int(0),
		eval.Int(int64(i.oid)), eval.Int(0), eval.Int(1), eval.Float(1), eval.Int(0), eval.Int(0), eval.Bool(false), eval.Bool(false), eval.Text(s.persistence(i)), eval.Text("S"),
		eval.Int(sequenceRelAttrs), eval.Int(0), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(true),
		eval.Text("n"), eval.Bool(false), eval.Int(0), eval.Int(0), eval.Int(0), aclItems(a, owner, aclSequence), eval.Null, eval.Null}
}

// catalogOIDMatches reports whether v, an OID as a lookup takes it, is
// catalog relation r's.
func catalogOIDMatches(r *relation, v eval.Datum) bool {
	oid, ok := oidOf(v)
	return ok && oid == r.oid
}

// catalogRow is a catalog relation's pg_class row.
func catalogRow(s *Session, r *relation, nsp uint32) []eval.Datum {
	return []eval.Datum{eval.Int(int64(r.oid)), eval.Text(r.name), eval.Int(int64(nsp)), eval.Int(0), eval.Int(0), eval.Int(superuserOID), eval.Int(0), eval.Int(0), eval.Int(0),
		eval.Int(0), eval.Float(-1), eval.Int(0), eval.Int(0), eval.Bool(false), eval.Bool(false), eval.Text("p"), eval.Text(string(r.kind)), eval.Int(int64(len(r.cols))), eval.Int(0),
		eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(false), eval.Bool(true), eval.Text("n"), eval.Bool(false), eval.Int(0), eval.Int(0), eval.Int(0),
		s.catalogACL(r), eval.Null, eval.Null}
}

var classCols = eval.Columns("oid", eval.TOid, "relname", eval.TName, "relnamespace", eval.TOid, "reltype", eval.TOid, "reloftype", eval.TOid, "relowner", eval.TOid,
	"relam", eval.TOid, "relfilenode", eval.TOid, "reltablespace", eval.TOid, "relpages", eval.TInt4, "reltuples", eval.TypeByOID(eval.OIDFloat4),
	"relallvisible", eval.TInt4, "reltoastrelid", eval.TOid, "relhasindex", eval.TBool, "relisshared", eval.TBool, "relpersistence", eval.TChar,
	"relkind", eval.TChar, "relnatts", eval.TInt2, "relchecks", eval.TInt2, "relhasrules", eval.TBool, "relhastriggers", eval.TBool,
	"relhassubclass", eval.TBool, "relrowsecurity", eval.TBool, "relforcerowsecurity", eval.TBool, "relispopulated", eval.TBool,
	"relreplident", eval.TChar, "relispartition", eval.TBool, "relrewrite", eval.TOid, "relfrozenxid", tXid, "relminmxid", tXid, "relacl", eval.TAclArr, "reloptions", eval.TTextArr,
	"relpartbound", eval.TypeByOID(194))
var pgSequencesCols = eval.Columns("schemaname", eval.TName, "sequencename", eval.TName, "sequenceowner", eval.TName, "data_type", eval.TRegtype,
	"start_value", eval.TInt8, "min_value", eval.TInt8, "max_value", eval.TInt8, "increment_by", eval.TInt8, "cycle", eval.TBool,
	"cache_size", eval.TInt8, "last_value", eval.TInt8)

// classRelations are the relations of sequences and types: pg_class,
// pg_namespace, pg_sequence, pg_sequences, pg_type.
func classRelations() []*relation {
	return []*relation{
		{oid: pgClassOID, schema: "pg_catalog", name: "pg_class", kind: 'r', cols: classCols, stream: func(s *Session) eval.Rows {
			return &seqStream{s: s, more: s.sequenceBatches(), per: func(i seqInfo) [][]eval.Datum { return [][]eval.Datum{classRow(s, i)} },
				after: func() [][]eval.Datum { return catalogClassRows(s) }}
		}, by: &seqLookup{nameCol: 1, oidCol: 0, rows: func(s *Session, seqs []seqInfo, col int, v eval.Datum, prefix bool) ([][]eval.Datum, error) {
			out, _ := rowsOf(s, seqs, false, func(i seqInfo) []eval.Datum { return classRow(s, i) })
			catalogOnce.Do(registerCatalog)
			for _, r := range catalogOrder {
				if col == 1 && (r.name == v.S || prefix && strings.HasPrefix(r.name, v.S)) || col == 0 && catalogOIDMatches(r, v) {
					out = append(out, catalogRow(s, r, s.oids().forSchema(r.schema)))
				}
			}
			return out, nil
		}}},
		{oid: pgNamespaceOID, schema: "pg_catalog", name: "pg_namespace", kind: 'r',
			cols: eval.Columns("oid", eval.TOid, "nspname", eval.TName, "nspowner", eval.TOid, "nspacl", eval.TAclArr), rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, n := range s.schemaNames() {
					out = append(out, []eval.Datum{eval.Int(int64(s.oids().forSchema(n))), eval.Text(n), eval.Int(s.schemaOwnerOID(n)), s.schemaACLItems(n)})
				}
				return out, nil
			}},
		{oid: 2224, schema: "pg_catalog", name: "pg_sequence", kind: 'r',
			cols: eval.Columns("seqrelid", eval.TOid, "seqtypid", eval.TOid, "seqstart", eval.TInt8, "seqincrement", eval.TInt8, "seqmax", eval.TInt8,
				"seqmin", eval.TInt8, "seqcache", eval.TInt8, "seqcycle", eval.TBool),
			stream: func(s *Session) eval.Rows { return streamOf(s, false, pgSequenceRow) },
			by: &seqLookup{nameCol: -1, oidCol: 0, rows: func(s *Session, seqs []seqInfo, _ int, _ eval.Datum, _ bool) ([][]eval.Datum, error) {
				return rowsOf(s, seqs, false, pgSequenceRow)
			}}},
		{oid: 12048, schema: "pg_catalog", name: "pg_sequences", kind: 'v', cols: pgSequencesCols,
			stream: streamBy(true, pgSequencesRow), by: lookupBy(1, true, pgSequencesRow)},
		{oid: 1247, schema: "pg_catalog", name: "pg_type", kind: 'r', cols: eval.PgTypeColumns,
			rows: func(s *Session) ([][]eval.Datum, error) { return s.pgTypeRows(), nil }},
	}
}

// roleRelations are roles and the database: pg_roles, pg_auth_members,
// pg_user, pg_database.
func roleRelations() []*relation {
	return []*relation{
		{oid: 12000, schema: "pg_catalog", name: "pg_roles", kind: 'v',
			cols: eval.Columns("rolname", eval.TName, "rolsuper", eval.TBool, "rolinherit", eval.TBool, "rolcreaterole", eval.TBool, "rolcreatedb", eval.TBool,
				"rolcanlogin", eval.TBool, "rolreplication", eval.TBool, "rolconnlimit", eval.TInt4, "rolpassword", eval.TText, "rolvaliduntil", eval.TTimestamp,
				"rolbypassrls", eval.TBool, "rolconfig", eval.TTextArr, "oid", eval.TOid),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range s.roleList() {
					boot := r.bootstrap()
					config := roleConfig(r.Settings)
					out = append(out, []eval.Datum{eval.Text(r.Name), eval.Bool(r.Superuser), eval.Bool(true), eval.Bool(r.CreateRole || boot), eval.Bool(boot), eval.Bool(r.Login),
						eval.Bool(boot), eval.Int(-1), eval.Text("********"), eval.Null, eval.Bool(boot), config, eval.Int(int64(r.oid))})
				}
				// The predefined role that owns the public schema, as
				// PostgreSQL 15's (nspowner names it).
				out = append(out, []eval.Datum{eval.Text("pg_database_owner"), eval.Bool(false), eval.Bool(true), eval.Bool(false), eval.Bool(false), eval.Bool(false),
					eval.Bool(false), eval.Int(-1), eval.Text("********"), eval.Null, eval.Bool(false), eval.Null, eval.Int(dbOwnerOID)})
				return out, nil
			}},
		{oid: 1261, schema: "pg_catalog", name: "pg_auth_members", kind: 'r',
			cols: eval.Columns("roleid", eval.TOid, "member", eval.TOid, "grantor", eval.TOid, "admin_option", eval.TBool),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range s.roles().Roles() {
					for _, m := range r.MemberOf {
						// seqd does not record who granted: shown as the
						// bootstrap superuser, as grants by superusers are.
						out = append(out, []eval.Datum{eval.Int(s.ownerOID(m.Role)), eval.Int(s.ownerOID(r.Name)), eval.Int(superuserOID), eval.Bool(m.Admin)})
					}
				}
				return out, nil
			}},
		{oid: 12014, schema: "pg_catalog", name: "pg_user", kind: 'v',
			cols: eval.Columns("usename", eval.TName, "usesysid", eval.TOid, "usecreatedb", eval.TBool, "usesuper", eval.TBool, "userepl", eval.TBool,
				"usebypassrls", eval.TBool, "passwd", eval.TText, "valuntil", eval.TTimestamp, "useconfig", eval.TTextArr),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, r := range s.roleList() {
					if r.Login {
						boot := r.bootstrap()
						out = append(out, []eval.Datum{eval.Text(r.Name), eval.Int(int64(r.oid)), eval.Bool(boot), eval.Bool(r.Superuser), eval.Bool(boot),
							eval.Bool(boot), eval.Text("********"), eval.Null, roleConfig(r.Settings)})
					}
				}
				return out, nil
			}},
		{oid: 1262, schema: "pg_catalog", name: "pg_database", kind: 'r',
			cols: eval.Columns("oid", eval.TOid, "datname", eval.TName, "datdba", eval.TOid, "encoding", eval.TInt4, "datlocprovider", eval.TChar, "datistemplate", eval.TBool,
				"datallowconn", eval.TBool, "datconnlimit", eval.TInt4, "datfrozenxid", tXid, "datminmxid", tXid, "dattablespace", eval.TOid, "datcollate", eval.TText, "datctype", eval.TText,
				"daticulocale", eval.TText, "datcollversion", eval.TText, "datacl", eval.TAclArr),
			rows: func(s *Session) ([][]eval.Datum, error) {
				return [][]eval.Datum{{eval.Int(seqdDatabaseOID), eval.Text(s.cfg.Database), eval.Int(s.ownerOID(s.cat().DatabaseACL().Owner)), eval.Int(6), eval.Text("c"), eval.Bool(false), eval.Bool(true),
					eval.Int(-1), eval.Int(0), eval.Int(0), eval.Int(1663), eval.Text("C.UTF-8"), eval.Text("C.UTF-8"), eval.Null, eval.Null,
					aclItems(s.cat().DatabaseACL(), s.roleName(s.ownerOID(s.cat().DatabaseACL().Owner)), aclDatabase)}}, nil
			}},
	}
}

// describingRelations are settings, access methods, comments, dependencies
// and columns.
func describingRelations() []*relation {
	return []*relation{
		{oid: 12104, schema: "pg_catalog", name: "pg_settings", kind: 'v',
			cols: eval.Columns("name", eval.TText, "setting", eval.TText, "unit", eval.TText, "category", eval.TText, "short_desc", eval.TText, "extra_desc", eval.TText,
				"context", eval.TText, "vartype", eval.TText, "source", eval.TText, "min_val", eval.TText, "max_val", eval.TText, "enumvals", eval.TTextArr,
				"boot_val", eval.TText, "reset_val", eval.TText, "sourcefile", eval.TText, "sourceline", eval.TInt4, "pending_restart", eval.TBool),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, name := range s.settings.names() {
					d := settingDefs[name]
					display := settingDisplay(name)
					reset := d.value
					if v, ok := s.settings.defaults[name]; ok {
						reset = v
					}
					ctx := "user"
					if d.fixed {
						ctx = "internal"
					}
					setting := first(s.settingValue(name))
					row := []eval.Datum{eval.Text(display), eval.Text(setting), eval.Null, eval.Text("seqd"), eval.Text(d.desc), eval.Null,
						eval.Text(ctx), eval.Text("string"), eval.Text("default"), eval.Null, eval.Null, eval.Null, eval.Text(d.value), eval.Text(reset), eval.Null, eval.Null, eval.Bool(false)}
					if p := pgSettingByName[name]; p != nil {
						// PostgreSQL's own account of the parameter: numbers
						// in its base unit, as pg_settings gives them.
						row[1], row[13] = eval.Text(p.baseUnits(setting)), eval.Text(p.baseUnits(reset))
						row[2], row[6], row[7], row[9], row[10], row[12] = textOrNull(p.unit), eval.Text(p.context), eval.Text(p.vartype), textOrNull(p.min), textOrNull(p.max), eval.Text(p.boot)
						if p.enumvals != nil {
							row[11] = textArray(p.enumvals)
						}
					}
					out = append(out, row)
				}
				return out, nil
			}},
		{oid: 2601, schema: "pg_catalog", name: "pg_am", kind: 'r', cols: eval.Columns("oid", eval.TOid, "amname", eval.TName, "amhandler", eval.TRegproc, "amtype", eval.TChar),
			rows: func(*Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, am := range []struct {
					oid           int64
					name, handler string
					typ           string
				}{{2, "heap", "heap_tableam_handler", "t"}, {403, "btree", "bthandler", "i"}, {405, "hash", "hashhandler", "i"},
					{783, "gist", "gisthandler", "i"}, {2742, "gin", "ginhandler", "i"}, {4000, "spgist", "spghandler", "i"}, {3580, "brin", "brinhandler", "i"}} {
					out = append(out, []eval.Datum{eval.Int(am.oid), eval.Text(am.name), {Kind: eval.KInt, I: 1, S: am.handler}, eval.Text(am.typ)})
				}
				return out, nil
			}},
		{oid: 2609, schema: "pg_catalog", name: "pg_description", kind: 'r',
			cols: eval.Columns("objoid", eval.TOid, "classoid", eval.TOid, "objsubid", eval.TInt4, "description", eval.TText),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				commented, err := s.sequencesWhere(func(_ engine.ACL, c string) bool { return c != "" })
				if err != nil {
					return nil, err
				}
				for _, i := range commented {
					if c, err := s.engFor(i.Name).Comment(i.Name); err == nil && c != "" {
						out = append(out, []eval.Datum{eval.Int(int64(i.oid)), eval.Int(pgClassOID), eval.Int(0), eval.Text(c)})
					}
				}
				for _, n := range s.cat().Schemas() {
					if c := s.schemaCommentNamed(n); !c.IsNull() {
						out = append(out, []eval.Datum{eval.Int(int64(s.oids().forSchema(n))), eval.Int(pgNamespaceOID), eval.Int(0), c})
					}
				}
				return out, nil
			}},
		{oid: 2608, schema: "pg_catalog", name: "pg_depend", kind: 'r',
			cols:   eval.Columns("classid", eval.TOid, "objid", eval.TOid, "objsubid", eval.TInt4, "refclassid", eval.TOid, "refobjid", eval.TOid, "refobjsubid", eval.TInt4, "deptype", eval.TChar),
			stream: func(s *Session) eval.Rows { return streamOf(s, false, dependRow) },
			// By objid: a sequence's dependency on its schema.
			by: &seqLookup{nameCol: -1, oidCol: 1, rows: func(s *Session, seqs []seqInfo, _ int, _ eval.Datum, _ bool) ([][]eval.Datum, error) {
				return rowsOf(s, seqs, false, dependRow)
			}}},
		{oid: 1249, schema: "pg_catalog", name: "pg_attribute", kind: 'r',
			cols: eval.Columns("attrelid", eval.TOid, "attname", eval.TName, "atttypid", eval.TOid, "attstattarget", eval.TInt4, "attlen", eval.TInt2, "attnum", eval.TInt2,
				"attndims", eval.TInt4, "attcacheoff", eval.TInt4, "atttypmod", eval.TInt4, "attbyval", eval.TBool, "attalign", eval.TChar, "attstorage", eval.TChar, "attcompression", eval.TChar,
				"attnotnull", eval.TBool, "atthasdef", eval.TBool, "atthasmissing", eval.TBool, "attidentity", eval.TChar, "attgenerated", eval.TChar,
				"attisdropped", eval.TBool, "attislocal", eval.TBool, "attinhcount", eval.TInt4, "attcollation", eval.TOid, "attacl", eval.TAclArr,
				"attoptions", eval.TTextArr, "attfdwoptions", eval.TTextArr, "attmissingval", eval.TypeByOID(2277)),
			stream: func(s *Session) eval.Rows {
				return &seqStream{s: s, before: catalogAttributes(), more: s.sequenceBatches(), per: sequenceAttributes}
			},
			// By attrelid: a sequence's, or a catalog relation's.
			by: &seqLookup{nameCol: -1, oidCol: 0, rows: func(s *Session, seqs []seqInfo, _ int, v eval.Datum, _ bool) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				s.seqRowsMade += len(seqs)
				for _, i := range seqs {
					out = append(out, sequenceAttributes(i)...)
				}
				if oid, ok := oidOf(v); ok && catalogByOID(oid) != nil {
					for _, row := range catalogAttributes() {
						if uint32(row[0].I) == oid {
							out = append(out, row)
						}
					}
				}
				return out, nil
			}}},
	}
}

// viewRelations are seqd's statistics view and information_schema's views.
func viewRelations() []*relation {
	return []*relation{
		{oid: 12300, schema: "pg_catalog", name: "seqd_stat_sequences", kind: 'v',
			cols: eval.Columns("schemaname", eval.TName, "sequencename", eval.TName, "last_value", eval.TInt8, "reserved_values", eval.TInt8,
				"remaining_values", eval.TFloat8, "fraction_used", eval.TFloat8, "unlogged", eval.TBool, "shape", eval.TText, "last_counter", eval.TInt8,
				"burned_crash", eval.TInt8, "burned_failover", eval.TInt8, "burned_release", eval.TInt8, "noorder", eval.TBool),
			stream: streamBy(true, statRow), by: lookupBy(1, true, statRow)},
		{oid: 12301, schema: "pg_catalog", name: "seqd_tokens", kind: 'v', cols: tokenColumns,
			rows: func(s *Session) ([][]eval.Datum, error) { return s.tokenRows(), nil }},
		{oid: 13386, schema: "information_schema", name: "sequences", kind: 'v',
			cols: eval.Columns("sequence_catalog", tSQLIdentifier, "sequence_schema", tSQLIdentifier, "sequence_name", tSQLIdentifier,
				"data_type", tCharacterData, "numeric_precision", tCardinalNumber, "numeric_precision_radix", tCardinalNumber,
				"numeric_scale", tCardinalNumber, "start_value", tCharacterData, "minimum_value", tCharacterData,
				"maximum_value", tCharacterData, "increment", tCharacterData, "cycle_option", tYesOrNo),
			stream: streamBy(false, infoSequencesRow), by: lookupBy(2, false, infoSequencesRow)},
		{oid: 13382, schema: "information_schema", name: "schemata", kind: 'v',
			cols: eval.Columns("catalog_name", tSQLIdentifier, "schema_name", tSQLIdentifier, "schema_owner", tSQLIdentifier,
				"default_character_set_catalog", tSQLIdentifier, "default_character_set_schema", tSQLIdentifier,
				"default_character_set_name", tSQLIdentifier, "sql_path", tCharacterData),
			rows: func(s *Session) ([][]eval.Datum, error) {
				var out [][]eval.Datum
				for _, n := range s.schemaNames() {
					// As PostgreSQL's view: the schemas the user owns or
					// holds a privilege on.
					if p, err := s.schemaPrivileges(n, s.cfg.User); err != nil || p == 0 {
						continue
					}
					owner := s.roleName(s.schemaOwnerOID(n))
					out = append(out, []eval.Datum{eval.Text(s.cfg.Database), eval.Text(n), eval.Text(owner), eval.Null, eval.Null, eval.Null, eval.Null})
				}
				return out, nil
			}},
	}
}

// persistence is relpersistence: p permanent, u unlogged, t temporary.
func (s *Session) persistence(i seqInfo) string {
	switch {
	case s.isTemp(i.Name):
		return "t"
	case i.Unlogged:
		return "u"
	}
	return "p"
}

// sqlTypeName maps seqmath's type names to pg_type's.
func sqlTypeName(s string) string {
	switch s {
	case "bigint":
		return "int8"
	case "integer":
		return "int4"
	}
	return "int2"
}

// sequenceColumns are the columns of a sequence relation.
var sequenceColumns = eval.Columns("last_value", eval.TInt8, "log_cnt", eval.TInt8, "is_called", eval.TBool)

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
	eng := s.engFor(n)
	info, err := eng.Info(n)
	if err != nil {
		return nil, err
	}
	return &relation{oid: s.oids().forSequence(s.oidEng(s.baseFor(n)), info), schema: n.Schema(), name: n.Rel(), kind: 'S', cols: sequenceColumns,
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
			return [][]eval.Datum{{eval.Int(info.Options.Value(info.State.Last)), eval.Int(info.Window), eval.Bool(info.State.Called)}}, nil
		}}, nil
}

// statRow is a sequence's seqd_stat_sequences row.
func statRow(s *Session, i seqInfo) []eval.Datum {
	used, total := i.RangeUse()
	b := i.Burned
	// As pg_sequences: the position only to roles with
	// SELECT or USAGE on the sequence.
	last, counter := eval.Null, eval.Null
	if p, err := s.privilegesOn(i.Name); err == nil && p&(engine.PrivSelect|engine.PrivUsage) != 0 {
		last, counter = eval.Int(i.Options.Value(i.State.Last)), eval.Int(i.State.Last)
	}
	return []eval.Datum{eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), last, eval.Int(i.Window),
		eval.Float(total - used), eval.Float(used / total), eval.Bool(i.Unlogged), eval.Text(i.Options.Shape.String()), counter,
		eval.Int(b.Crash), eval.Int(b.Failover), eval.Int(b.Release), eval.Bool(i.Options.NoOrder)}
}

// infoSequencesRow is a sequence's information_schema.sequences row.
func infoSequencesRow(s *Session, i seqInfo) []eval.Datum {
	o := i.Options
	prec := map[string]int64{"bigint": 64, "integer": 32, "smallint": 16}[o.Type.String()]
	return []eval.Datum{eval.Text(s.cfg.Database), eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), eval.Text(o.Type.String()), eval.Int(prec), eval.Int(2), eval.Int(0),
		eval.Text(fmt.Sprint(o.Start)), eval.Text(fmt.Sprint(o.Min)), eval.Text(fmt.Sprint(o.Max)), eval.Text(fmt.Sprint(o.Increment)), boolText(o.Cycle)}
}

// streamBy streams the rows of a relation with a row per sequence, made
// by row; reserved as rowsOf.
func streamBy(reserved bool, row func(*Session, seqInfo) []eval.Datum) func(*Session) eval.Rows {
	return func(s *Session) eval.Rows {
		return streamOf(s, reserved, func(i seqInfo) []eval.Datum { return row(s, i) })
	}
}

// lookupBy looks up the rows of a relation with a row per sequence, made
// by row, by the sequence's name in column nameCol.
func lookupBy(nameCol int, reserved bool, row func(*Session, seqInfo) []eval.Datum) *seqLookup {
	return &seqLookup{nameCol: nameCol, oidCol: -1, rows: func(s *Session, seqs []seqInfo, _ int, _ eval.Datum, _ bool) ([][]eval.Datum, error) {
		return rowsOf(s, seqs, reserved, func(i seqInfo) []eval.Datum { return row(s, i) })
	}}
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
