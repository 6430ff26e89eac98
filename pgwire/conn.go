package pgwire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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
func rowDescription(cols []column, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, c := range cols {
		size := int16(8)
		switch c.oid {
		case oidBool:
			size = 1
		case oidInt4, oidRegtype:
			size = 4
		case oidText:
			size = -1
		case oidName:
			size = 64
		}
		rd.Fields[i] = pgproto3.FieldDescription{Name: []byte(c.name), DataTypeOID: c.oid, DataTypeSize: size, TypeModifier: -1, Format: formatOf(formats, i)}
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

// encodeRow appends a row's values in their formats to c.buf and points
// c.vals, the DataRow values, into it. All three buffers are reused from
// row to row, so a long result allocates nothing per row.
func (c *conn) encodeRow(cols []column, row []datum, formats []int16) {
	buf, vals, starts := c.buf[:0], c.vals[:0], c.starts[:0]
	for i, d := range row {
		starts = append(starts, len(buf))
		if d.kind == dNull {
			continue
		}
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
			continue
		}
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
	for i, d := range row {
		if d.kind == dNull {
			vals = append(vals, nil)
			continue
		}
		end := len(buf)
		if i+1 < len(row) {
			end = starts[i+1]
		}
		vals = append(vals, buf[starts[i]:end:end])
	}
	c.buf, c.vals, c.starts = buf, vals, starts
}

// errSuspended is not an error: the row limit of Execute was reached.
var errSuspended = errors.New("portal suspended")

// sendRows streams up to limit rows (0: all) and the completion.
// The completion counts the rows this call sent, as PostgreSQL's does for
// each Execute of a portal.
func (c *conn) sendRows(ctx context.Context, res *result, formats []int16, limit int64) error {
	var n int64
	for limit == 0 || n < limit {
		row, ok, err := res.rows.next()
		if err != nil {
			return err
		}
		if !ok {
			c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(res.tag + " " + strconv.FormatInt(n, 10))})
			return nil
		}
		c.encodeRow(res.cols, row, formats)
		c.be.Send(&pgproto3.DataRow{Values: c.vals})
		n++
		if n%flushRows == 0 {
			if err := c.be.Flush(); err != nil {
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
