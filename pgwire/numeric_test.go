package pgwire

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/seqd/seqd/internal/testenv"
)

// numericTexts are numerics as their output text: integers (pg_stat_ssl's
// client_serial is one, held as text), decimals with their scale, the
// special values, and the edges of base-10000 digits.
var numericTexts = []string{"0", "1", "-1", "10000", "123456789", "-987654321012345678901234567890", "42",
	"0.00", "1.50", "-1.50", "0.0001", "0.00001", "12345.6789", "10000.0001", "-0.5", "100000000.000000001",
	"3.14159265358979323846", "1e5", "NaN", "Infinity", "-Infinity"}

// TestNumericBinary: a numeric goes in numeric's binary form byte for
// byte as PostgreSQL 15's numeric_send makes it, which pgx reads back as
// the same number; text that is no numeric is refused.
func TestNumericBinary(t *testing.T) {
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	m := pgtype.NewMap()
	for _, in := range numericTexts {
		var want []byte
		var text string
		if err := pg.QueryRow(ctx, "select numeric_send($1::numeric), $1::numeric::text", in).Scan(&want, &text); err != nil {
			t.Fatalf("%q on PostgreSQL: %v", in, err)
		}
		b, ok := appendNumeric(nil, text)
		if !ok {
			t.Fatalf("%q refused", text)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%q: % x, PostgreSQL's numeric_send % x", text, b, want)
		}
		var n pgtype.Numeric
		if err := m.Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, b, &n); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
	}
	for _, in := range []string{"", "-", ".", "12a", "+1", "1.2.3", "--1", "inf"} {
		if _, ok := appendNumeric(nil, in); ok {
			t.Errorf("%q taken as a numeric", in)
		}
	}
}

// TestNumericResults: pgx, with its defaults (the extended protocol,
// numeric results in binary), reads the evaluator's numerics from seqd
// as PostgreSQL 15 gives them: a sum of bigints, decimals with their
// scale, the special values.
func TestNumericResults(t *testing.T) {
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, testenv.PostgresDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	sd, err := pgx.Connect(ctx, startSeqd(t))
	if err != nil {
		t.Fatal(err)
	}
	defer sd.Close(ctx)
	for _, q := range []string{
		"select sum(x) from (values (9223372036854775807::int8), (1)) t(x)",
		"select 1.50::numeric", "select 0.1 + 0.2", "select 1.0 / 3", "select -12345.678900::numeric(12, 4)",
		"select 'NaN'::numeric", "select 'Infinity'::numeric", "select '-Infinity'::numeric", "select avg(x) from (values (1), (2)) t(x)",
	} {
		var want, got pgtype.Numeric
		if err := pg.QueryRow(ctx, q).Scan(&want); err != nil {
			t.Fatalf("%s on PostgreSQL: %v", q, err)
		}
		if err := sd.QueryRow(ctx, q).Scan(&got); err != nil {
			t.Fatalf("%s on seqd: %v", q, err)
		}
		w, _ := want.Value()
		g, _ := got.Value()
		if g != w {
			t.Errorf("%s: seqd %v, PostgreSQL %v", q, g, w)
		}
	}
}
