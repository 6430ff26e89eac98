/*
Copyright 2019 The Vitess Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package mysql

// COM_STMT_EXECUTE's parameters, in the binary protocol (seqd: split out
// of query.go).

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dolthub/vitess/go/sqltypes"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

func (c *Conn) parseComStmtExecute(prepareData map[uint32]*PrepareData, data []byte) (uint32, byte, error) {
	pos := 0
	payload := data[1:]
	bitMap := make([]byte, 0)

	// statement ID
	stmtID, pos, ok := readUint32(payload, 0)
	if !ok {
		return 0, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading statement ID failed")
	}
	prepare, ok := prepareData[stmtID]
	if !ok {
		// seqd: MySQL's and MariaDB's error (upstream: 2014, a client's).
		return 0, 0, NewSQLError(ERUnknownStmtHandler, SSUnknownSQLState, "Unknown prepared statement handler (%d) given to mysqld_stmt_execute", stmtID)
	}

	// cursor type flags
	cursorType, pos, ok := readByte(payload, pos)
	if !ok {
		return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading cursor type flags failed")
	}

	// iteration count
	iterCount, pos, ok := readUint32(payload, pos)
	if !ok {
		return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading iteration count failed")
	}
	if iterCount != uint32(1) {
		return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "iteration count is not equal to 1")
	}

	if prepare.ParamsCount > 0 {
		bitMap, pos, ok = readBytes(payload, pos, int((prepare.ParamsCount+7)/8))
		if !ok {
			return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading NULL-bitmap failed")
		}
	}

	newParamsBoundFlag, pos, ok := readByte(payload, pos)
	if ok && newParamsBoundFlag == 0x01 {
		var mysqlType, flags byte
		for i := uint16(0); i < prepare.ParamsCount; i++ {
			mysqlType, pos, ok = readByte(payload, pos)
			if !ok {
				return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading parameter type failed")
			}

			flags, pos, ok = readByte(payload, pos)
			if !ok {
				return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "reading parameter flags failed")
			}

			// convert MySQL type to internal type.
			// for com_stmt_execute, the flag will either be 0x00 or 0x80 indicating signed or unsigned
			// as a result, we need to shift the flag to the right by 2 bits
			// while this flag may conflict with the mysqlBinary constant, it doesn't matter;
			// the format for BLOB and TEXT parameters is the same for both binary and non-binary
			valType, err := sqltypes.MySQLToType(int64(mysqlType), int64(flags)>>2)
			if err != nil {
				return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "MySQLToType(%v,%v) failed: %v", mysqlType, flags, err)
			}

			prepare.ParamsType[i] = int32(valType)
		}
	}

	for i := 0; i < len(prepare.ParamsType); i++ {
		var val sqltypes.Value
		parameterID := fmt.Sprintf("v%d", i+1)
		if v, ok := prepare.BindVars[parameterID]; ok {
			if v != nil {
				continue
			}
		}

		if (bitMap[i/8] & (1 << uint(i%8))) > 0 {
			val, pos, ok = c.parseStmtArgs(nil, sqltypes.Null, pos)
		} else {
			val, pos, ok = c.parseStmtArgs(payload, querypb.Type(prepare.ParamsType[i]), pos)
		}
		if !ok {
			return stmtID, 0, NewSQLError(CRMalformedPacket, SSUnknownSQLState, "decoding parameter value failed: %v", prepare.ParamsType[i])
		}

		prepare.BindVars[parameterID] = sqltypes.ValueBindVariable(val)
	}

	return stmtID, cursorType, nil
}

func (c *Conn) parseStmtArgs(data []byte, typ querypb.Type, pos int) (sqltypes.Value, int, bool) {
	switch typ {
	case sqltypes.Null:
		return sqltypes.NULL, pos, true
	case sqltypes.Int8:
		val, pos, ok := readByte(data, pos)
		return sqltypes.NewInt64(int64(int8(val))), pos, ok
	case sqltypes.Uint8:
		val, pos, ok := readByte(data, pos)
		return sqltypes.NewUint64(uint64(val)), pos, ok
	case sqltypes.Uint16:
		val, pos, ok := readUint16(data, pos)
		return sqltypes.NewUint64(uint64(val)), pos, ok
	case sqltypes.Int16, sqltypes.Year:
		val, pos, ok := readUint16(data, pos)
		return sqltypes.NewInt64(int64(int16(val))), pos, ok
	case sqltypes.Uint24, sqltypes.Uint32:
		val, pos, ok := readUint32(data, pos)
		return sqltypes.NewUint64(uint64(val)), pos, ok
	case sqltypes.Int24, sqltypes.Int32:
		val, pos, ok := readUint32(data, pos)
		return sqltypes.NewInt64(int64(int32(val))), pos, ok
	case sqltypes.Float32:
		val, pos, ok := readUint32(data, pos)
		return sqltypes.NewFloat64(float64(math.Float32frombits(uint32(val)))), pos, ok
	case sqltypes.Uint64:
		val, pos, ok := readUint64(data, pos)
		return sqltypes.NewUint64(val), pos, ok
	case sqltypes.Int64:
		val, pos, ok := readUint64(data, pos)
		return sqltypes.NewInt64(int64(val)), pos, ok
	case sqltypes.Float64:
		val, pos, ok := readUint64(data, pos)
		return sqltypes.NewFloat64(math.Float64frombits(val)), pos, ok
	case sqltypes.Timestamp, sqltypes.Date, sqltypes.Datetime:
		return parseStmtDatetime(data, pos)
	case sqltypes.Time:
		return parseStmtTime(data, pos)
	case sqltypes.Decimal, sqltypes.Text, sqltypes.Blob, sqltypes.VarChar, sqltypes.Char, sqltypes.VarBinary,
		sqltypes.Bit, sqltypes.Enum, sqltypes.Set, sqltypes.Geometry, sqltypes.Binary, sqltypes.TypeJSON:
		val, pos, ok := readLenEncStringAsBytesCopy(data, pos)
		return sqltypes.MakeTrusted(sqltypes.VarBinary, val), pos, ok
	default:
		return sqltypes.NULL, pos, false
	}
}

// parseStmtDatetime reads a DATE, DATETIME or TIMESTAMP parameter: its
// length (0, 4, 7 or 11), the year, month and day, then the hour,
// minute and second, then the microseconds (seqd: split out of
// parseStmtArgs, its three cases one).
func parseStmtDatetime(data []byte, pos int) (sqltypes.Value, int, bool) {
	size, pos, ok := readByte(data, pos)
	if !ok {
		return sqltypes.NULL, 0, false
	}
	fields := 0 // after the year
	switch size {
	case 0x00:
		return sqltypes.NewVarChar(" "), pos, ok
	case 0x04:
		fields = 2
	case 0x07, 0x0b:
		fields = 5
	default:
		return sqltypes.NULL, 0, false
	}
	year, pos, ok := readUint16(data, pos)
	if !ok {
		return sqltypes.NULL, 0, false
	}
	var f [5]byte // month, day, hour, minute, second
	for i := 0; i < fields; i++ {
		if f[i], pos, ok = readByte(data, pos); !ok {
			return sqltypes.NULL, 0, false
		}
	}
	val := strconv.Itoa(int(year)) + "-" +
		strconv.Itoa(int(f[0])) + "-" +
		strconv.Itoa(int(f[1]))
	if fields == 5 {
		val += " " + strconv.Itoa(int(f[2])) + ":" +
			strconv.Itoa(int(f[3])) + ":" +
			strconv.Itoa(int(f[4]))
	}
	if size == 0x0b {
		var microSecond uint32
		if microSecond, pos, ok = readUint32(data, pos); !ok {
			return sqltypes.NULL, 0, false
		}
		val += "." + strconv.Itoa(int(microSecond))
	}
	return sqltypes.NewVarChar(val), pos, true
}

// parseStmtTime reads a TIME parameter: its length (0, 8 or 12), its
// sign, days, hours, minutes and seconds, then the microseconds (seqd:
// split out of parseStmtArgs, its two cases one).
func parseStmtTime(data []byte, pos int) (sqltypes.Value, int, bool) {
	size, pos, ok := readByte(data, pos)
	if !ok {
		return sqltypes.NULL, 0, false
	}
	switch size {
	case 0x00:
		return sqltypes.NewVarChar("00:00:00"), pos, ok
	case 0x08, 0x0c:
	default:
		return sqltypes.NULL, 0, false
	}
	isNegative, pos, ok := readByte(data, pos)
	if !ok {
		return sqltypes.NULL, 0, false
	}
	days, pos, ok := readUint32(data, pos)
	if !ok {
		return sqltypes.NULL, 0, false
	}
	var f [3]byte // hour, minute, second
	for i := range f {
		if f[i], pos, ok = readByte(data, pos); !ok {
			return sqltypes.NULL, 0, false
		}
	}
	hours := uint32(f[0]) + days*uint32(24)

	val := ""
	if isNegative == 0x01 {
		val += "-"
	}
	val += strconv.Itoa(int(hours)) + ":" +
		strconv.Itoa(int(f[1])) + ":" +
		strconv.Itoa(int(f[2]))
	if size == 0x0c {
		var microSecond uint32
		if microSecond, pos, ok = readUint32(data, pos); !ok {
			return sqltypes.NULL, 0, false
		}
		val += "." + strconv.Itoa(int(microSecond))
	}
	return sqltypes.NewVarChar(val), pos, true
}
