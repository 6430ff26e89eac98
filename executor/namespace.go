package executor

import (
	"context"
	"errors"
	"slices"

	"github.com/seqd/seqd/eval"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// Names resolve through search_path as PostgreSQL resolves them
// (namespace.c): the listed schemas that exist, "$user" standing for the
// session user's schema, pg_catalog searched first unless listed. A new
// object goes to the first listed schema that exists; current_schema() is
// that schema.

// builtinSchemas exist without records: the catalog's own.
var builtinSchemas = []string{"pg_catalog", "pg_toast", "information_schema"}

func isBuiltinSchema(name string) bool {
	for _, b := range builtinSchemas {
		if b == name {
			return true
		}
	}
	return false
}

// schemaExists reports whether a schema exists, built-in or durable.
func (s *Session) schemaExists(name string) bool {
	if _, ok := s.tempName(name); ok {
		return s.tempEng != nil
	}
	return isBuiltinSchema(name) || s.cat().SchemaExists(name)
}

// searchPath is the session's path: the listed schemas that exist, in
// order, without duplicates; and whether pg_catalog was listed.
func (s *Session) searchPath() (listed []string, catalogListed bool) {
	names, _ := pgsql.SplitIdentifiers(s.settings.get("search_path"), ',')
	seen := map[string]bool{}
	for _, n := range names {
		if n == "$user" {
			n = s.cfg.User
		}
		if t, ok := s.tempName(n); ok {
			n = t
		}
		// As PostgreSQL, a schema the user may not use is left out.
		if seen[n] || !s.schemaExists(n) || !s.usableSchema(n) {
			continue
		}
		seen[n] = true
		catalogListed = catalogListed || n == "pg_catalog"
		listed = append(listed, n)
	}
	return listed, catalogListed
}

// effectivePath is the search path with pg_catalog and the temporary
// schema where PostgreSQL puts them: first (the temporary schema before
// pg_catalog), unless the path lists them.
func (s *Session) effectivePath() []string {
	listed, catalogListed := s.searchPath()
	if !catalogListed {
		listed = append([]string{"pg_catalog"}, listed...)
	}
	if s.tempEng != nil && !slices.Contains(listed, s.tempSchema) {
		listed = append([]string{s.tempSchema}, listed...)
	}
	return listed
}

func (s *Session) currentSchema() eval.Datum {
	listed, _ := s.searchPath()
	if len(listed) == 0 {
		return eval.Null
	}
	return eval.Text(listed[0])
}

func (s *Session) currentSchemas(implicit bool) eval.Datum {
	path := s.effectivePath()
	if !implicit {
		path, _ = s.searchPath()
	}
	out := make([]eval.Datum, len(path))
	for i, n := range path {
		out[i] = eval.Text(n)
	}
	return eval.Array(out...)
}

// checkCatalog refuses a database part other than this database.
func (s *Session) checkCatalog(q pgsql.QName) error {
	if q.Catalog != "" && q.Catalog != s.cfg.Database {
		return sqlerr.Errorf(sqlerr.FeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", q.Catalog, q.Schema, q.Rel)
	}
	return nil
}

// lookupSequence finds an existing sequence: in its schema if the name
// has one (which must exist), else the first along the search path.
func (s *Session) lookupSequence(q pgsql.QName) (engine.Name, error) {
	if err := s.checkCatalog(q); err != nil {
		return engine.Name{}, err
	}
	if q.Schema != "" {
		if t, ok := s.tempName(q.Schema); ok {
			if t == "" {
				return engine.Name{}, sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s.%s\" does not exist", q.Schema, q.Rel)
			}
			q.Schema = t
		}
		if !s.schemaExists(q.Schema) {
			return engine.Name{}, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", q.Schema)
		}
		if err := s.checkSchema(q.Schema, engine.PrivUsage); err != nil {
			return engine.Name{}, err
		}
		n, err := engine.NewName(q.Schema, q.Rel)
		if err != nil {
			return engine.Name{}, err
		}
		if _, err := s.engFor(n).Info(n); errors.Is(err, engine.ErrNotFound) {
			return engine.Name{}, notFound(q, err)
		}
		return n, nil
	}
	for _, schema := range s.effectivePath() {
		if isBuiltinSchema(schema) {
			continue
		}
		n, err := engine.NewName(schema, q.Rel)
		if err != nil {
			return engine.Name{}, err
		}
		// A sequence that exists but failed (a storage error until
		// restart) is found: the operation then reports the failure.
		if _, err := s.engFor(n).Info(n); !errors.Is(err, engine.ErrNotFound) {
			return n, nil
		}
	}
	return engine.Name{}, sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s\" does not exist", q.Rel)
}

// notFound is a lookup's failure in PostgreSQL's words.
func notFound(q pgsql.QName, err error) error {
	if errors.Is(err, engine.ErrNotFound) {
		return sqlerr.Errorf(sqlerr.UndefinedTable, "relation \"%s\" does not exist", eval.Qualified(q.Schema, q.Rel))
	}
	return err
}

// creationName is where CREATE puts a new sequence: its schema, or the
// first schema of the search path.
func (s *Session) creationName(q pgsql.QName) (engine.Name, error) {
	if err := s.checkCatalog(q); err != nil {
		return engine.Name{}, err
	}
	schema := q.Schema
	if schema == "" {
		listed, _ := s.searchPath()
		if len(listed) == 0 {
			return engine.Name{}, sqlerr.Errorf(sqlerr.UndefinedSchema, "no schema has been selected to create in")
		}
		schema = listed[0]
	}
	if _, ok := s.tempName(schema); ok {
		return s.tempCreationName(context.Background(), pgsql.QName{Schema: schema, Rel: q.Rel})
	}
	if isBuiltinSchema(schema) {
		return engine.Name{}, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not create sequences in %s: it holds the catalog", schema)
	}
	if !s.cat().SchemaExists(schema) {
		return engine.Name{}, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", schema)
	}
	return engine.NewName(schema, q.Rel)
}

// visible reports whether a sequence is what its bare name finds.
func (s *Session) visible(n engine.Name) bool {
	found, err := s.lookupSequence(pgsql.QName{Rel: n.Rel()})
	return err == nil && found == n
}

// displayRel is regclass's output: the name, qualified unless the search
// path finds it by its bare name.
func (s *Session) displayRel(n engine.Name) string {
	if s.visible(n) {
		return pgsql.QuoteIdent(n.Rel())
	}
	return pgsql.QuoteIdent(n.Schema()) + "." + pgsql.QuoteIdent(n.Rel())
}

// planEpoch changes whenever a name could resolve differently: a
// sequence or schema created or dropped, a privilege on a schema changed
// (names are looked up only in schemas the user may use), or the search
// path set.
type planEpoch [3]uint64

func (s *Session) planEpoch() planEpoch {
	return planEpoch{s.eng.CatalogVersion(), s.eng.AuthVersion(), s.pathVersion}
}
