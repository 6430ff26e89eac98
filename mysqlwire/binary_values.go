package mysqlwire

import (
	"strconv"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/seqd/seqd/internal/vitess/mysql"
)

// erDataOutOfRange is MariaDB's ER_DATA_OUT_OF_RANGE (1690).
const erDataOutOfRange = 1690

// binaryFits checks, before a prepared statement's rows are sent in the
// binary protocol, that each integer or double value fits its column's
// type (result.value refuses a double past DOUBLE's range first): a
// value past it (SELECT ? + 1 bound to 18446744073709551615, typed BIGINT
// UNSIGNED as MariaDB types it, whose sum MariaDB refuses with 1690) could
// not be written, and the library, finding so in the middle of the
// result, ended the connection. It is refused as MariaDB refuses it,
// naming the column, before anything is sent.
func binaryFits(res *sqltypes.Result) error {
	for _, row := range res.Rows {
		for i, v := range row {
			if v.IsNull() || i >= len(res.Fields) {
				continue
			}
			var err error
			name := "BIGINT"
			switch t := v.Type(); t {
			case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64, sqltypes.Year:
				_, err = strconv.ParseInt(v.ToString(), 10, intBits(t))
			case sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
				_, err = strconv.ParseUint(v.ToString(), 10, intBits(t))
				name = "BIGINT UNSIGNED"
			case sqltypes.Float32, sqltypes.Float64:
				_, err = strconv.ParseFloat(v.ToString(), 64)
				name = "DOUBLE"
			}
			if err != nil {
				return mysql.NewSQLError(erDataOutOfRange, "22003", "%s value is out of range in '%s'", name, res.Fields[i].Name)
			}
		}
	}
	return nil
}

// intBits is how many bits the binary protocol writes an integer of
// type t in.
func intBits(t querypb.Type) int {
	switch t {
	case sqltypes.Int8, sqltypes.Uint8:
		return 8
	case sqltypes.Int16, sqltypes.Uint16, sqltypes.Year:
		return 16
	case sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32, sqltypes.Uint32:
		return 32
	}
	return 64
}
