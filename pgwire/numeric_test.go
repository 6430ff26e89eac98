package pgwire

import (
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestNumericIntBinary: an integer held as numeric text (pg_stat_ssl's
// client_serial) goes in numeric's binary form, which pgx reads back as
// the same number; text that is no integer is refused.
func TestNumericIntBinary(t *testing.T) {
	m := pgtype.NewMap()
	for in, want := range map[string]string{"0": "0", "1": "1", "-1": "-1", "10000": "10000", "123456789": "123456789",
		"-987654321012345678901234567890": "-987654321012345678901234567890", "00042": "42", "-0": "0"} {
		b, ok := appendNumericInt(nil, in)
		if !ok {
			t.Fatalf("%q refused", in)
		}
		var n pgtype.Numeric
		if err := m.Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, b, &n); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got, _ := n.Value(); got != want {
			t.Errorf("%q: pgx reads %v, want %s", in, got, want)
		}
	}
	for _, in := range []string{"", "-", "1.5", "12a", "+1"} {
		if _, ok := appendNumericInt(nil, in); ok {
			t.Errorf("%q taken as an integer", in)
		}
	}
}
