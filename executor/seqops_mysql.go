// What the MySQL front end asks of a session besides the sequence
// functions and transactions: MySQL's relations (information_schema's
// tables and MariaDB's read of a sequence as a table), by names its
// built statements hold, and typed operations for the statements it
// answers (USE, RENAME TABLE, SHOW CREATE SEQUENCE), so that it builds
// no SQL text.

package executor

import (
	"context"
	"slices"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// MySQL's relations are named in mysqlSchema, a schema no one can create
// (PostgreSQL reserves the prefix pg_) and that pg_namespace does not
// list; nor does pg_class list the relations. A name there resolves only
// in a FROM clause (eval's Relation): its catalog part says which
// relation it is: information_schema for MySQL's information_schema
// table of that name (catalog.MySQL), else MariaDB's read of the
// sequence of that schema and name (empty: found along the search path)
// as a table. A PostgreSQL client may read them too by writing such a
// name; they show it nothing it could not read otherwise: the tables
// list the sequences it holds a privilege on, a sequence's row needs
// SELECT on it, as reading the sequence does.
const mysqlSchema = "pg_seqd_mysql"

// mysqlInfoCatalog is the catalog part of a name of MySQL's
// information_schema.
const mysqlInfoCatalog = "information_schema"

// MySQLInformationSchema is the name of MySQL's information_schema table
// table (lower case) as a built statement's FROM names it; false for a
// table seqd does not have.
func MySQLInformationSchema(table string) (pgsql.QName, bool) {
	if mysqlCatalog().Lookup("information_schema", table) == nil {
		return pgsql.QName{}, false
	}
	return pgsql.QName{Catalog: mysqlInfoCatalog, Schema: mysqlSchema, Rel: table}, true
}

// MariaDBSequenceTable is the name of MariaDB's read of the sequence
// schema.rel as a table (catalog.MariaDBSequenceColumns) as a built
// statement's FROM names it; an empty schema finds the sequence along the
// search path, a temporary one first.
func MariaDBSequenceTable(schema, rel string) pgsql.QName {
	return pgsql.QName{Catalog: schema, Schema: mysqlSchema, Rel: rel}
}

var (
	mysqlOnce  sync.Once
	mysqlViews *catalog.Catalog
	mysqlRels  map[string]*relation // by lower-case table name
)

func mysqlCatalog() *catalog.Catalog {
	mysqlOnce.Do(registerMySQL)
	return mysqlViews
}

// registerMySQL makes the relations of MySQL's information_schema, their
// columns named in lower case: MySQL's names are not case-sensitive, and
// the front end lowers those its statements write.
func registerMySQL() {
	mysqlViews = catalog.MySQL()
	mysqlRels = map[string]*relation{}
	for _, v := range mysqlViews.Views() {
		r := viewRelation(v)
		r.acl = catalog.PublicACL
		r.cols = slices.Clone(r.cols)
		for i := range r.cols {
			r.cols[i].Name = strings.ToLower(r.cols[i].Name)
		}
		mysqlRels[v.Name] = r
	}
}

// ShowVariables gives the front end's system variables (MySQL's
// @@variables), which information_schema's GLOBAL_VARIABLES,
// SESSION_VARIABLES and SYSTEM_VARIABLES show (catalog.SystemVariable):
// vars is called on the session's goroutine, as a statement reads them,
// and gives the session's own values as they are then.
func (s *Session) ShowVariables(vars func() []catalog.SystemVariable) { s.variables = vars }

// mysqlRelation resolves a name of mysqlSchema; ok is false for any other
// name, which the caller resolves.
func (s *Session) mysqlRelation(q pgsql.QName) (rel *relation, ok bool, err error) {
	if q.Schema != mysqlSchema {
		return nil, false, nil
	}
	if q.Catalog == mysqlInfoCatalog {
		mysqlCatalog()
		if rel := mysqlRels[q.Rel]; rel != nil {
			return rel, true, nil
		}
		return nil, true, sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s.%s\" does not exist", q.Catalog, q.Rel)
	}
	rel, err = s.mariadbSequence(pgsql.QName{Schema: q.Catalog, Rel: q.Rel})
	return rel, true, err
}

// mariadbSequence is the relation of MariaDB's read of a sequence as a
// table: a row made of its options and position, read as PostgreSQL 15
// reads a sequence relation, with SELECT on it (USAGE is not enough): a
// role without gets InsufficientPrivilege, never a made-up position.
func (s *Session) mariadbSequence(q pgsql.QName) (*relation, error) {
	n, err := s.lookupSequence(q)
	if err != nil {
		return nil, err
	}
	return s.sequenceRelationOf(n, catalog.MariaDBSequenceColumns, catalog.MariaDBSequenceRow)
}

// RenameSequence is ALTER SEQUENCE "fromSchema"."from" RENAME TO "to",
// then ALTER SEQUENCE ... SET SCHEMA "toSchema", each through the
// statement's own code (alter.go), with its checks and errors; the
// rename is left out when only the schema changes. A rename to the name
// it has, in the same schema, fails as PostgreSQL's does (42P07).
func (s *Session) RenameSequence(ctx context.Context, fromSchema, from, toSchema, to string) error {
	if to != from || toSchema == fromSchema {
		err := s.ddlStatement(ctx, "ALTER SEQUENCE", func(c *planner) (*Prepared, error) {
			return c.rename(&pg.RenameStmt{RenameType: pg.ObjectType_OBJECT_SEQUENCE, Relation: rangeVar(fromSchema, from), Newname: to})
		})
		if err != nil {
			return err
		}
	}
	if toSchema == fromSchema {
		return nil
	}
	return s.ddlStatement(ctx, "ALTER SEQUENCE", func(c *planner) (*Prepared, error) {
		return c.setSchema(&pg.AlterObjectSchemaStmt{ObjectType: pg.ObjectType_OBJECT_SEQUENCE, Relation: rangeVar(fromSchema, to), Newschema: toSchema})
	})
}

// UseSchema is MySQL's USE: the schema must exist (as pg_namespace lists
// it), and becomes the search path, as SET search_path = "schema" sets it.
// MariaDB's USE is no part of a transaction: a ROLLBACK, to its start or
// to a savepoint, leaves the schema in use, as the front end shows it.
func (s *Session) UseSchema(ctx context.Context, schema string) error {
	err := s.ddlStatement(ctx, "SET", func(c *planner) (*Prepared, error) {
		if !slices.Contains(s.schemaNames(), schema) {
			return nil, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", schema)
		}
		return c.set(&pg.VariableSetStmt{Kind: pg.VariableSetKind_VAR_SET_VALUE, Name: "search_path", Args: []*pg.Node{pg.MakeAConstStrNode(schema, -1)}})
	})
	if err == nil && s.tx.open {
		path := s.settings.values["search_path"]
		keep := func(m *map[string]string) {
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)["search_path"] = path
		}
		keep(&s.tx.saved)
		for i := range s.tx.savepoints {
			keep(&s.tx.savepoints[i].settings)
		}
	}
	return err
}

// SchemaExists reports whether schema is one USE would find: a schema of
// the catalog, a built-in one, or the session's temporary one.
func (s *Session) SchemaExists(ctx context.Context, schema string) (bool, error) {
	var ok bool
	err := s.typedStatement(ctx, "select * from pg_namespace", false, func(context.Context) error {
		s.tx.queried = true
		ok = slices.Contains(s.schemaNames(), schema)
		return nil
	})
	return ok, err
}

// MariaDBGrants are role's grants as MariaDB's SHOW GRANTS lists an
// account's (catalog.MariaDBGrantLines); seen is false where the
// session's role may not see role's (not its own, and it is no
// superuser), found false for a role that is not there.
func (s *Session) MariaDBGrants(ctx context.Context, role string) (lines []string, found, seen bool, err error) {
	err = s.typedStatement(ctx, "select * from pg_roles", false, func(context.Context) error {
		s.tx.queried = true
		lines, found, seen = catalog.MariaDBGrantLines((*catalogSource)(s), role)
		return nil
	})
	return lines, found, seen, err
}

// Definition is the sequence schema.rel's definition (an empty schema:
// found along the search path, a temporary one first), its owner, type
// and options, as pg_sequences shows them to any role: Describe without
// the position, which needs no privilege.
func (s *Session) Definition(ctx context.Context, schema, rel string) (MariaDBDefinition, error) {
	var d MariaDBDefinition
	err := s.typedStatement(ctx, "select * from pg_sequences", false, func(context.Context) error {
		s.tx.queried = true
		n, err := s.sequenceByQName(pgsql.QName{Schema: schema, Rel: rel})
		if err != nil {
			return err
		}
		eng := s.engFor(n)
		info, err := eng.Info(n)
		if err != nil {
			return err
		}
		o := info.Options
		a, _ := eng.ACL(n)
		d.Description = Description{Type: eval.TypeByName(sqlTypeName(o.Type.String())).SQLName(), Start: o.Start, Min: o.Min, Max: o.Max,
			Increment: o.Increment, Cycle: o.Cycle, Cache: o.Cache, Owner: s.roleName(s.ownerOID(s.ownerName(a)))}
		if o.IncrementZero {
			d.Increment = 0
		}
		if o.Cache == 1 && !o.CacheOne {
			d.Cache = 0
		}
		d.Temporary = s.isTemp(n)
		if d.Privileges, err = s.privilegesOn(n); err != nil {
			return err
		}
		d.Comment, err = eng.Comment(n)
		return err
	})
	return d, err
}

// MariaDBDefinition is what SHOW CREATE SEQUENCE shows of a sequence:
// its definition and its comment (COMMENT ON, MariaDB's COMMENT=; empty
// for none). Its Increment is 0 for a sequence written with MariaDB's
// INCREMENT BY 0 (which steps by 1), and its Cache MariaDB's cache_size:
// 0 for NOCACHE (a cache of 1 not written as MariaDB's CACHE 1).
// Privileges are the session user's on the sequence, by which the front
// end answers as MariaDB answers a user without them (SHOW CREATE, LOCK
// TABLES: 1142); Definition itself needs none, as pg_sequences.
// Temporary: it is the session's temporary sequence.
type MariaDBDefinition struct {
	Description
	Comment    string
	Privileges engine.Privs
	Temporary  bool
}

// DiscardWindow is what MariaDB's ALTER SEQUENCE does first to the
// sequence schema.rel (an empty schema: found along the search path, a
// temporary one first): the values reserved beyond its last one are
// given up, and its next value is the one after its durable mark
// (engine.DiscardWindow), as MariaDB's is its next_not_cached_value. It
// only moves the sequence ahead, as taking values does, and needs what
// nextval needs.
func (s *Session) DiscardWindow(ctx context.Context, schema, rel string) error {
	return s.seqStatement(ctx, opNextval, schema, rel, func(ctx context.Context, n engine.Name) error {
		if err := seqFuncTable[fnNextval].check(s, n); err != nil {
			return err
		}
		if d, ok := s.engFor(n).(windowDiscarder); ok {
			return d.DiscardWindow(ctx, n)
		}
		return nil // a transaction's view: MariaDB's DDL runs in none
	})
}

// windowDiscarder is the engine's DiscardWindow, which a transaction's
// view of the catalog does not offer.
type windowDiscarder interface {
	DiscardWindow(ctx context.Context, n engine.Name) error
}

// mariadbSetval is MariaDB's SETVAL(n, v, is_used) on eng: SetvalAhead,
// but a value beyond the bound the sequence runs towards (above
// MAXVALUE going up, below MINVALUE going down) is taken, as MariaDB
// takes it, and leaves the sequence spent: its last value the bound, so
// that the next NEXT VALUE FOR reports it run out (or, CYCLE, wraps),
// and next_not_cached_value shows the bound's successor, as MariaDB's.
// (A value beyond the other bound is behind the sequence: NULL.)
func mariadbSetval(ctx context.Context, eng seqCatalog, n engine.Name, v int64, called bool) (uint64, bool, error) {
	if info, err := eng.Info(n); err == nil && !info.Options.Shape.Shaped() {
		o := info.Options
		switch {
		case o.Increment > 0 && v > o.Max:
			v, called = o.Max, true
		case o.Increment < 0 && v < o.Min:
			v, called = o.Min, true
		}
	}
	return eng.SetvalAhead(ctx, n, v, called)
}
