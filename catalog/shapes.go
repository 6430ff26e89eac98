package catalog

import (
	_ "embed"
	"strings"
	"sync"
)

// PostgreSQL 15's catalog relations as scripts/gen-pgcatalog records
// them (pgcatalog_shapes.go, pgcatalog_views.txt), with the rows of
// PostgreSQL's that seqd lists (pgcatalog_builtin_rows.go) and the time
// zones it names (pgcatalog_timezones.go).

// Shape is a relation of PostgreSQL 15's catalog (Shapes).
type Shape struct {
	OID          uint32
	Schema, Name string
	Kind         byte
	// ACL is its ACL in PostgreSQL: the owner's item and PUBLIC's, the
	// owner written OWNER ("OWNER=arwdDxt/OWNER,=r/OWNER"); "" where
	// relacl is NULL (the owner's only). PublicColumns: PUBLIC may read
	// some of its columns (pg_subscription's but subconninfo).
	// Insertable: information_schema calls it insertable into.
	ACL                       string
	PublicColumns, Insertable bool
	Columns                   []ShapeColumn
}

// ShapeColumn is a column's name, type OID, collation and kind (an index
// of ColumnKinds).
type ShapeColumn struct {
	Name            string
	Type, Collation uint32
	Kind            int
}

// ColumnKind is what describes a catalog column's type past its OID: its
// NOT NULL, typmod and dimensions (pg_attribute's), and
// information_schema.columns' fields of it ("" and -1 for NULL).
type ColumnKind struct {
	NotNull                                                          bool
	Typmod, Ndims                                                    int32
	Nullable                                                         bool
	DataType                                                         string
	CharMax, OctetMax, NumPrecision, NumRadix, NumScale, DTPrecision int32
	IntervalType                                                     string
	IntervalPrecision                                                int32
	Collation, DomainSchema, DomainName, UDTSchema, UDTName          string
	Updatable                                                        bool
}

//go:embed pgcatalog_views.txt
var viewsText string

// ViewDefinitions are PostgreSQL's catalog views' definitions by
// "schema.name", as pg_get_viewdef gives them.
var ViewDefinitions = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	for _, v := range strings.Split(viewsText, "@@ ")[1:] {
		name, def, _ := strings.Cut(v, "\n")
		out[name] = strings.TrimSuffix(def, "\n")
	}
	return out
})
