package mysqlwire

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/internal/vitess/mysql"
	"github.com/seqd/seqd/sqlerr"
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

// field is a result column as MySQL's protocol describes it, of a type
// of no more detail than typ.
func field(name string, typ querypb.Type) *querypb.Field {
	f := &querypb.Field{}
	setField(f, name, typ)
	return f
}

// setField makes f the column name of type typ.
func setField(f *querypb.Field, name string, typ querypb.Type) {
	f.Name, f.Type, f.Charset, f.ColumnLength = name, typ, charsetText, 255
	if sqltypes.IsIntegral(typ) || sqltypes.IsFloat(typ) {
		f.Charset, f.ColumnLength = charsetBinary, 20 // binary, as MySQL's numbers
	}
}

// The character sets a column definition names: MariaDB's binary, and
// utf8mb4_general_ci, the collation of seqd's connections
// (@@collation_connection), which its text is in.
const (
	charsetBinary = 63
	charsetText   = 45
)

// colType is a result column's type as MariaDB 10.11 describes it in
// its column definition (types.go says how it is told).
type colType struct {
	typ      querypb.Type // MYSQL_TYPE_*, UNSIGNED for the unsigned types
	length   uint32       // the most characters a value takes (advisory)
	decimals uint8        // digits past the point; decNotFixed for none
	prec     uint8        // a number's digits (MariaDB's decimal_precision), 0 for told by length
	unsigned bool         // UNSIGNED_FLAG on a type other than a number's (a hexadecimal literal)
	notNull  bool
	// stored: a column of a table (a sequence's, information_schema's,
	// a derived table's), whose numbers MariaDB describes without
	// BINARY_FLAG, where an expression's have it.
	stored bool
	binary bool // a string of the binary character set
	known  bool // false: not told (the zero colType)
	// sized: a BLOB (TEXT) sent by its length, as MariaDB sends a
	// string expression's (Type_handler::blob_type_handler): past 65535
	// bytes a MEDIUMBLOB, past 16 MiB - 1 a LONGBLOB; a table's column
	// and GROUP_CONCAT's are BLOBs whatever their length.
	sized bool
	// asWritten: a DECIMAL's values shown as they are, not at decimals
	// (a user variable by itself: SELECT @v, uservars.go).
	asWritten bool
	// null: the CHAR(0) BINARY MariaDB makes of a NULL (nullString),
	// whose character set and length give way to any other's where
	// types are aggregated (IF(1, NULL, NULL) UNION SELECT 2: a CHAR).
	null bool
}

// decString is the decimals MariaDB gives a string expression's column
// (a DOUBLE's whose digits past the point are not fixed is 31,
// NOT_FIXED_DEC).
const decString = 39

// MySQL's column flags a client decodes by (mysql_com.h).
const (
	flagNotNull  = uint32(querypb.MySqlFlag_NOT_NULL_FLAG)
	flagUnsigned = uint32(querypb.MySqlFlag_UNSIGNED_FLAG)
	flagBinary   = uint32(querypb.MySqlFlag_BINARY_FLAG)
	flagNum      = uint32(querypb.MySqlFlag_NUM_FLAG)
)

// setField makes f the column name of type c.
func (c colType) setField(f *querypb.Field, name string) {
	f.Name, f.Type, f.ColumnLength, f.Decimals, f.Charset = name, c.typ, c.length, uint32(c.decimals), charsetText
	var flags uint32
	if c.notNull {
		flags |= flagNotNull
	}
	if sqltypes.IsUnsigned(c.typ) || c.unsigned {
		flags |= flagUnsigned
	}
	switch {
	case c.typ == querypb.Type_NULL_TYPE:
		f.Charset, flags = charsetBinary, flags|flagBinary
	case sqltypes.IsIntegral(c.typ) || sqltypes.IsFloat(c.typ) || c.typ == querypb.Type_DECIMAL:
		f.Charset, flags = charsetBinary, flags|flagNum
		if !c.stored {
			flags |= flagBinary
		}
	case c.binary:
		f.Charset, flags = charsetBinary, flags|flagBinary
	}
	if c.sized {
		switch {
		case c.length > 1<<24-1:
			flags |= mysql.LongBlobFlag
		case c.length > 1<<16-1:
			flags |= mysql.MediumBlobFlag
		}
	}
	f.Flags = flags
}

// setColumn makes f the result column name, the i'th of a result whose
// columns MariaDB types as types says (where it says; else by t, the
// executor's type), and returns its type.
func setColumn(f *querypb.Field, name string, t *eval.Type, types []colType, i int) querypb.Type {
	if i < len(types) && types[i].known {
		types[i].setField(f, name)
		return types[i].typ
	}
	typ := fieldType(t)
	setField(f, name, typ)
	return typ
}

// The text of the booleans' values, shared: the protocol library only
// reads a value's bytes.
var (
	textTrue  = []byte("1")
	textFalse = []byte("0")
)

// fixedValue is d's value when it needs no text of its own: NULL and the
// booleans.
func fixedValue(typ querypb.Type, t *eval.Type, d eval.Datum) (sqltypes.Value, bool) {
	if d.Kind == eval.KNull {
		return sqltypes.NULL, true
	}
	if t.OID() == eval.OIDBool {
		if d.Truth() {
			return sqltypes.MakeTrusted(typ, textTrue), true
		}
		return sqltypes.MakeTrusted(typ, textFalse), true
	}
	return sqltypes.Value{}, false
}

// result is a statement's result as the protocol library takes it (it
// writes a result and keeps nothing of it), built in few allocations: a
// one-column, one-row result such as nextval's is a single one.
type result struct {
	res   sqltypes.Result
	types []querypb.Type
	// scales are the DECIMAL columns' scales their values are shown at
	// (as MariaDB shows a DECIMAL at its column's), -1 for a column
	// shown as the executor computes it.
	scales []int
	vals   []sqltypes.Value // values rows have not taken yet
	text   []byte           // the values' text, appended
	// binaryRows: the rows go out in the binary protocol, where a
	// DOUBLE is its 8 bytes, never shown at its decimals.
	binaryRows bool

	// The parts of a one-column result.
	ptr   [1]*querypb.Field
	field querypb.Field
	typ   [1]querypb.Type
	scale [1]int
	rows  [1][]sqltypes.Value
	val   [1]sqltypes.Value
	buf   [textInline]byte
}

// textInline is the text a result holds without another allocation
// (any integer's is at most 20 bytes).
const textInline = 24

// newResult is a result of n > 0 columns, its fields to be set.
func newResult(n int) *result {
	r := &result{}
	r.text = r.buf[:0]
	r.res.Rows = r.rows[:0]
	if n == 1 {
		r.ptr[0] = &r.field
		r.res.Fields, r.types, r.scales, r.vals = r.ptr[:], r.typ[:], r.scale[:], r.val[:]
		return r
	}
	fields := make([]querypb.Field, n)
	r.res.Fields = make([]*querypb.Field, n)
	for i := range fields {
		r.res.Fields[i] = &fields[i]
	}
	r.types, r.scales = make([]querypb.Type, n), make([]int, n)
	return r
}

// rowsPerBlock is how many rows' values one allocation holds.
const rowsPerBlock = 16

// row is the values of a new row, to be set.
func (r *result) row() []sqltypes.Value {
	n := len(r.res.Fields)
	if len(r.vals) < n {
		r.vals = make([]sqltypes.Value, n*rowsPerBlock)
	}
	v := r.vals[:n:n]
	r.vals = r.vals[n:]
	return v
}

// setColumn makes column i of the result the column name (setColumn
// above), its values shown at the scale types gives a DECIMAL.
func (r *result) setColumn(i int, name string, t *eval.Type, types []colType) {
	r.types[i] = setColumn(r.res.Fields[i], name, t, types, i)
	r.scales[i] = -1
	if i < len(types) && types[i].known && types[i].typ == querypb.Type_DECIMAL && !types[i].asWritten {
		r.scales[i] = int(types[i].decimals)
	}
	if i < len(types) && types[i].known && types[i].typ == querypb.Type_FLOAT64 && types[i].decimals < notFixedDec && !r.binaryRows {
		r.scales[i] = int(types[i].decimals) // a DOUBLE of fixed decimals, as MariaDB shows it (String::set_real)
	}
}

// value is d, the value of column i, in MySQL's text protocol, its text
// in the result's; an error for a number a DOUBLE column cannot hold.
func (r *result) value(i int, t *eval.Type, d eval.Datum) (sqltypes.Value, error) {
	typ := r.types[i]
	if v, ok := fixedValue(typ, t, d); ok {
		return v, nil
	}
	if cap(r.text)-len(r.text) < textInline {
		r.text = make([]byte, 0, 1024)
	}
	start := len(r.text)
	if s := r.scales[i]; s >= 0 && (d.Kind == eval.KNumeric || d.Kind == eval.KInt) {
		r.text = appendDecimal(r.text, d, s)
	} else if f, ok, err := doubleOf(typ, d); err != nil {
		return sqltypes.Value{}, err
	} else if ok && r.scales[i] >= 0 {
		r.text = strconv.AppendFloat(r.text, f, 'f', r.scales[i], 64)
	} else if ok {
		r.text = eval.AppendMariaDBDouble(r.text, f)
	} else {
		r.text = eval.AppendOutput(r.text, t, d)
	}
	return sqltypes.MakeTrusted(typ, r.text[start:len(r.text):len(r.text)]), nil
}

// doubleOf is d as the double it stands for in a DOUBLE column: one the
// executor computed as a double, or a number it kept exact (a DOUBLE
// literal, 1e20; a product of such, which MariaDB computes as a double:
// past its range an overflow, as MariaDB's 1690, below it 0).
func doubleOf(typ querypb.Type, d eval.Datum) (float64, bool, error) {
	if typ != querypb.Type_FLOAT64 {
		return 0, false, nil
	}
	switch d.Kind {
	case eval.KFloat:
		return d.F, !math.IsInf(d.F, 0) && !math.IsNaN(d.F), nil
	case eval.KNumeric:
		f, err := strconv.ParseFloat(d.S, 64)
		if math.IsInf(f, 0) {
			return 0, false, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value out of range: overflow")
		}
		return f, err == nil, nil
	}
	return 0, false, nil
}

// appendDecimal appends d, a number, at scale digits past the point,
// rounded half away from zero, as MariaDB shows a DECIMAL column's value
// (AVG's and a quotient's at their type's scale, an integer among
// DECIMALs in a UNION or GREATEST with its zeros).
func appendDecimal(b []byte, d eval.Datum, scale int) []byte {
	var x apd.Decimal
	if d.Kind == eval.KInt {
		x.SetInt64(d.I)
	} else if _, _, err := x.SetString(d.S); err != nil || x.Form != apd.Finite {
		return append(b, d.S...)
	}
	return append(b, eval.Numeric(&x, int32(scale)).S...)
}
