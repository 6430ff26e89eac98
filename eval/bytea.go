package eval

import (
	"strings"

	"github.com/seqd/seqd/sqlerr"
)

// byteaIn is byteain: \x and hex digits (white space between pairs
// allowed), or the escape format, in which \\ is a backslash and \nnn
// an octal byte.
func byteaIn(text string) (Datum, error) {
	if strings.HasPrefix(text, `\x`) {
		var out []byte
		for i := 2; i < len(text); {
			c := text[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				i++
				continue
			}
			hi, ok := unhex(c)
			if !ok {
				return Null, sqlerr.Errorf(sqlerr.InvalidParameterValue, "invalid hexadecimal digit: \"%c\"", c)
			}
			if i+1 >= len(text) {
				return Null, sqlerr.Errorf(sqlerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := unhex(text[i+1])
			if !ok {
				return Null, sqlerr.Errorf(sqlerr.InvalidParameterValue, "invalid hexadecimal digit: \"%c\"", text[i+1])
			}
			out = append(out, hi<<4|lo)
			i += 2
		}
		return Text(string(out)), nil
	}
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c != '\\':
			out = append(out, c)
		case i+1 < len(text) && text[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(text) && isOctal(text[i+1]) && text[i+1] <= '3' && isOctal(text[i+2]) && isOctal(text[i+3]):
			out = append(out, (text[i+1]-'0')<<6|(text[i+2]-'0')<<3|(text[i+3]-'0'))
			i += 3
		default:
			return Null, sqlerr.Errorf(sqlerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
		}
	}
	return Text(string(out)), nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
