package mysqlwire

import (
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/seqd/seqd/eval"
)

// fieldType is the MySQL column type of a PostgreSQL type: integers as
// MariaDB's, booleans as TINYINT, everything else text.
func fieldType(t *eval.Type) querypb.Type {
	switch t.OID() {
	case eval.OIDInt8:
		return querypb.Type_INT64
	case eval.OIDInt4, eval.OIDOid:
		return querypb.Type_INT32
	case eval.OIDInt2:
		return querypb.Type_INT16
	case eval.OIDBool:
		return querypb.Type_INT8
	case eval.OIDFloat8, eval.OIDFloat4:
		return querypb.Type_FLOAT64
	}
	return querypb.Type_VARCHAR
}

// field is a result column as MySQL's protocol describes it.
func field(name string, typ querypb.Type) *querypb.Field {
	f := &querypb.Field{Name: name, Type: typ, Charset: 33, ColumnLength: 255}
	if sqltypes.IsIntegral(typ) || sqltypes.IsFloat(typ) {
		f.Charset, f.ColumnLength = 63, 20 // binary, as MySQL's numbers
	}
	return f
}

// value is d in MySQL's text protocol.
func value(typ querypb.Type, t *eval.Type, d eval.Datum) sqltypes.Value {
	if d.Kind == eval.KNull {
		return sqltypes.NULL
	}
	if t.OID() == eval.OIDBool {
		if d.Truth() {
			return sqltypes.MakeTrusted(typ, []byte("1"))
		}
		return sqltypes.MakeTrusted(typ, []byte("0"))
	}
	return sqltypes.MakeTrusted(typ, eval.AppendOutput(nil, t, d))
}
