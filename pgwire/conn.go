package pgwire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/sql"
)

// prepared is a parsed statement of the extended protocol.
type prepared struct {
	stmt      sql.Stmt // nil for an empty query
	paramOIDs []uint32
}

// portal is a bound statement, possibly suspended by an Execute row limit.
type portal struct {
	stmt    sql.Stmt
	params  []datum
	formats []int16 // result formats, as Bind gave them
	res     *result // set once executed; rows may remain
}

// paramCount is the highest $n a statement uses.
func paramCount(st sql.Stmt) int {
	n := 0
	see := func(v sql.Value) {
		if v.Kind == sql.VParam && v.Param > n {
			n = v.Param
		}
	}
	switch st := st.(type) {
	case *sql.SelectCall:
		for _, a := range st.Call.Args {
			see(a)
		}
		if st.Series != nil {
			see(st.Series.From)
			see(st.Series.To)
		}
	case *sql.SelectLiteral:
		see(st.Value)
	}
	return n
}

// paramTypes infers each parameter's type from where it is used.
func paramTypes(st sql.Stmt, given []uint32) []uint32 {
	out := make([]uint32, paramCount(st))
	copy(out, given)
	set := func(v sql.Value, oid uint32) {
		if v.Kind == sql.VParam && out[v.Param-1] == 0 {
			out[v.Param-1] = oid
		}
	}
	switch st := st.(type) {
	case *sql.SelectCall:
		for i, a := range st.Call.Args {
			switch {
			case i == 0:
				set(a, oidText)
			case i == 2 && st.Call.Func == "setval":
				set(a, oidBool)
			default:
				set(a, oidInt8)
			}
		}
		if st.Series != nil {
			set(st.Series.From, oidInt8)
			set(st.Series.To, oidInt8)
		}
	}
	for i := range out {
		if out[i] == 0 {
			out[i] = oidText
		}
	}
	return out
}

// decodeParams turns Bind's parameter values into datums.
func decodeParams(b *pgproto3.Bind, oids []uint32) ([]datum, error) {
	if len(b.Parameters) != len(oids) {
		return nil, &pgError{code: "08P01", msg: fmt.Sprintf("bind message supplies %d parameters, but prepared statement \"%s\" requires %d", len(b.Parameters), b.PreparedStatement, len(oids))}
	}
	out := make([]datum, len(oids))
	for i, raw := range b.Parameters {
		if raw == nil {
			continue
		}
		format := int16(0)
		switch len(b.ParameterFormatCodes) {
		case 0:
		case 1:
			format = b.ParameterFormatCodes[0]
		default:
			if i >= len(b.ParameterFormatCodes) {
				return nil, &pgError{code: "08P01", msg: "bind message has too few parameter formats"}
			}
			format = b.ParameterFormatCodes[i]
		}
		if format == 0 {
			out[i] = textDatum(string(raw))
			if oids[i] == oidInt8 || oids[i] == oidInt4 {
				v, err := strconv.ParseInt(string(raw), 10, 64)
				if err != nil {
					return nil, &pgError{code: "22P02", msg: fmt.Sprintf("invalid input syntax for type bigint: \"%s\"", raw)}
				}
				out[i] = intDatum(v)
			}
			continue
		}
		switch {
		case oids[i] == oidInt8 && len(raw) == 8:
			out[i] = intDatum(int64(binary.BigEndian.Uint64(raw)))
		case oids[i] == oidInt4 && len(raw) == 4:
			out[i] = intDatum(int64(int32(binary.BigEndian.Uint32(raw))))
		case oids[i] == 21 && len(raw) == 2:
			out[i] = intDatum(int64(int16(binary.BigEndian.Uint16(raw))))
		case oids[i] == oidBool && len(raw) == 1:
			out[i] = boolDatum(raw[0] != 0)
		case oids[i] == oidText || oids[i] == 1043 || oids[i] == 2205:
			out[i] = textDatum(string(raw))
		default:
			return nil, &pgError{code: "22P03", msg: fmt.Sprintf("incorrect binary data format in bind parameter %d", i+1)}
		}
	}
	return out, nil
}

// rowDescription describes a result's columns in the given formats.
// rowDescription describes cols in c's reused message; Send encodes it at
// once, so one is enough.
func (c *conn) rowDescription(cols []column, formats []int16) *pgproto3.RowDescription {
	rd := &c.rd
	if cap(rd.Fields) < len(cols) {
		rd.Fields = make([]pgproto3.FieldDescription, len(cols))
	}
	rd.Fields = rd.Fields[:len(cols)]
	for i, col := range cols {
		size := int16(8)
		switch col.oid {
		case oidBool:
			size = 1
		case oidInt4, oidRegtype:
			size = 4
		case oidText:
			size = -1
		case oidName:
			size = 64
		}
		f := &rd.Fields[i]
		*f = pgproto3.FieldDescription{Name: append(f.Name[:0], col.name...), DataTypeOID: col.oid, DataTypeSize: size, TypeModifier: -1, Format: formatOf(formats, i)}
	}
	return rd
}

func formatOf(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	}
	if i < len(formats) {
		return formats[i]
	}
	return 0
}

var regtypeOIDs = map[string]uint32{"bigint": 20, "integer": 23, "smallint": 21}

// encodedRows is a run of DataRow messages already in wire form, sent to
// the backend as one message: a long result costs no allocation and no
// pgproto3 encoding per row.
type encodedRows struct{ b []byte }

func (*encodedRows) Backend()                            {}
func (*encodedRows) Decode([]byte) error                 { return errors.New("encodedRows: not decodable") }
func (r *encodedRows) Encode(dst []byte) ([]byte, error) { return append(dst, r.b...), nil }

// appendRow appends row as a DataRow message, its values in their
// formats, to c.rows.b.
func (c *conn) appendRow(cols []column, row []datum, formats []int16) {
	buf := c.rows.b
	start := len(buf)
	buf = append(buf, 'D', 0, 0, 0, 0)
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(row)))
	for i, d := range row {
		if d.kind == dNull {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32) // -1: NULL
			continue
		}
		lenAt := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		if formatOf(formats, i) == 0 {
			switch d.kind {
			case dInt:
				buf = strconv.AppendInt(buf, d.i, 10)
			case dBool:
				if d.i != 0 {
					buf = append(buf, 't')
				} else {
					buf = append(buf, 'f')
				}
			case dText:
				buf = append(buf, d.s...)
			}
		} else {
			switch cols[i].oid {
			case oidInt8:
				buf = binary.BigEndian.AppendUint64(buf, uint64(d.i))
			case oidInt4:
				buf = binary.BigEndian.AppendUint32(buf, uint32(d.i))
			case oidBool:
				buf = append(buf, byte(d.i))
			case oidRegtype:
				buf = binary.BigEndian.AppendUint32(buf, regtypeOIDs[d.s])
			default:
				buf = append(buf, d.s...)
			}
		}
		binary.BigEndian.PutUint32(buf[lenAt:], uint32(len(buf)-lenAt-4))
	}
	binary.BigEndian.PutUint32(buf[start+1:], uint32(len(buf)-start-1))
	c.rows.b = buf
}

// writeEncoded writes what the backend holds, then the rows encoded so
// far straight to the connection, sparing a copy of a long result.
func (c *conn) writeEncoded() error {
	if err := c.be.Flush(); err != nil {
		return err
	}
	_, err := c.nc.Write(c.rows.b)
	c.rows.b = c.rows.b[:0]
	return err
}

// sendEncoded hands the rows encoded so far to the backend.
func (c *conn) sendEncoded() {
	if len(c.rows.b) > 0 {
		c.be.Send(&c.rows)
		c.rows.b = c.rows.b[:0]
	}
}

// errSuspended is not an error: the row limit of Execute was reached.
var errSuspended = errors.New("portal suspended")

// sendRows streams up to limit rows (0: all) and the completion.
// The completion counts the rows this call sent, as PostgreSQL's does for
// each Execute of a portal.
func (c *conn) sendRows(ctx context.Context, res *result, formats []int16, limit int64) error {
	defer c.sendEncoded() // rows before an error or a suspension go first
	var n int64
	for limit == 0 || n < limit {
		row, ok, err := res.rows.next()
		if err != nil {
			return err
		}
		if !ok {
			c.sendEncoded()
			c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(res.tag + " " + strconv.FormatInt(n, 10))})
			return nil
		}
		c.appendRow(res.cols, row, formats)
		n++
		if n%flushRows == 0 {
			if err := c.writeEncoded(); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return errSuspended
}

// flushRows is how many rows of a long result are buffered before they
// are written.
const flushRows = 2048

func (c *conn) complete(res *result) {
	if res.notice != nil {
		c.be.Send(res.notice)
	}
	if res.cols == nil {
		c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(res.tag)})
	}
}
