// Package catalog is pg_catalog and information_schema (PostgreSQL's and
// MySQL's) as a table of views, each making its rows from a Source.
//
// A view is a name, an OID, columns and a function from a Source to rows
// (Rows), or, for a view with a row per sequence, a function from one
// sequence to its row (PerSequence), which the caller streams and looks up
// by name or OID. The Source is what the catalog reads of a session, as
// plain data: its roles and grants, schemas, settings, the sequences it
// sees, the server's sessions and locks, its own prepared statements and
// cursors, and the built-in functions the evaluator has (Builtins, with
// the sequence functions' descriptors). It is declared here and
// implemented by the executor's session, so that every view is tested
// with a fake Source and no session (catalog_test.go,
// fake_session_test.go, testdata/).
//
// The catalog holds no lock and keeps no state of its own past its table,
// which is built once (New, then Add) and read only after: a *Catalog is
// safe for concurrent use once built.
package catalog

import (
	"github.com/seqd/seqd/eval"
)

// OIDs the views share with the executor.
const (
	SuperuserOID     = 10   // the bootstrap superuser, as initdb's
	DBOwnerOID       = 6171 // pg_database_owner
	MonitorOID       = 3373 // pg_monitor, which seqd makes when it serves -http
	PgClassOID       = 1259
	PgNamespaceOID   = 2615
	PublicSchemaOID  = 2200
	DatabaseOID      = 5 // seqd's one database
	sequenceRelAttrs = 3
)

// View is a relation of the catalog: a table or a view of pg_catalog or
// information_schema.
type View struct {
	OID          uint32
	Schema, Name string
	Kind         byte // relkind: 'r' table, 'v' view
	Columns      []eval.RelColumn
	// Rows makes the view's rows; nil when PerSequence is set.
	Rows func(Source) ([][]eval.Datum, error)
	// PerSequence, for a view with rows per sequence, says how they are
	// made, so that the caller streams them and looks them up.
	PerSequence *PerSequence
	// ACL, PublicColumns and Insertable are PostgreSQL's, from its shape
	// (Shape); a view seqd adds has PublicACL.
	ACL                       string
	PublicColumns, Insertable bool
}

// PerSequence describes a view with rows per sequence: Row's for each
// sequence the Source sees, with Before's rows first and After's last.
type PerSequence struct {
	// Row makes one sequence's rows (most views have one per sequence).
	Row func(Source, Sequence) [][]eval.Datum
	// Reserved: the rows show a position, which a NOORDER sequence's
	// Info has only once the caller has read it from the store.
	Reserved bool
	// NameCol and OIDCol are the columns holding a sequence's name and
	// OID, by which the caller looks rows up; -1 for none.
	NameCol, OIDCol int
	// Before and After are rows that are no sequence's (the catalog's own
	// relations', in pg_class and pg_attribute); nil for none.
	Before, After func(Source) [][]eval.Datum
	// Fixed are those of Before's and After's rows a lookup by column col
	// equal to v (or beginning with v, prefix) finds; nil for none.
	Fixed func(src Source, col int, v eval.Datum, prefix bool) [][]eval.Datum
}

// Catalog is the table of views, in the order pg_class lists them.
type Catalog struct {
	byName     map[string]*View // "schema.name"
	byOID      map[uint32]*View
	order      []*View
	shapes     map[uint32]*Shape // Shapes by OID
	attributes [][]eval.Datum    // Attributes'
}

// New is the catalog: the views this package defines, then the rest of
// PostgreSQL's relations from their shapes (Shapes), in pg_class's
// order.
func New() *Catalog {
	c := &Catalog{byName: map[string]*View{}, byOID: map[uint32]*View{}}
	for _, list := range [][]*View{c.classViews(), roleViews(), c.describingViews(), infoViews(), c.restViews()} {
		for _, v := range list {
			v.ACL = PublicACL
			c.Add(v)
		}
	}
	c.addShapes()
	c.attributes = c.makeAttributes()
	return c
}

// Add appends v to the table. REQUIRES: no view of its name or OID; New
// has not returned (Attributes are made once the table is).
func (c *Catalog) Add(v *View) {
	c.byName[v.Schema+"."+v.Name] = v
	c.byOID[v.OID] = v
	c.order = append(c.order, v)
}

// Lookup finds a view by schema and name; nil for none.
func (c *Catalog) Lookup(schema, name string) *View { return c.byName[schema+"."+name] }

// ByOID finds a view by OID; nil for none.
func (c *Catalog) ByOID(oid uint32) *View { return c.byOID[oid] }

// Views are the views in pg_class's order. The caller must not modify
// the slice.
func (c *Catalog) Views() []*View { return c.order }
