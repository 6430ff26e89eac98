package executor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sql"
)

// relation is a virtual relation of the catalog (or a sequence).
type relation struct {
	oid          uint32
	schema, name string
	kind         byte // relkind: 'r' table, 'v' view
	cols         []relCol
	rows         func(s *Session) ([][]Datum, error)
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
	for _, r := range catalogRelations() {
		catalogRels[r.schema+"."+r.name] = r
		catalogOIDs[r.oid] = r
		catalogOrder = append(catalogOrder, r)
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

// catalogNames lists what seqd's catalog offers, for hints.
func catalogNames() string {
	catalogOnce.Do(registerCatalog)
	var out []string
	for _, r := range catalogOrder {
		if r.schema == "pg_catalog" {
			out = append(out, r.name)
		} else {
			out = append(out, r.schema+"."+r.name)
		}
	}
	return strings.Join(out, ", ")
}

func cols(spec ...any) []relCol {
	out := make([]relCol, 0, len(spec)/2)
	for i := 0; i < len(spec); i += 2 {
		out = append(out, relCol{spec[i].(string), spec[i+1].(*Type)})
	}
	return out
}

// The information_schema columns' domains (sql_identifier,
// character_data, cardinal_number, yes_or_no) are described to clients by
// their base types, as PostgreSQL describes domain columns.
var (
	tSQLIdentifier  = tName
	tCharacterData  = tVarchar
	tCardinalNumber = tInt4
	tYesOrNo        = tVarchar
)

const (
	superuserOID     = 10
	dbOwnerOID       = 6171
	pgClassOID       = 1259
	pgNamespaceOID   = 2615
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
	for _, eng := range []*engine.Engine{s.tempEng, s.eng} {
		if eng == nil {
			continue
		}
		var cat seqCatalog = eng
		switch {
		case eng == s.eng && s.txn != nil:
			cat = s.txn
		case eng == s.tempEng && s.tempTxn != nil:
			cat = s.tempTxn
		}
		for _, info := range cat.List() {
			out = append(out, seqInfo{Info: info, oid: s.oids().forSequence(eng, info), nsp: s.oids().forSchema(info.Name.Schema())})
		}
	}
	return out
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
		return s.cfg.User
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

// roleList is pg_roles: the engine's roles, and the connecting user (the
// owner of everything until privileges exist) with OID 10, as a
// superuser that can log in when it is not a role itself (trust).
func (s *Session) roleList() []roleRow {
	out := []roleRow{{Role: engine.Role{Name: s.cfg.User, Superuser: true, Login: true, CreateRole: true}, oid: superuserOID}}
	for _, r := range s.roles().Roles() {
		if r.Name == s.cfg.User {
			out[0].Role = r
			continue
		}
		out = append(out, roleRow{Role: r, oid: s.oids().forSchema(roleOIDPrefix + r.Name)})
	}
	return out
}

// relationVisible is pg_table_is_visible: the relation is what its bare
// name finds along the search path.
func (s *Session) relationVisible(oid uint32) bool {
	if r := catalogByOID(oid); r != nil {
		return r.schema == "pg_catalog"
	}
	n, _, ok := s.oids().sequence(oid)
	return ok && s.visible(n)
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

func boolText(b bool) Datum {
	if b {
		return Text("YES")
	}
	return Text("NO")
}

func catalogRelations() []*relation {
	// seqRows makes a row of each sequence; reserved first reads a
	// NOORDER sequence's position from the store, in cluster mode (the
	// views that show last_value).
	seqRows := func(s *Session, reserved bool, f func(seqInfo) []Datum) ([][]Datum, error) {
		var out [][]Datum
		for _, info := range s.sequences() {
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
	seqRow := func(s *Session, f func(seqInfo) []Datum) ([][]Datum, error) { return seqRows(s, false, f) }
	seqRowReserved := func(s *Session, f func(seqInfo) []Datum) ([][]Datum, error) { return seqRows(s, true, f) }
	catalogRow := func(r *relation, nsp uint32) []Datum {
		return []Datum{Int(int64(r.oid)), Text(r.name), Int(int64(nsp)), Int(0), Int(0), Int(superuserOID), Int(0), Int(0), Int(0),
			Int(0), Float(-1), Int(0), Int(0), Bool(false), Bool(false), Text("p"), Text(string(r.kind)), Int(int64(len(r.cols))), Int(0),
			Bool(false), Bool(false), Bool(false), Bool(false), Bool(false), Bool(true), Text("n"), Bool(false), Int(0), Null, Null, Null}
	}
	classCols := cols("oid", tOid, "relname", tName, "relnamespace", tOid, "reltype", tOid, "reloftype", tOid, "relowner", tOid,
		"relam", tOid, "relfilenode", tOid, "reltablespace", tOid, "relpages", tInt4, "reltuples", typeByOID(OIDFloat4),
		"relallvisible", tInt4, "reltoastrelid", tOid, "relhasindex", tBool, "relisshared", tBool, "relpersistence", tChar,
		"relkind", tChar, "relnatts", tInt2, "relchecks", tInt2, "relhasrules", tBool, "relhastriggers", tBool,
		"relhassubclass", tBool, "relrowsecurity", tBool, "relforcerowsecurity", tBool, "relispopulated", tBool,
		"relreplident", tChar, "relispartition", tBool, "relrewrite", tOid, "relacl", tAclArr, "reloptions", tTextArr,
		"relpartbound", typeByOID(194))
	pgSequencesCols := cols("schemaname", tName, "sequencename", tName, "sequenceowner", tName, "data_type", tRegtype,
		"start_value", tInt8, "min_value", tInt8, "max_value", tInt8, "increment_by", tInt8, "cycle", tBool,
		"cache_size", tInt8, "last_value", tInt8)
	var rels []*relation
	rels = []*relation{
		{oid: pgClassOID, schema: "pg_catalog", name: "pg_class", kind: 'r', cols: classCols, rows: func(s *Session) ([][]Datum, error) {
			out, _ := seqRow(s, func(i seqInfo) []Datum {
				return []Datum{Int(int64(i.oid)), Text(i.Name.Rel()), Int(int64(i.nsp)), Int(0), Int(0), Int(superuserOID), Int(0),
					Int(int64(i.oid)), Int(0), Int(1), Float(-1), Int(0), Int(0), Bool(false), Bool(false), Text(s.persistence(i)), Text("S"),
					Int(sequenceRelAttrs), Int(0), Bool(false), Bool(false), Bool(false), Bool(false), Bool(false), Bool(true),
					Text("n"), Bool(false), Int(0), Null, Null, Null}
			})
			for _, r := range rels {
				out = append(out, catalogRow(r, s.oids().forSchema(r.schema)))
			}
			return out, nil
		}},
		{oid: pgNamespaceOID, schema: "pg_catalog", name: "pg_namespace", kind: 'r',
			cols: cols("oid", tOid, "nspname", tName, "nspowner", tOid, "nspacl", tAclArr), rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
				for _, n := range s.schemaNames() {
					out = append(out, []Datum{Int(int64(s.oids().forSchema(n))), Text(n), Int(s.schemaOwnerOID(n)), Null})
				}
				return out, nil
			}},
		{oid: 2224, schema: "pg_catalog", name: "pg_sequence", kind: 'r',
			cols: cols("seqrelid", tOid, "seqtypid", tOid, "seqstart", tInt8, "seqincrement", tInt8, "seqmax", tInt8,
				"seqmin", tInt8, "seqcache", tInt8, "seqcycle", tBool),
			rows: func(s *Session) ([][]Datum, error) {
				return seqRow(s, func(i seqInfo) []Datum {
					o := i.Options
					return []Datum{Int(int64(i.oid)), Int(int64(typesByName[sqlTypeName(o.Type.String())].oid)), Int(o.Start),
						Int(o.Increment), Int(o.Max), Int(o.Min), Int(o.Cache), Bool(o.Cycle)}
				})
			}},
		{oid: 12100, schema: "pg_catalog", name: "pg_sequences", kind: 'v', cols: pgSequencesCols, rows: func(s *Session) ([][]Datum, error) {
			return seqRowReserved(s, func(i seqInfo) []Datum {
				o := i.Options
				last := Null
				// As PostgreSQL's view: last_value only with SELECT or USAGE.
				if p, err := s.privilegesOn(i.Name); i.State.Called && err == nil && p&(engine.PrivSelect|engine.PrivUsage) != 0 {
					last = Int(o.Value(i.State.Last)) // a shaped sequence's value; the rest are its counter's
				}
				owner := s.cfg.User
				if a, err := s.engFor(i.Name).ACL(i.Name); err == nil {
					owner = s.ownerName(a)
				}
				t := typesByName[sqlTypeName(o.Type.String())]
				return []Datum{Text(i.Name.Schema()), Text(i.Name.Rel()), Text(owner), {Kind: KInt, I: int64(t.oid), S: t.sqlName},
					Int(o.Start), Int(o.Min), Int(o.Max), Int(o.Increment), Bool(o.Cycle), Int(o.Cache), last}
			})
		}},
		{oid: 1247, schema: "pg_catalog", name: "pg_type", kind: 'r',
			cols: cols("oid", tOid, "typname", tName, "typnamespace", tOid, "typowner", tOid, "typlen", tInt2, "typbyval", tBool,
				"typtype", tChar, "typcategory", tChar, "typispreferred", tBool, "typisdefined", tBool, "typdelim", tChar,
				"typrelid", tOid, "typsubscript", tRegproc, "typelem", tOid, "typarray", tOid, "typinput", tRegproc,
				"typoutput", tRegproc, "typreceive", tRegproc, "typsend", tRegproc, "typalign", tChar, "typstorage", tChar,
				"typnotnull", tBool, "typbasetype", tOid, "typtypmod", tInt4, "typndims", tInt4, "typcollation", tOid,
				"typdefault", tText, "typacl", tAclArr),
			rows: func(s *Session) ([][]Datum, error) {
				out := make([][]Datum, 0, len(builtinTypes))
				for _, r := range builtinTypes {
					proc := func(name string) Datum { return Datum{Kind: KInt, I: 1, S: name} }
					sub := proc("-")
					if r.category == 'A' && r.elem != 0 {
						sub = proc("array_subscript_handler")
					}
					out = append(out, []Datum{Int(int64(r.oid)), Text(r.name), Int(11), Int(superuserOID), Int(int64(r.len)),
						Bool(r.byval), Text(string(r.typtype)), Text(string(r.category)), Bool(r.preferred), Bool(true),
						Text(string(r.delim)), Int(0), sub, Int(int64(r.elem)), Int(int64(r.array)), proc(r.input), proc(r.output),
						proc(r.recv), proc(r.send), Text(string(r.align)), Text(string(r.storage)), Bool(false), Int(0), Int(-1),
						Int(0), Int(int64(r.collation)), Null, Null})
				}
				return out, nil
			}},
		{oid: 12000, schema: "pg_catalog", name: "pg_roles", kind: 'v',
			cols: cols("rolname", tName, "rolsuper", tBool, "rolinherit", tBool, "rolcreaterole", tBool, "rolcreatedb", tBool,
				"rolcanlogin", tBool, "rolreplication", tBool, "rolconnlimit", tInt4, "rolpassword", tText, "rolvaliduntil", tTimestamp,
				"rolbypassrls", tBool, "rolconfig", tTextArr, "oid", tOid),
			rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
				for _, r := range s.roleList() {
					// The bootstrap superuser (OID 10) has every attribute, as
					// initdb's; seqd has no CREATEDB, REPLICATION or BYPASSRLS
					// to give any other role.
					boot := r.oid == superuserOID && r.Superuser && r.CreateRole
					config := Null
					if len(r.Settings) > 0 {
						var kv []Datum
						for _, st := range r.Settings {
							kv = append(kv, Text(st.Name+"="+st.Value))
						}
						config = Array(kv...)
					}
					out = append(out, []Datum{Text(r.Name), Bool(r.Superuser), Bool(true), Bool(r.CreateRole || boot), Bool(boot), Bool(r.Login),
						Bool(boot), Int(-1), Text("********"), Null, Bool(boot), config, Int(int64(r.oid))})
				}
				return out, nil
			}},
		{oid: 1261, schema: "pg_catalog", name: "pg_auth_members", kind: 'r',
			cols: cols("roleid", tOid, "member", tOid, "grantor", tOid, "admin_option", tBool),
			rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
				for _, r := range s.roles().Roles() {
					for _, m := range r.MemberOf {
						// seqd does not record who granted: shown as the
						// bootstrap superuser, as grants by superusers are.
						out = append(out, []Datum{Int(s.ownerOID(m.Role)), Int(s.ownerOID(r.Name)), Int(superuserOID), Bool(m.Admin)})
					}
				}
				return out, nil
			}},
		{oid: 12010, schema: "pg_catalog", name: "pg_user", kind: 'v',
			cols: cols("usename", tName, "usesysid", tOid, "usecreatedb", tBool, "usesuper", tBool, "userepl", tBool,
				"usebypassrls", tBool, "passwd", tText, "valuntil", tTimestamp, "useconfig", tTextArr),
			rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
				for _, r := range s.roleList() {
					if r.Login {
						boot := r.oid == superuserOID && r.Superuser && r.CreateRole
						out = append(out, []Datum{Text(r.Name), Int(int64(r.oid)), Bool(boot), Bool(r.Superuser), Bool(boot),
							Bool(boot), Text("********"), Null, Null})
					}
				}
				return out, nil
			}},
		{oid: 1262, schema: "pg_catalog", name: "pg_database", kind: 'r',
			cols: cols("oid", tOid, "datname", tName, "datdba", tOid, "encoding", tInt4, "datlocprovider", tChar, "datistemplate", tBool,
				"datallowconn", tBool, "datconnlimit", tInt4, "dattablespace", tOid, "datcollate", tText, "datctype", tText,
				"daticulocale", tText, "datcollversion", tText, "datacl", tAclArr),
			rows: func(s *Session) ([][]Datum, error) {
				return [][]Datum{{Int(seqdDatabaseOID), Text(s.cfg.Database), Int(s.ownerOID(s.cat().DatabaseACL().Owner)), Int(6), Text("c"), Bool(false), Bool(true),
					Int(-1), Int(1663), Text("C.UTF-8"), Text("C.UTF-8"), Null, Null, Null}}, nil
			}},
		{oid: 12200, schema: "pg_catalog", name: "pg_settings", kind: 'v',
			cols: cols("name", tText, "setting", tText, "unit", tText, "category", tText, "short_desc", tText, "extra_desc", tText,
				"context", tText, "vartype", tText, "source", tText, "min_val", tText, "max_val", tText, "enumvals", tTextArr,
				"boot_val", tText, "reset_val", tText, "sourcefile", tText, "sourceline", tInt4, "pending_restart", tBool),
			rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
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
					row := []Datum{Text(display), Text(setting), Null, Text("seqd"), Text(d.desc), Null,
						Text(ctx), Text("string"), Text("default"), Null, Null, Null, Text(d.value), Text(reset), Null, Null, Bool(false)}
					if p := pgSettingByName[name]; p != nil {
						// PostgreSQL's own account of the parameter: numbers
						// in its base unit, as pg_settings gives them.
						row[1], row[13] = Text(p.baseUnits(setting)), Text(p.baseUnits(reset))
						row[2], row[6], row[7], row[9], row[10], row[12] = textOrNull(p.unit), Text(p.context), Text(p.vartype), textOrNull(p.min), textOrNull(p.max), Text(p.boot)
						if p.enumvals != nil {
							row[11] = textArray(p.enumvals)
						}
					}
					out = append(out, row)
				}
				return out, nil
			}},
		{oid: 2601, schema: "pg_catalog", name: "pg_am", kind: 'r', cols: cols("oid", tOid, "amname", tName, "amhandler", tRegproc, "amtype", tChar),
			rows: func(*Session) ([][]Datum, error) {
				var out [][]Datum
				for _, am := range []struct {
					oid           int64
					name, handler string
					typ           string
				}{{2, "heap", "heap_tableam_handler", "t"}, {403, "btree", "bthandler", "i"}, {405, "hash", "hashhandler", "i"},
					{783, "gist", "gisthandler", "i"}, {2742, "gin", "ginhandler", "i"}, {4000, "spgist", "spghandler", "i"}, {3580, "brin", "brinhandler", "i"}} {
					out = append(out, []Datum{Int(am.oid), Text(am.name), {Kind: KInt, I: 1, S: am.handler}, Text(am.typ)})
				}
				return out, nil
			}},
		{oid: 2609, schema: "pg_catalog", name: "pg_description", kind: 'r',
			cols: cols("objoid", tOid, "classoid", tOid, "objsubid", tInt4, "description", tText),
			rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
				for _, i := range s.sequences() {
					if c, err := s.engFor(i.Name).Comment(i.Name); err == nil && c != "" {
						out = append(out, []Datum{Int(int64(i.oid)), Int(pgClassOID), Int(0), Text(c)})
					}
				}
				return out, nil
			}},
		{oid: 2608, schema: "pg_catalog", name: "pg_depend", kind: 'r',
			cols: cols("classid", tOid, "objid", tOid, "objsubid", tInt4, "refclassid", tOid, "refobjid", tOid, "refobjsubid", tInt4, "deptype", tChar),
			rows: func(s *Session) ([][]Datum, error) {
				return seqRow(s, func(i seqInfo) []Datum {
					return []Datum{Int(pgClassOID), Int(int64(i.oid)), Int(0), Int(pgNamespaceOID), Int(int64(i.nsp)), Int(0), Text("n")}
				})
			}},
		{oid: 1249, schema: "pg_catalog", name: "pg_attribute", kind: 'r',
			cols: cols("attrelid", tOid, "attname", tName, "atttypid", tOid, "attlen", tInt2, "attnum", tInt2, "attndims", tInt4,
				"atttypmod", tInt4, "attbyval", tBool, "attalign", tChar, "attstorage", tChar, "attcompression", tChar,
				"attnotnull", tBool, "atthasdef", tBool, "atthasmissing", tBool, "attidentity", tChar, "attgenerated", tChar,
				"attisdropped", tBool, "attislocal", tBool, "attinhcount", tInt4, "attcollation", tOid, "attacl", tAclArr,
				"attoptions", tTextArr, "attfdwoptions", tTextArr),
			rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
				for _, i := range s.sequences() {
					for k, c := range sequenceColumns {
						out = append(out, []Datum{Int(int64(i.oid)), Text(c.name), Int(int64(c.t.oid)), Int(int64(c.t.len)), Int(int64(k + 1)),
							Int(0), Int(-1), Bool(c.t.byval), Text(string(c.t.align)), Text("p"), Text(""), Bool(true), Bool(false),
							Bool(false), Text(""), Text(""), Bool(false), Bool(true), Int(0), Int(0), Null, Null, Null})
					}
				}
				return out, nil
			}},
		{oid: 12300, schema: "pg_catalog", name: "seqd_stat_sequences", kind: 'v',
			cols: cols("schemaname", tName, "sequencename", tName, "last_value", tInt8, "reserved_values", tInt8,
				"remaining_values", tFloat8, "fraction_used", tFloat8, "unlogged", tBool, "shape", tText, "last_counter", tInt8,
				"burned_crash", tInt8, "burned_failover", tInt8, "burned_release", tInt8, "noorder", tBool),
			rows: func(s *Session) ([][]Datum, error) {
				return seqRowReserved(s, func(i seqInfo) []Datum {
					used, total := i.RangeUse()
					b := i.Burned
					// As pg_sequences: the position only to roles with
					// SELECT or USAGE on the sequence.
					last, counter := Null, Null
					if p, err := s.privilegesOn(i.Name); err == nil && p&(engine.PrivSelect|engine.PrivUsage) != 0 {
						last, counter = Int(i.Options.Value(i.State.Last)), Int(i.State.Last)
					}
					return []Datum{Text(i.Name.Schema()), Text(i.Name.Rel()), last, Int(i.Window),
						Float(total - used), Float(used / total), Bool(i.Unlogged), Text(i.Options.Shape.String()), counter,
						Int(b.Crash), Int(b.Failover), Int(b.Release), Bool(i.Options.NoOrder)}
				})
			}},
		{oid: 13300, schema: "information_schema", name: "sequences", kind: 'v',
			cols: cols("sequence_catalog", tSQLIdentifier, "sequence_schema", tSQLIdentifier, "sequence_name", tSQLIdentifier,
				"data_type", tCharacterData, "numeric_precision", tCardinalNumber, "numeric_precision_radix", tCardinalNumber,
				"numeric_scale", tCardinalNumber, "start_value", tCharacterData, "minimum_value", tCharacterData,
				"maximum_value", tCharacterData, "increment", tCharacterData, "cycle_option", tYesOrNo),
			rows: func(s *Session) ([][]Datum, error) {
				return seqRow(s, func(i seqInfo) []Datum {
					o := i.Options
					prec := map[string]int64{"bigint": 64, "integer": 32, "smallint": 16}[o.Type.String()]
					return []Datum{Text(s.cfg.Database), Text(i.Name.Schema()), Text(i.Name.Rel()), Text(o.Type.String()), Int(prec), Int(2), Int(0),
						Text(fmt.Sprint(o.Start)), Text(fmt.Sprint(o.Min)), Text(fmt.Sprint(o.Max)), Text(fmt.Sprint(o.Increment)), boolText(o.Cycle)}
				})
			}},
		{oid: 13310, schema: "information_schema", name: "schemata", kind: 'v',
			cols: cols("catalog_name", tSQLIdentifier, "schema_name", tSQLIdentifier, "schema_owner", tSQLIdentifier,
				"default_character_set_catalog", tSQLIdentifier, "default_character_set_schema", tSQLIdentifier,
				"default_character_set_name", tSQLIdentifier, "sql_path", tCharacterData),
			rows: func(s *Session) ([][]Datum, error) {
				var out [][]Datum
				for _, n := range s.schemaNames() {
					// As PostgreSQL's view: the schemas the user owns or
					// holds a privilege on.
					if p, err := s.schemaPrivileges(n, s.cfg.User); err != nil || p == 0 {
						continue
					}
					owner := s.roleName(s.schemaOwnerOID(n))
					out = append(out, []Datum{Text(s.cfg.Database), Text(n), Text(owner), Null, Null, Null, Null})
				}
				return out, nil
			}},
	}
	return rels
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
var sequenceColumns = []relCol{{"last_value", tInt8}, {"log_cnt", tInt8}, {"is_called", tBool}}

// resolveRelation finds a relation by name: a catalog relation or a
// sequence, along the search path when the name has no schema.
func (s *Session) resolveRelation(q sql.QName) (*relation, error) {
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
	return &relation{oid: s.oids().forSequence(s.baseFor(n), info), schema: n.Schema(), name: n.Rel(), kind: 'S', cols: sequenceColumns,
		rows: func(s *Session) ([][]Datum, error) {
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
			return [][]Datum{{Int(info.Options.Value(info.State.Last)), Int(info.Window), Bool(info.State.Called)}}, nil
		}}, nil
}
