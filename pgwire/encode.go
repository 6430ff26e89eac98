package pgwire

import (
	"encoding/binary"
	"errors"
	"math"
	"net/netip"
	"strconv"
	"strings"

	"github.com/seqd/seqd/eval"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

func paramOIDs(p *executor.Prepared) []uint32 {
	if p == nil {
		return nil
	}
	out := make([]uint32, len(p.ParamTypes))
	for i, t := range p.ParamTypes {
		out[i] = t.OID()
	}
	return out
}

// decodeParams turns Bind's parameter values into datums of the
// statement's parameter types.
func (c *conn) decodeParams(b *pgproto3.Bind, p *executor.Prepared) ([]eval.Datum, error) {
	var types []*eval.Type
	if p != nil {
		types = p.ParamTypes
	}
	// PostgreSQL's checks, in its order (exec_bind_message).
	if n := len(b.ParameterFormatCodes); n > 1 && n != len(b.Parameters) {
		return nil, sqlerr.Errorf(sqlerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", n, len(b.Parameters))
	}
	if len(b.Parameters) != len(types) {
		return nil, sqlerr.Errorf(sqlerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement \"%s\" requires %d", len(b.Parameters), b.PreparedStatement, len(types))
	}
	out := make([]eval.Datum, len(types))
	for i, raw := range b.Parameters {
		format := formatOf(b.ParameterFormatCodes, i)
		if format != 0 && format != 1 {
			return nil, unsupportedFormat(format)
		}
		if raw == nil {
			continue
		}
		t := types[i]
		if format == 0 {
			d, err := c.sess.Input(t, string(raw))
			if err != nil {
				return nil, err
			}
			out[i] = d
			continue
		}
		d, ok := decodeBinary(t, raw)
		if !ok {
			return nil, sqlerr.Errorf(sqlerr.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter %d", i+1)
		}
		out[i] = d
	}
	return out, nil
}

func decodeBinary(t *eval.Type, raw []byte) (eval.Datum, bool) {
	switch t.OID() {
	case eval.OIDInt8:
		if len(raw) == 8 {
			return eval.Int(int64(binary.BigEndian.Uint64(raw))), true
		}
	case eval.OIDInt4:
		if len(raw) == 4 {
			return eval.Int(int64(int32(binary.BigEndian.Uint32(raw)))), true
		}
	case eval.OIDInt2:
		if len(raw) == 2 {
			return eval.Int(int64(int16(binary.BigEndian.Uint16(raw)))), true
		}
	case eval.OIDOid, eval.OIDRegclass, eval.OIDRegtype:
		if len(raw) == 4 {
			return eval.Int(int64(binary.BigEndian.Uint32(raw))), true
		}
	case eval.OIDBool:
		if len(raw) == 1 {
			return eval.Bool(raw[0] != 0), true
		}
	case eval.OIDFloat8:
		if len(raw) == 8 {
			return eval.Float(math.Float64frombits(binary.BigEndian.Uint64(raw))), true
		}
	case eval.OIDText, eval.OIDVarchar, eval.OIDName, eval.OIDBpchar, eval.OIDUnknown:
		return eval.Text(string(raw)), true
	}
	return eval.Null, false
}

// rowDescription describes cols in c's reused message; Send encodes it at
// once, so one is enough.
func (c *conn) rowDescription(cols []eval.Column, formats []int16) *pgproto3.RowDescription {
	rd := &c.rd
	if cap(rd.Fields) < len(cols) {
		rd.Fields = make([]pgproto3.FieldDescription, len(cols))
	}
	rd.Fields = rd.Fields[:len(cols)]
	for i, col := range cols {
		f := &rd.Fields[i]
		*f = pgproto3.FieldDescription{Name: append(f.Name[:0], col.Name...), TableOID: col.TableOID, TableAttributeNumber: uint16(col.AttNum),
			DataTypeOID: col.Type.OID(), DataTypeSize: col.Type.Len(), TypeModifier: -1, Format: formatOf(formats, i)}
	}
	return rd
}

// unsupportedFormat is PostgreSQL's error for a format code other than
// text (0) and binary (1).
func unsupportedFormat(format int16) error {
	return sqlerr.Errorf(sqlerr.InvalidParameterValue, "unsupported format code: %d", format)
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

// encodedRows is a run of DataRow messages already in wire form, sent to
// the backend as one message: a long result costs no allocation and no
// pgproto3 encoding per row.
type encodedRows struct{ b []byte }

func (*encodedRows) Backend()                            {}
func (*encodedRows) Decode([]byte) error                 { return errors.New("encodedRows: not decodable") }
func (r *encodedRows) Encode(dst []byte) ([]byte, error) { return append(dst, r.b...), nil }

// appendRow appends row as a DataRow message, its values in their
// formats, to c.rows.b.
func (c *conn) appendRow(cols []eval.Column, row []eval.Datum, formats []int16) error {
	buf := c.rows.b
	start := len(buf)
	buf = append(buf, 'D', 0, 0, 0, 0)
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(row)))
	for i, d := range row {
		if d.IsNull() {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32) // -1: NULL
			continue
		}
		lenAt := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		switch format := formatOf(formats, i); format {
		case 0:
			buf = eval.AppendOutput(buf, cols[i].Type, d)
		case 1:
			var ok bool
			if buf, ok = appendBinary(buf, cols[i].Type, d); !ok {
				c.rows.b = buf[:start]
				return sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd cannot send type %d in binary format", cols[i].Type.OID())
			}
		default: // refused at the first row, as PostgreSQL's printtup does
			c.rows.b = buf[:start]
			return unsupportedFormat(format)
		}
		binary.BigEndian.PutUint32(buf[lenAt:], uint32(len(buf)-lenAt-4))
	}
	binary.BigEndian.PutUint32(buf[start+1:], uint32(len(buf)-start-1))
	c.rows.b = buf
	return nil
}

// appendBinary appends d in t's binary (send) format.
func appendBinary(buf []byte, t *eval.Type, d eval.Datum) ([]byte, bool) {
	switch t.OID() {
	case eval.OIDInt8:
		return binary.BigEndian.AppendUint64(buf, uint64(d.I)), true
	case eval.OIDInet:
		// family, bits, is_cidr, length, address (PostgreSQL's inet_send).
		a, err := netip.ParseAddr(d.S)
		if d.Kind != eval.KText || err != nil {
			return buf, false
		}
		family := byte(2) // PGSQL_AF_INET
		if a.Is6() {
			family = 3
		}
		b := a.AsSlice()
		return append(append(buf, family, byte(8*len(b)), 0, byte(len(b))), b...), true
	case eval.OIDNumeric:
		if d.Kind == eval.KText {
			return appendNumeric(buf, d.S)
		}
		// The evaluator's decimals: their output text, then its form.
		return appendNumeric(buf, string(eval.AppendOutput(nil, t, d)))
	case eval.OIDTimestamptz:
		if d.Kind != eval.KInt {
			return buf, false
		}
		return binary.BigEndian.AppendUint64(buf, uint64(d.I)), true
	case eval.OIDInterval: // microseconds, days, months
		if d.Kind != eval.KInt {
			return buf, false
		}
		return append(binary.BigEndian.AppendUint64(buf, uint64(d.I)), 0, 0, 0, 0, 0, 0, 0, 0), true
	case eval.OIDInt4, eval.OIDOid, eval.OIDRegclass, eval.OIDRegtype, eval.OIDRegproc, eval.OIDRegnsp, eval.OIDRegrole:
		return binary.BigEndian.AppendUint32(buf, uint32(d.I)), true
	case eval.OIDInt2:
		return binary.BigEndian.AppendUint16(buf, uint16(d.I)), true
	case eval.OIDBool, eval.OIDChar:
		if d.Kind == eval.KText {
			if d.S == "" {
				return buf, true
			}
			return append(buf, d.S[0]), true
		}
		return append(buf, byte(d.I)), true
	case eval.OIDFloat8:
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(d.F)), true
	case eval.OIDFloat4:
		return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(d.F))), true
	case eval.OIDVoid:
		return buf, true
	}
	if d.Kind == eval.KText && (t.Category() == 'S' || t.OID() == eval.OIDUnknown) { // a string's binary form is its text
		return append(buf, d.S...), true
	}
	if et := t.Elem(); et != nil && d.Kind == eval.KArray {
		hasNull := 0
		for _, e := range d.A {
			if e.IsNull() {
				hasNull = 1
			}
		}
		ndim := 1
		if len(d.A) == 0 {
			ndim = 0
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(ndim))
		buf = binary.BigEndian.AppendUint32(buf, uint32(hasNull))
		buf = binary.BigEndian.AppendUint32(buf, et.OID())
		if ndim == 1 {
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(d.A)))
			buf = binary.BigEndian.AppendUint32(buf, 1)
		}
		for _, e := range d.A {
			if e.IsNull() {
				buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
				continue
			}
			at := len(buf)
			buf = append(buf, 0, 0, 0, 0)
			var ok bool
			if buf, ok = appendBinary(buf, et, e); !ok {
				return buf, false
			}
			binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
		}
		return buf, true
	}
	return buf, false
}

// writeEncoded writes what the backend holds, then the rows encoded so
// far straight to the connection, sparing a copy of a long result.
func (c *conn) writeEncoded() error {
	if err := c.flush(); err != nil {
		return err
	}
	err := c.write(c.rows.b)
	c.rows.b = c.rows.b[:0]
	return err
}

// sendEncoded hands the rows encoded so far to the backend.
func (c *conn) sendEncoded() {
	if len(c.rows.b) > 0 {
		c.send(&c.rows)
		c.rows.b = c.rows.b[:0]
	}
}

// errSuspended is not an error: the row limit of Execute was reached.
var errSuspended = errors.New("portal suspended")

// sendRows streams up to limit rows (0: all) and the completion.
// The completion counts the rows this call sent, as PostgreSQL's does for
// each Execute of a portal.
func (c *conn) sendRows(ctx interface{ Err() error }, res *executor.Result, formats []int16, limit int64) error {
	defer c.sendEncoded() // rows before an error or a suspension go first
	var n int64
	for limit == 0 || n < limit {
		row, ok, err := res.Rows.Next()
		if err != nil {
			return err
		}
		if !ok {
			c.sendEncoded()
			c.tag = strconv.AppendInt(append(append(c.tag[:0], res.Tag...), ' '), n, 10)
			c.commandComplete(c.tag)
			return nil
		}
		if err := c.appendRow(res.Columns, row, formats); err != nil {
			return err
		}
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

// commandComplete sends a CommandComplete in c's reused message (Send
// encodes it at once).
func (c *conn) commandComplete(tag []byte) {
	c.cc.CommandTag = tag
	c.send(&c.cc)
}

// flushRows is how many rows of a long result are buffered before they
// are written.
const flushRows = 2048

// complete sends what a statement produced besides its rows: notices,
// changed settings, and the completion of a statement without rows. It
// carries out DEALLOCATE, whose prepared statements the protocol owns.
func (c *conn) complete(res *executor.Result) error {
	for _, n := range res.Notices {
		c.send(&pgproto3.NoticeResponse{Severity: n.Severity, SeverityUnlocalized: n.Severity, Code: sqlstate(n.Kind), Message: n.Msg, Detail: n.Detail, Hint: n.Hint})
	}
	for _, p := range res.Params {
		c.send(&pgproto3.ParameterStatus{Name: p.Name, Value: p.Value})
	}
	switch {
	case res.DeallocateAll:
		c.dropStatements()
	case res.Deallocate != "":
		if c.stmts[res.Deallocate] == nil {
			return sqlerr.Errorf(sqlerr.InvalidStatementName, "prepared statement \"%s\" does not exist", res.Deallocate)
		}
		c.dropStatement(res.Deallocate)
	}
	if res.Columns == nil {
		c.commandComplete(append(c.tag[:0], res.Tag...))
	}
	return nil
}

// appendNumeric appends a numeric's output text (an integer, a decimal
// with its scale's digits, NaN, Infinity or -Infinity) in numeric's
// binary form, as PostgreSQL's numeric_send: the count of base-10000
// digits, the weight of the first, the sign (or NaN, ±Infinity), the
// display scale, then the digits, with leading and trailing zero digits
// dropped. False for text that is none of these.
func appendNumeric(buf []byte, text string) ([]byte, bool) {
	head := func(ndigits, weight int, sign, dscale uint16) []byte {
		buf = binary.BigEndian.AppendUint16(buf, uint16(ndigits))
		buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
		buf = binary.BigEndian.AppendUint16(buf, sign)
		return binary.BigEndian.AppendUint16(buf, dscale)
	}
	switch text {
	case "NaN":
		return head(0, 0, 0xC000, 0), true
	case "Infinity": // with the display scale PostgreSQL 15 sends for them
		return head(0, 0, 0xD000, 0x20), true
	case "-Infinity":
		return head(0, 0, 0xF000, 0x20), true
	}
	sign, abs := uint16(0), text
	if rest, ok := strings.CutPrefix(text, "-"); ok {
		sign, abs = 0x4000, rest
	}
	intPart, frac, _ := strings.Cut(abs, ".")
	if intPart == "" && frac == "" || strings.Trim(intPart, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" ||
		len(frac) > math.MaxInt16 {
		return buf, false
	}
	dscale := uint16(len(frac))
	// Whole base-10000 digits on each side of the point: the integer
	// part padded on the left, the fraction on the right.
	if pad := (4 - len(intPart)%4) % 4; pad > 0 {
		intPart = strings.Repeat("0", pad) + intPart
	}
	if pad := (4 - len(frac)%4) % 4; pad > 0 {
		frac += strings.Repeat("0", pad)
	}
	all := intPart + frac
	groups := make([]uint16, 0, len(all)/4)
	for i := 0; i < len(all); i += 4 {
		g, _ := strconv.Atoi(all[i : i+4])
		groups = append(groups, uint16(g))
	}
	weight := len(intPart)/4 - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups, weight = groups[1:], weight-1
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	if len(groups) == 0 {
		sign, weight = 0, 0 // zero: numeric_send's, whatever its sign
	}
	buf = head(len(groups), weight, sign, dscale)
	for _, g := range groups {
		buf = binary.BigEndian.AppendUint16(buf, g)
	}
	return buf, true
}
