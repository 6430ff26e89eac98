package eval

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/seqd/seqd/sqlerr"
)

// pgTypeRow is one row of PostgreSQL 15's pg_type for a built-in type.
type pgTypeRow struct {
	oid                       uint32
	name                      string
	len                       int16
	byval                     bool
	typtype, category         byte
	preferred                 bool
	delim                     byte
	elem, array               uint32
	input, output, recv, send string
	align, storage            byte
	collation                 uint32
	// subscript, modin, modout, analyze: typsubscript, typmodin,
	// typmodout, typanalyze ("-" for none).
	subscript, modin, modout, analyze string
}

// Type is a data type, as PostgreSQL's pg_type describes it. Types are
// immutable and shared.
type Type struct {
	pgTypeRow
	// class says how values of the type are held in a Datum.
	class Kind
	// sqlName is format_type's spelling: "bigint", not "int8".
	sqlName string
}

// OID is the type's object ID.
func (t *Type) OID() uint32 { return t.oid }

// Name is the type's pg_type.typname ("int8").
func (t *Type) Name() string { return t.name }

// Category is the type's pg_type.typcategory ('S' for strings).
func (t *Type) Category() byte { return t.category }

// Len is typlen: the size of a fixed-width type, -1 or -2 for variable ones.
func (t *Type) Len() int16 { return t.len }

// Elem is the element type of an array type, nil for other types.
func (t *Type) Elem() *Type {
	if t.category != 'A' || t.elem == 0 {
		return nil
	}
	return TypeByOID(t.elem)
}

// IsArray reports whether the type is an array type.
func (t *Type) IsArray() bool { return t.category == 'A' && t.elem != 0 }

// The OIDs seqd's own code names.
const (
	OIDBool         = 16
	OIDBytea        = 17
	OIDChar         = 18
	OIDName         = 19
	OIDInt8         = 20
	OIDInt2         = 21
	OIDInt2Vector   = 22
	OIDInt4         = 23
	OIDRegproc      = 24
	OIDText         = 25
	OIDOid          = 26
	OIDOidVector    = 30
	OIDFloat4       = 700
	OIDFloat8       = 701
	OIDUnknown      = 705
	OIDBoolArray    = 1000
	OIDCharArray    = 1002
	OIDNameArray    = 1003
	OIDInt2Array    = 1005
	OIDInt4Array    = 1007
	OIDTextArray    = 1009
	OIDOidArray     = 1028
	OIDAclitem      = 1033
	OIDAclArray     = 1034
	OIDInt8Array    = 1016
	OIDBpchar       = 1042
	OIDVarchar      = 1043
	OIDTimestamptz  = 1184
	OIDInterval     = 1186
	OIDInet         = 869
	OIDNumeric      = 1700
	OIDRegprocedure = 2202
	OIDRegoper      = 2203
	OIDRegoperator  = 2204
	OIDRegclass     = 2205
	OIDRegtype      = 2206
	OIDRecord       = 2249
	OIDVoid         = 2278
	OIDRegnsp       = 4089
	OIDRegrole      = 4096
)

// typesByOID and typesByName index the built-in types. They are built in
// a variable initializer, not init, so that the t* variables below can
// use them.
var typesByOID, typesByName = buildTypes()

var sqlNames = map[string]string{
	"int8": "bigint", "int4": "integer", "int2": "smallint", "bool": "boolean", "varchar": "character varying",
	"bpchar": "character", "float8": "double precision", "float4": "real", "timestamptz": "timestamp with time zone",
	"timestamp": "timestamp without time zone", "char": `"char"`, "timetz": "time with time zone", "time": "time without time zone",
	"varbit": "bit varying", "interval": "interval", "numeric": "numeric",
	"any": `"any"`, // a keyword: format_type quotes it
}

func buildTypes() (map[uint32]*Type, map[string]*Type) {
	typesByOID, typesByName := map[uint32]*Type{}, map[string]*Type{}
	for i := range builtinTypes {
		r := builtinTypes[i]
		t := &Type{pgTypeRow: r, sqlName: r.name}
		if n, ok := sqlNames[r.name]; ok {
			t.sqlName = n
		}
		switch {
		case r.category == 'A' && r.elem != 0:
			t.class = KArray
		case r.oid == OIDBool:
			t.class = KBool
		case r.oid == OIDInt2 || r.oid == OIDInt4 || r.oid == OIDInt8 || r.oid == OIDOid || r.category == 'N' && strings.HasPrefix(r.name, "reg") ||
			r.name == "xid" || r.name == "cid" || r.name == "xid8":
			t.class = KInt
		case r.oid == OIDFloat4 || r.oid == OIDFloat8:
			t.class = KFloat
		case r.oid == OIDNumeric:
			t.class = KNumeric
		default:
			t.class = KText
		}
		typesByOID[r.oid] = t
		typesByName[r.name] = t
	}
	for i := range builtinTypes {
		t := typesByOID[builtinTypes[i].oid]
		// A true array (not int2vector, oidvector: stored plain) is
		// named by its element, as format_type names it.
		switch e := typesByOID[t.elem]; {
		case t.class != KArray || t.storage == 'p':
		case e != nil:
			t.sqlName = e.sqlName + "[]"
		case strings.HasPrefix(t.name, "_"):
			t.sqlName = t.name[1:] + "[]" // of a type seqd does not have (pg_statistic's row type)
		}
	}
	for _, alias := range [][2]string{{"integer", "int4"}, {"int", "int4"}, {"bigint", "int8"}, {"smallint", "int2"},
		{"boolean", "bool"}, {"real", "float4"}, {"double precision", "float8"}, {"decimal", "numeric"},
		{"character varying", "varchar"}, {"character", "bpchar"}, {"timestamp with time zone", "timestamptz"}} {
		typesByName[alias[0]] = typesByName[alias[1]]
	}
	return typesByOID, typesByName
}

// TypeByOID is the built-in type of an OID, nil if there is none.
func TypeByOID(oid uint32) *Type { return typesByOID[oid] }

var (
	TBool      = TypeByOID(OIDBool)
	TChar      = TypeByOID(OIDChar)
	TName      = TypeByOID(OIDName)
	TInt2      = TypeByOID(OIDInt2)
	TInt4      = TypeByOID(OIDInt4)
	TInt8      = TypeByOID(OIDInt8)
	TText      = TypeByOID(OIDText)
	TOid       = TypeByOID(OIDOid)
	TFloat8    = TypeByOID(OIDFloat8)
	tFloat4    = TypeByOID(OIDFloat4)
	tNumeric   = TypeByOID(OIDNumeric)
	tUnknown   = TypeByOID(OIDUnknown)
	TVarchar   = TypeByOID(OIDVarchar)
	TRegclass  = TypeByOID(OIDRegclass)
	TRegtype   = TypeByOID(OIDRegtype)
	TRegproc   = TypeByOID(OIDRegproc)
	tVoid      = TypeByOID(OIDVoid)
	TTextArr   = TypeByOID(OIDTextArray)
	TNameArr   = TypeByOID(OIDNameArray)
	tOidArr    = TypeByOID(OIDOidArray)
	tInt2Vec   = TypeByOID(OIDInt2Vector)
	tOidVec    = TypeByOID(OIDOidVector)
	TAclArr    = TypeByOID(OIDAclArray)
	tCharArr   = TypeByOID(OIDCharArray)
	TTimestamp = TypeByOID(OIDTimestamptz)
)

// Kind says how a Datum holds its value.
type Kind uint8

// Datum kinds.
const (
	KNull    Kind = iota
	KInt          // I: integers, OIDs and reg* types (S: a reg* value's name)
	KBool         // I: 0 or 1
	KText         // S
	KFloat        // F
	KArray        // A
	KNumeric      // S: numeric_out's text (numeric.go)
)

// Datum is one value. A reg* value (regclass, regtype) holds its OID in I
// and, when known, its text form in S.
type Datum struct {
	Kind Kind
	I    int64
	F    float64
	S    string
	A    []Datum
}

// Null is the NULL datum.
var Null = Datum{}

// Int makes an integer datum.
func Int(v int64) Datum { return Datum{Kind: KInt, I: v} }

// Text makes a text datum.
func Text(s string) Datum { return Datum{Kind: KText, S: s} }

// Bool makes a boolean datum.
func Bool(b bool) Datum {
	if b {
		return Datum{Kind: KBool, I: 1}
	}
	return Datum{Kind: KBool}
}

// Float makes a floating-point datum.
func Float(f float64) Datum { return Datum{Kind: KFloat, F: f} }

// Array makes an array datum.
func Array(elems ...Datum) Datum {
	if elems == nil {
		elems = []Datum{}
	}
	return Datum{Kind: KArray, A: elems}
}

// IsNull reports whether d is NULL.
func (d Datum) IsNull() bool { return d.Kind == KNull }

// Truth is a boolean datum's value (NULL is false).
func (d Datum) Truth() bool { return d.Kind == KBool && d.I != 0 }

// Output is d's text form, as t's output function writes it; the second
// result is false for NULL.
func Output(t *Type, d Datum) (string, bool) {
	if d.Kind == KNull {
		return "", false
	}
	return string(AppendOutput(nil, t, d)), true
}

// AppendOutput appends d's text form (d must not be NULL).
func AppendOutput(b []byte, t *Type, d Datum) []byte {
	switch d.Kind {
	case KInt:
		if d.S != "" && t != nil && (IsReg(t) || t.oid == OIDTimestamptz || t.oid == OIDInterval) {
			return append(b, d.S...)
		}
		if t != nil && t.oid == OIDOid {
			return strconv.AppendUint(b, uint64(uint32(d.I)), 10)
		}
		return strconv.AppendInt(b, d.I, 10)
	case KBool:
		if d.I != 0 {
			return append(b, 't')
		}
		return append(b, 'f')
	case KNumeric:
		return append(b, d.S...)
	case KText:
		if t != nil && t.oid == OIDBytea {
			// bytea_output = hex.
			b = append(b, `\x`...)
			return hex.AppendEncode(b, []byte(d.S))
		}
		return append(b, d.S...)
	case KFloat:
		if t != nil && t.oid == OIDFloat4 {
			return appendFloat4(b, d.F)
		}
		return appendFloat(b, d.F)
	case KArray:
		var et *Type
		if t != nil {
			et = t.Elem()
		}
		vector := t != nil && (t.oid == OIDInt2Vector || t.oid == OIDOidVector)
		if !vector {
			b = append(b, '{')
		}
		for i, e := range d.A {
			if i > 0 {
				if vector {
					b = append(b, ' ')
				} else {
					b = append(b, ',')
				}
			}
			if e.Kind == KNull {
				b = append(b, "NULL"...)
				continue
			}
			s := AppendOutput(nil, et, e)
			if !vector && needsArrayQuote(s) {
				b = append(b, '"')
				for _, c := range s {
					if c == '"' || c == '\\' {
						b = append(b, '\\')
					}
					b = append(b, c)
				}
				b = append(b, '"')
			} else {
				b = append(b, s...)
			}
		}
		if !vector {
			b = append(b, '}')
		}
		return b
	}
	return b
}

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	}
	// PostgreSQL's float8out: the shortest exact digits, in exponent form
	// below 1e-4 and from 1e15 on.
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e15) {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendFloat4 is float4out: a real's shortest exact digits, in
// exponent form below 1e-4 and from 1e6 on.
func appendFloat4(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return appendFloat(b, f)
	}
	// The shortest digits' exponent decides (0.0001 as a real is just
	// below 1e-4).
	e := strconv.AppendFloat(nil, f, 'e', -1, 32)
	exp, _ := strconv.Atoi(string(e[strings.IndexByte(string(e), 'e')+1:]))
	if f != 0 && (exp < -4 || exp >= 6) {
		return append(b, e...)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 32)
}

// toFloat4 rounds a double to a real, whose range it must be in.
func toFloat4(f float64) (Datum, error) {
	r := float32(f)
	if math.IsInf(float64(r), 0) && !math.IsInf(f, 0) {
		return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 && f != 0 {
		return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value out of range: underflow")
	}
	return Float(float64(r)), nil
}

func needsArrayQuote(s []byte) bool {
	if len(s) == 0 || strings.EqualFold(string(s), "null") {
		return true
	}
	for _, c := range s {
		switch c {
		case '"', '\\', '{', '}', ',', ' ', '\t', '\n':
			return true
		}
	}
	return false
}

// intRange is the range and name of an integer type.
func intRange(t *Type) (lo, hi int64, name string) {
	switch t.oid {
	case OIDInt2:
		return math.MinInt16, math.MaxInt16, "smallint"
	case OIDInt4:
		return math.MinInt32, math.MaxInt32, "integer"
	case OIDInt8:
		return math.MinInt64, math.MaxInt64, "bigint"
	}
	return 0, math.MaxUint32, "oid"
}

// Input parses text as t's input function does; s resolves regclass
// names.
func Input(s Session, t *Type, text string) (Datum, error) {
	switch t.oid {
	case OIDRegclass:
		return s.RegclassIn(text)
	case OIDRegtype:
		return regtypeIn(text)
	case OIDRegnsp, OIDRegrole, OIDRegproc, OIDRegprocedure:
		return s.RegIn(t.oid, text)
	case OIDTimestamptz:
		return timestamptzIn(text, s.Location())
	case OIDInt2Vector, OIDOidVector:
		// Numbers separated by spaces.
		var elems []Datum
		for _, f := range strings.Fields(text) {
			d, err := Input(s, t.Elem(), f)
			if err != nil {
				return Null, err
			}
			elems = append(elems, d)
		}
		return Array(elems...), nil
	}
	if isDateTime(t) {
		return Null, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd has no values of type %s", t.sqlName)
	}
	switch t.class {
	case KInt:
		lo, hi, name := intRange(t)
		v, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", text, name)
			}
			return Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", name, text)
		}
		if t.oid == OIDOid && v < 0 && v >= math.MinInt32 {
			v += 1 << 32 // oidin takes a negative int4 as its unsigned value
		}
		if v < lo || v > hi {
			return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "value \"%s\" is out of range for type %s", text, name)
		}
		return Int(v), nil
	case KBool:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "t", "true", "y", "yes", "on", "1":
			return Bool(true), nil
		case "f", "false", "n", "no", "off", "0":
			return Bool(false), nil
		}
		return Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "invalid input syntax for type boolean: \"%s\"", text)
	case KFloat:
		return floatIn(t, text)
	case KNumeric:
		return numericIn(text)
	case KArray:
		return arrayIn(s, t, text)
	}
	switch {
	case t.oid == OIDChar && len(text) > 1:
		text = text[:1]
	case t.oid == OIDBytea:
		return byteaIn(text)
	}
	return Text(text), nil
}

// floatIn is float8in and float4in: a value
// beyond the type's range, or too small for it but not zero, is out of
// range.
func floatIn(t *Type, text string) (Datum, error) {
	in := strings.TrimSpace(text)
	f, err := strconv.ParseFloat(in, 64)
	ne, _ := err.(*strconv.NumError)
	if err != nil && (ne == nil || ne.Err != strconv.ErrRange) {
		return Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", t.sqlName, text)
	}
	lo, hi := math.SmallestNonzeroFloat64, math.MaxFloat64
	if t.oid == OIDFloat4 {
		lo, hi = math.SmallestNonzeroFloat32, math.MaxFloat32
	}
	a := math.Abs(f)
	if err != nil || !math.IsInf(f, 0) && a > hi || a == 0 && nonzeroDigit(in) || a != 0 && a < lo {
		return Null, sqlerr.Errorf(sqlerr.NumericValueOutOfRange, "\"%s\" is out of range for type %s", text, t.sqlName)
	}
	if t.oid == OIDFloat4 {
		f = float64(float32(f)) // a real holds a float's precision
	}
	return Float(f), nil
}

// nonzeroDigit reports whether a number's mantissa has a digit other
// than 0.
func nonzeroDigit(s string) bool {
	for _, c := range s {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// arrayIn parses a one-dimensional array literal: {a,"b c",NULL}.
func arrayIn(s Session, t *Type, text string) (Datum, error) {
	bad := func() (Datum, error) {
		return Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "malformed array literal: \"%s\"", text)
	}
	in := strings.TrimSpace(text)
	if len(in) < 2 || in[0] != '{' || in[len(in)-1] != '}' {
		return bad()
	}
	in = in[1 : len(in)-1]
	out := []Datum{}
	et := t.Elem()
	for i := 0; i < len(in); {
		for i < len(in) && in[i] == ' ' {
			i++
		}
		var elem string
		quoted := false
		if i < len(in) && in[i] == '"' {
			quoted = true
			var b strings.Builder
			i++
			for ; i < len(in) && in[i] != '"'; i++ {
				if in[i] == '\\' && i+1 < len(in) {
					i++
				}
				b.WriteByte(in[i])
			}
			if i == len(in) {
				return bad()
			}
			i++
			elem = b.String()
		} else {
			j := strings.IndexByte(in[i:], ',')
			if j < 0 {
				j = len(in) - i
			}
			elem = strings.TrimSpace(in[i : i+j])
			i += j
			if elem == "" {
				return bad()
			}
		}
		if !quoted && strings.EqualFold(elem, "null") {
			out = append(out, Null)
		} else {
			d, err := Input(s, et, elem)
			if err != nil {
				return Null, err
			}
			out = append(out, d)
		}
		for i < len(in) && in[i] == ' ' {
			i++
		}
		if i < len(in) {
			if in[i] != ',' {
				return bad()
			}
			i++
		}
	}
	return Array(out...), nil
}

// LookupType finds a type by its (possibly qualified) name.
func LookupType(names []string) *Type {
	switch len(names) {
	case 1:
		return typesByName[names[0]]
	case 2:
		if names[0] == "pg_catalog" {
			return typesByName[names[1]]
		}
	}
	return nil
}

func regtypeIn(text string) (Datum, error) {
	name := strings.ToLower(strings.TrimSpace(text))
	name = strings.TrimPrefix(name, "pg_catalog.")
	arr := strings.HasSuffix(name, "[]")
	name = strings.TrimSuffix(name, "[]")
	t := typesByName[strings.Trim(name, `"`)]
	if t != nil && arr {
		t = TypeByOID(t.array)
	}
	if t == nil {
		if n, err := strconv.ParseUint(name, 10, 32); err == nil {
			if t := TypeByOID(uint32(n)); t != nil {
				return Datum{Kind: KInt, I: int64(n), S: t.sqlName}, nil
			}
			return Datum{Kind: KInt, I: int64(n)}, nil
		}
		return Null, sqlerr.Errorf(sqlerr.UndefinedObject, "type \"%s\" does not exist", text)
	}
	return t.Regtype(), nil
}

// TypeByName is the type of a pg_type name ("int8", not "bigint"), nil if
// there is none.
func TypeByName(name string) *Type { return typesByName[name] }

// SQLName is format_type's spelling of the type: "bigint", not "int8".
func (t *Type) SQLName() string { return t.sqlName }

// ByVal is typbyval; Align is typalign.
func (t *Type) ByVal() bool { return t.byval }

// Collation is the type's typcollation.
func (t *Type) Collation() uint32 { return t.collation }
func (t *Type) Align() byte       { return t.align }

// Regtype is t as a regtype value.
func (t *Type) Regtype() Datum { return Datum{Kind: KInt, I: int64(t.oid), S: t.sqlName} }

// PgTypeColumns are pg_type's columns, PgTypeRows its rows: the built-in
// types, owned by owner.
var PgTypeColumns = []RelColumn{{"oid", TOid}, {"typname", TName}, {"typnamespace", TOid}, {"typowner", TOid},
	{"typlen", TInt2}, {"typbyval", TBool}, {"typtype", TChar}, {"typcategory", TChar}, {"typispreferred", TBool},
	{"typisdefined", TBool}, {"typdelim", TChar}, {"typrelid", TOid}, {"typsubscript", TRegproc}, {"typelem", TOid},
	{"typarray", TOid}, {"typinput", TRegproc}, {"typoutput", TRegproc}, {"typreceive", TRegproc}, {"typsend", TRegproc},
	{"typmodin", TRegproc}, {"typmodout", TRegproc}, {"typanalyze", TRegproc},
	{"typalign", TChar}, {"typstorage", TChar}, {"typnotnull", TBool}, {"typbasetype", TOid}, {"typtypmod", TInt4},
	{"typndims", TInt4}, {"typcollation", TOid}, {"typdefaultbin", TypeByOID(194)}, {"typdefault", TText}, {"typacl", TAclArr}}

func PgTypeRows(owner uint32) [][]Datum {
	out := make([][]Datum, 0, len(builtinTypes))
	for _, r := range builtinTypes {
		proc := func(name string) Datum { return Datum{Kind: KInt, I: 1, S: name} }
		out = append(out, []Datum{Int(int64(r.oid)), Text(r.name), Int(11), Int(int64(owner)), Int(int64(r.len)),
			Bool(r.byval), Text(string(r.typtype)), Text(string(r.category)), Bool(r.preferred), Bool(true),
			Text(string(r.delim)), Int(0), proc(r.subscript), Int(int64(r.elem)), Int(int64(r.array)), proc(r.input), proc(r.output),
			proc(r.recv), proc(r.send), proc(r.modin), proc(r.modout), proc(r.analyze), Text(string(r.align)), Text(string(r.storage)),
			Bool(false), Int(0), Int(-1), Int(0), Int(int64(r.collation)), Null, Null, Null})
	}
	return out
}

// IsReg reports whether t is an OID alias type (regclass, regtype,
// regproc ...), whose values print as names.
func IsReg(t *Type) bool {
	switch t.oid {
	case OIDRegclass, OIDRegtype, OIDRegproc, OIDRegprocedure, OIDRegoper, OIDRegoperator, OIDRegnsp, OIDRegrole:
		return true
	}
	return false
}

// TypeIOFunctions are the names of the built-in types' input, output,
// receive, send, typmod and analyze functions.
func TypeIOFunctions() []string {
	var out []string
	for _, r := range builtinTypes {
		for _, n := range []string{r.input, r.output, r.recv, r.send, r.subscript, r.modin, r.modout, r.analyze} {
			if n != "-" {
				out = append(out, n)
			}
		}
	}
	return out
}
