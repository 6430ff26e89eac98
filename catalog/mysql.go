package catalog

import (
	"strings"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/seqmath"
)

// MySQL's information_schema, as seqd answers it over MySQL's protocol:
// SCHEMATA and TABLES as MariaDB 10.11 shows them (a sequence's
// TABLE_TYPE is SEQUENCE, its TABLE_COMMENT its comment; the sizes and
// times MariaDB's storage keeps are 0 and NULL), and SEQUENCES as TiDB shows it (MariaDB 10.11 has no such
// table). TABLES and SEQUENCES list the sequences the role sees
// (mysqlSees); no table shows a position: they are made of names and
// options alone. The views have no OIDs: MySQL has none.

// MySQL is MySQL's information_schema, by lower-case table name.
func MySQL() *Catalog {
	c := &Catalog{byName: map[string]*View{}, byOID: map[uint32]*View{}}
	for _, v := range append(mysqlViews(), mysqlMoreViews()...) {
		c.byName[v.Schema+"."+v.Name] = v
		c.order = append(c.order, v)
	}
	return c
}

// mysqlSchema reports whether a MySQL client sees a schema as a
// database: PostgreSQL's own and the temporary ones it does not.
func mysqlSchema(name string) bool {
	return name != "pg_catalog" && name != "information_schema" && !strings.HasPrefix(name, "pg_")
}

// mysqlSees reports whether the current role sees a sequence in MySQL's
// information_schema (and SHOW TABLES): as MariaDB lists a user only the
// tables it holds some privilege on, and PostgreSQL's
// information_schema.sequences a role only the sequences it owns or holds
// a privilege on, one it holds SELECT, UPDATE or USAGE on (as the owner,
// a member of the owner, a grantee or a superuser), in a schema a MySQL
// client sees.
func mysqlSees(src Source, i Sequence) bool {
	if !mysqlSchema(i.Name.Schema()) {
		return false
	}
	p, err := src.SequencePrivileges(i.Name)
	return err == nil && p&(engine.PrivSelect|engine.PrivUpdate|engine.PrivUsage) != 0
}

// mysqlSeen makes row of a sequence the role sees, none of the others.
func mysqlSeen(row func(Sequence) []eval.Datum) func(Source, Sequence) [][]eval.Datum {
	return func(src Source, i Sequence) [][]eval.Datum {
		if !mysqlSees(src, i) {
			return nil
		}
		return [][]eval.Datum{row(i)}
	}
}

// mysqlViews are the tables, their columns named in upper case as
// MySQL's SELECT * shows them.
func mysqlViews() []*View {
	text, integer := eval.TText, eval.TInt4
	return []*View{
		{Schema: "information_schema", Name: "schemata", Kind: 'v',
			Columns: eval.Columns("CATALOG_NAME", text, "SCHEMA_NAME", eval.TName, "DEFAULT_CHARACTER_SET_NAME", text, "DEFAULT_COLLATION_NAME", text,
				"SQL_PATH", text, "SCHEMA_COMMENT", text),
			Rows: func(src Source) ([][]eval.Datum, error) {
				out := [][]eval.Datum{{eval.Text("def"), eval.Text("information_schema"), eval.Text("utf8mb3"), eval.Text("utf8mb3_general_ci"), eval.Null, eval.Text("")}}
				for _, n := range src.Schemas() {
					if mysqlSchema(n.Name) {
						out = append(out, []eval.Datum{eval.Text("def"), eval.Text(n.Name), eval.Text("utf8mb4"), eval.Text("utf8mb4_general_ci"), eval.Null, eval.Text("")})
					}
				}
				return out, nil
			}},
		{Schema: "information_schema", Name: "tables", Kind: 'v',
			Columns: eval.Columns("TABLE_CATALOG", text, "TABLE_SCHEMA", eval.TName, "TABLE_NAME", eval.TName, "TABLE_TYPE", text, "ENGINE", text,
				"VERSION", integer, "ROW_FORMAT", text, "TABLE_ROWS", integer, "AVG_ROW_LENGTH", integer, "DATA_LENGTH", integer,
				"MAX_DATA_LENGTH", integer, "INDEX_LENGTH", integer, "DATA_FREE", integer, "AUTO_INCREMENT", text, "CREATE_TIME", text,
				"UPDATE_TIME", text, "CHECK_TIME", text, "TABLE_COLLATION", text, "CHECKSUM", text, "CREATE_OPTIONS", text,
				"TABLE_COMMENT", text, "MAX_INDEX_LENGTH", integer, "TEMPORARY", text),
			PerSequence: &PerSequence{NameCol: 2, OIDCol: -1, Row: func(src Source, i Sequence) [][]eval.Datum {
				if !mysqlSees(src, i) {
					return nil
				}
				zero := eval.Int(0)
				return [][]eval.Datum{{eval.Text("def"), eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), eval.Text("SEQUENCE"), eval.Text("InnoDB"),
					eval.Int(10), eval.Text("Fixed"), eval.Int(1), zero, zero, zero, zero, zero, eval.Null, eval.Null,
					eval.Null, eval.Null, eval.Text("utf8mb4_general_ci"), eval.Null, eval.Text(""), eval.Text(src.SequenceComment(i.Name)), zero, eval.Text("N")}}
			}}},
		{Schema: "information_schema", Name: "sequences", Kind: 'v',
			Columns: eval.Columns("TABLE_CATALOG", text, "SEQUENCE_SCHEMA", eval.TName, "SEQUENCE_NAME", eval.TName, "CACHE", integer,
				"CACHE_VALUE", eval.TInt8, "CYCLE", integer, "INCREMENT", eval.TInt8, "MAX_VALUE", eval.TInt8, "MIN_VALUE", eval.TInt8,
				"START", eval.TInt8, "COMMENT", text),
			PerSequence: &PerSequence{NameCol: 2, OIDCol: -1, Row: mysqlSeen(func(i Sequence) []eval.Datum {
				o := i.Options
				cache, cacheValue, cycle := eval.Int(0), eval.Null, eval.Int(0)
				if o.Cache > 1 || o.CacheOne {
					cache, cacheValue = eval.Int(1), eval.Int(o.Cache)
				}
				if o.Cycle {
					cycle = eval.Int(1)
				}
				return []eval.Datum{eval.Text("def"), eval.Text(i.Name.Schema()), eval.Text(i.Name.Rel()), cache, cacheValue, cycle,
					eval.Int(mariadbIncrement(&o)), eval.Int(o.Max), eval.Int(o.Min), eval.Int(o.Start), eval.Text("")}
			})}},
	}
}

// MariaDBSequenceColumns are the columns of MariaDB's read of a sequence
// as a table (SELECT ... FROM s), in its order.
var MariaDBSequenceColumns = eval.Columns("next_not_cached_value", eval.TInt8, "minimum_value", eval.TInt8, "maximum_value", eval.TInt8,
	"start_value", eval.TInt8, "increment", eval.TInt8, "cache_size", eval.TInt8, "cycle_option", eval.TInt4, "cycle_count", eval.TInt4)

// MariaDBSequenceRow is a sequence's row as MariaDB's read of it as a
// table shows it: next_not_cached_value is the value the next nextval
// returns (the last one's successor once one was taken, else the
// position it starts or was restarted at, as MariaDB shows it after
// ALTER SEQUENCE ... RESTART WITH); a cache of 1 is MariaDB's NOCACHE,
// 0, unless it was written as MariaDB's CACHE 1 (Options.CacheOne); a
// sequence has never wrapped for MariaDB's cycle_count, which seqd does
// not count.
func MariaDBSequenceRow(i engine.Info) []eval.Datum {
	o := &i.Options
	next := o.Value(i.State.Last)
	if i.State.Called {
		// Past the bound (the sequence is spent, or wraps) it reads as
		// the last value's successor all the same, as in MariaDB.
		if n, ok := addInt64(next, o.Increment); ok {
			next = n
		}
	}
	cache, cycle := o.Cache, int64(0)
	if cache == 1 && !o.CacheOne {
		cache = 0
	}
	if o.Cycle {
		cycle = 1
	}
	return []eval.Datum{eval.Int(next), eval.Int(o.Min), eval.Int(o.Max), eval.Int(o.Start), eval.Int(mariadbIncrement(o)), eval.Int(cache),
		eval.Int(cycle), eval.Int(0)}
}

// mariadbIncrement is a sequence's increment as MariaDB shows it: 0 for
// one written with INCREMENT BY 0, which steps by 1.
func mariadbIncrement(o *seqmath.Options) int64 {
	if o.IncrementZero {
		return 0
	}
	return o.Increment
}

// addInt64 is a+b; false when it overflows.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}
