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

// A prepared statement's result rows, in the binary protocol (seqd:
// split out of query.go).

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"

	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

func (c *Conn) writeBinaryRow(fields []*querypb.Field, row []sqltypes.Value) error {
	length := 0
	nullBitMapLen := (len(fields) + 7 + 2) / 8
	for _, val := range row {
		if !val.IsNull() {
			l, err := val2MySQLLen(val)
			if err != nil {
				return fmt.Errorf("internal value %v get MySQL value length error: %v", val, err)
			}
			length += l
		}
	}

	length += nullBitMapLen + 1

	data := c.startEphemeralPacket(length)
	pos := 0

	pos = writeByte(data, pos, 0x00)

	for i := 0; i < nullBitMapLen; i++ {
		pos = writeByte(data, pos, 0x00)
	}

	for i, val := range row {
		if val.IsNull() {
			bytePos := (i+2)/8 + 1
			bitPos := (i + 2) % 8
			data[bytePos] |= 1 << uint(bitPos)
		} else {
			v, err := val2MySQL(val)
			if err != nil {
				c.recycleWritePacket()
				return fmt.Errorf("internal value %v to MySQL value error: %v", val, err)
			}
			pos += copy(data[pos:], v)
		}
	}

	if pos != length {
		return fmt.Errorf("internal error packet row: got %v bytes but expected %v", pos, length)
	}

	return c.writeEphemeralPacket()
}

// writeBinaryRows sends the rows of a Result with binary form.
func (c *Conn) writeBinaryRows(result *sqltypes.Result) error {
	for _, row := range result.Rows {
		if err := c.writeBinaryRow(result.Fields, row); err != nil {
			return err
		}
	}
	return nil
}

func val2MySQL(v sqltypes.Value) ([]byte, error) {
	var out []byte
	pos := 0
	switch v.Type() {
	case sqltypes.Null:
		// no-op
	case sqltypes.Int8:
		val, err := strconv.ParseInt(v.ToString(), 10, 8)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 1)
		writeByte(out, pos, uint8(val))
	case sqltypes.Uint8:
		val, err := strconv.ParseUint(v.ToString(), 10, 8)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 1)
		writeByte(out, pos, uint8(val))
	case sqltypes.Uint16:
		val, err := strconv.ParseUint(v.ToString(), 10, 16)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 2)
		writeUint16(out, pos, uint16(val))
	case sqltypes.Int16, sqltypes.Year:
		val, err := strconv.ParseInt(v.ToString(), 10, 16)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 2)
		writeUint16(out, pos, uint16(val))
	case sqltypes.Uint24, sqltypes.Uint32:
		val, err := strconv.ParseUint(v.ToString(), 10, 32)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 4)
		writeUint32(out, pos, uint32(val))
	case sqltypes.Int24, sqltypes.Int32:
		val, err := strconv.ParseInt(v.ToString(), 10, 32)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 4)
		writeUint32(out, pos, uint32(val))
	case sqltypes.Float32:
		val, err := strconv.ParseFloat(v.ToString(), 32)
		if err != nil {
			return []byte{}, err
		}
		bits := math.Float32bits(float32(val))
		out = make([]byte, 4)
		writeUint32(out, pos, bits)
	case sqltypes.Uint64:
		val, err := strconv.ParseUint(v.ToString(), 10, 64)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 8)
		writeUint64(out, pos, uint64(val))
	case sqltypes.Int64:
		val, err := strconv.ParseInt(v.ToString(), 10, 64)
		if err != nil {
			return []byte{}, err
		}
		out = make([]byte, 8)
		writeUint64(out, pos, uint64(val))
	case sqltypes.Float64:
		val, err := strconv.ParseFloat(v.ToString(), 64)
		if err != nil {
			return []byte{}, err
		}
		bits := math.Float64bits(val)
		out = make([]byte, 8)
		writeUint64(out, pos, bits)
	case sqltypes.Timestamp, sqltypes.Date, sqltypes.Datetime:
		return val2MySQLDatetime(v)
	case sqltypes.Time:
		return val2MySQLTime(v)
	case sqltypes.Decimal, sqltypes.Text, sqltypes.Blob, sqltypes.VarChar,
		sqltypes.VarBinary, sqltypes.Char, sqltypes.Bit, sqltypes.Enum,
		sqltypes.Set, sqltypes.Geometry, sqltypes.Binary, sqltypes.TypeJSON:
		l := len(v.Raw())
		length := lenEncIntSize(uint64(l)) + l
		out = make([]byte, length)
		pos = writeLenEncInt(out, pos, uint64(l))
		copy(out[pos:], v.Raw())
	default:
		out = make([]byte, len(v.Raw()))
		copy(out, v.Raw())
	}
	return out, nil
}

// datetimeFields are the year's, month's, day's, hour's, minute's and
// second's places in a DATE, DATETIME or TIMESTAMP's text, and their
// bits (seqd).
var datetimeFields = [...]struct{ from, to, bits int }{{0, 4, 16}, {5, 7, 8}, {8, 10, 8}, {11, 13, 8}, {14, 16, 8}, {17, 19, 8}}

// val2MySQLDatetime encodes a DATE, DATETIME or TIMESTAMP: its length
// (0, 4, 7 or 11), the year, month and day, then the hour, minute and
// second, then the microseconds, as many as its text has (seqd: split
// out of val2MySQL, its three cases one).
func val2MySQLDatetime(v sqltypes.Value) ([]byte, error) {
	raw := v.Raw()
	var size byte
	fields := 0
	switch {
	case len(raw) > 19:
		size, fields = 0x0b, 6
	case len(raw) > 10:
		size, fields = 0x07, 6
	case len(raw) > 0:
		size, fields = 0x04, 3
	default:
		return []byte{0x00}, nil
	}
	out := make([]byte, 1+int(size))
	out[0] = size
	pos := 1
	for i := 0; i < fields; i++ {
		f := datetimeFields[i]
		to := f.to
		if i == fields-1 && size != 0x0b {
			to = len(raw) // the last field is the rest of the text
		}
		x, err := strconv.ParseUint(string(raw[f.from:to]), 10, f.bits)
		if err != nil {
			return []byte{}, err
		}
		if i == 0 {
			pos = writeUint16(out, pos, uint16(x))
		} else {
			pos = writeByte(out, pos, byte(x))
		}
	}
	if size == 0x0b {
		microSecond, err := parseMicroseconds(raw[20:])
		if err != nil {
			return []byte{}, err
		}
		writeUint32(out, pos, uint32(microSecond))
	}
	return out, nil
}

// parseMicroseconds parses the digits of a fraction of a second, up to 6
// of them, as microseconds (seqd: shared by val2MySQLDatetime and
// val2MySQLTime).
func parseMicroseconds(digits []byte) (uint64, error) {
	val := make([]byte, 6)
	count := copy(val, digits)
	for i := 0; i < (6 - count); i++ {
		val[count+i] = 0x30
	}
	return strconv.ParseUint(string(val), 10, 32)
}

// val2MySQLTime encodes a TIME: its length (0, 8 or 12), its sign, days,
// hours, minutes and seconds, then the microseconds if its text has a
// fraction (seqd: split out of val2MySQL, its two cases one).
func val2MySQLTime(v sqltypes.Value) ([]byte, error) {
	raw := string(v.Raw())
	if raw == "00:00:00" {
		return []byte{0x00}, nil
	}
	fraction := strings.Contains(raw, ".")
	if !fraction && len(raw) == 0 {
		return []byte{}, fmt.Errorf("incorrect time value")
	}
	out := make([]byte, 1+8)
	out[0] = 0x08
	if fraction {
		out = make([]byte, 1+12)
		out[0] = 0x0c
	}
	pos := 1

	sub1 := strings.Split(raw, ":")
	if len(sub1) != 3 {
		return []byte{}, fmt.Errorf("incorrect time value, ':' is not found")
	}
	second, microSecond := sub1[2], ""
	if fraction {
		sub2 := strings.Split(sub1[2], ".")
		if len(sub2) != 2 {
			return []byte{}, fmt.Errorf("incorrect time value, '.' is not found")
		}
		second, microSecond = sub2[0], sub2[1]
	}

	total := sub1[0]
	if strings.HasPrefix(total, "-") {
		out[pos] = 0x01
		total = total[1:]
	}
	pos++

	h, err := strconv.ParseUint(total, 10, 32)
	if err != nil {
		return []byte{}, err
	}
	minutes, err := strconv.ParseUint(sub1[1], 10, 8)
	if err != nil {
		return []byte{}, err
	}
	seconds, err := strconv.ParseUint(second, 10, 8)
	if err != nil {
		return []byte{}, err
	}
	pos = writeUint32(out, pos, uint32(h)/24)
	pos = writeByte(out, pos, byte(uint32(h)%24))
	pos = writeByte(out, pos, byte(minutes))
	pos = writeByte(out, pos, byte(seconds))
	if fraction {
		microSeconds, err := parseMicroseconds([]byte(microSecond))
		if err != nil {
			return []byte{}, err
		}
		writeUint32(out, pos, uint32(microSeconds))
	}
	return out, nil
}

func val2MySQLLen(v sqltypes.Value) (int, error) {
	var length int
	var err error

	switch v.Type() {
	case sqltypes.Null:
		length = 0
	case sqltypes.Int8, sqltypes.Uint8:
		length = 1
	case sqltypes.Uint16, sqltypes.Int16, sqltypes.Year:
		length = 2
	case sqltypes.Uint24, sqltypes.Uint32, sqltypes.Int24, sqltypes.Int32, sqltypes.Float32:
		length = 4
	case sqltypes.Uint64, sqltypes.Int64, sqltypes.Float64:
		length = 8
	case sqltypes.Timestamp, sqltypes.Date, sqltypes.Datetime:
		if len(v.Raw()) > 19 {
			length = 12
		} else if len(v.Raw()) > 10 {
			length = 8
		} else if len(v.Raw()) > 0 {
			length = 5
		} else {
			length = 1
		}
	case sqltypes.Time:
		if string(v.Raw()) == "00:00:00" {
			length = 1
		} else if strings.Contains(string(v.Raw()), ".") {
			length = 13
		} else if len(v.Raw()) > 0 {
			length = 9
		} else {
			err = fmt.Errorf("incorrect time value")
		}
	case sqltypes.Decimal, sqltypes.Text, sqltypes.Blob, sqltypes.VarChar,
		sqltypes.VarBinary, sqltypes.Char, sqltypes.Bit, sqltypes.Enum,
		sqltypes.Set, sqltypes.Geometry, sqltypes.Binary, sqltypes.TypeJSON:
		l := len(v.Raw())
		length = lenEncIntSize(uint64(l)) + l
	default:
		length = len(v.Raw())
	}
	if err != nil {
		return 0, err
	}
	return length, nil
}
