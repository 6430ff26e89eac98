package pgsql

import (
	"strings"
	"testing"

	"github.com/seqd/seqd/sqlerr"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		q     string
		stmts int
		first string // the first statement's text
	}{
		{"", 0, ""},
		{" ; ;", 0, ""},
		{"select nextval('s')", 1, "select nextval('s')"},
		{"select 1; select 2", 2, "select 1"},
		{"create sequence s nocache nocycle", 1, "create sequence s CACHE 1 NO CYCLE"},
		{"CREATE SEQUENCE m START WITH 100 NOCACHE NOCYCLE", 1, "CREATE SEQUENCE m START WITH 100 CACHE 1 NO CYCLE"},
		{"SELECT NEXT VALUE FOR db.s", 1, "SELECT seqd_mariadb_nextval(db.s)"},
		{"SELECT PREVIOUS VALUE FOR s", 1, "SELECT seqd_mariadb_lastval(s)"},
		{"SELECT NEXTVAL(m), LASTVAL(m), SETVAL(m, 5)", 1, "SELECT seqd_mariadb_nextval(m), seqd_mariadb_lastval(m), seqd_mariadb_setval(m, 5)"},
		// Lower case and quoted names keep PostgreSQL's meaning.
		{"SELECT nextval(m)", 1, "SELECT nextval(m)"},
		{"SELECT NEXTVAL('m')", 1, "SELECT NEXTVAL('m')"},
		// The shapes' clauses, alone and with MariaDB's spellings.
		{"create sequence a bit_reversed_positive skip range -5 10 start counter with 7", 1,
			`create sequence a SEQUENCE NAME pg_catalog.seqd_bit_reversed_positive SEQUENCE NAME pg_catalog.seqd_skip_range."-5"."10" SEQUENCE NAME pg_catalog.seqd_start_counter."7"`},
		{"select 1; ALTER SEQUENCE a NO SKIP RANGE RESTART COUNTER 3", 2, "select 1"},
		{"create sequence b SHARD_BITS 4 RANGE_BITS 40 nocache", 1,
			`create sequence b SEQUENCE NAME pg_catalog.seqd_shard_bits."4" SEQUENCE NAME pg_catalog.seqd_range_bits."40" CACHE 1`},
		// ORDER and NOORDER, but never the sequence's own name.
		{"CREATE SEQUENCE s CACHE 1000 NOORDER", 1, "CREATE SEQUENCE s CACHE 1000 SEQUENCE NAME pg_catalog.seqd_noorder"},
		{"alter sequence if exists noorder.order order", 1, "alter sequence if exists noorder.order SEQUENCE NAME pg_catalog.seqd_order"},
		{"create sequence noorder noorder", 1, "create sequence noorder SEQUENCE NAME pg_catalog.seqd_noorder"},
		{"alter sequence s rename to noorder", 1, "alter sequence s rename to noorder"},
		{"alter sequence s set schema noorder", 1, "alter sequence s set schema noorder"},
		{"select 1 from t order by 1", 1, "select 1 from t order by 1"},
	} {
		st, err := Parse(tc.q)
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		if len(st) != tc.stmts {
			t.Errorf("%q: %d statements, want %d", tc.q, len(st), tc.stmts)
			continue
		}
		if tc.stmts > 0 && st[0].Text() != tc.first {
			t.Errorf("%q: first statement %q, want %q", tc.q, st[0].Text(), tc.first)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		q    string
		kind sqlerr.Kind
		msg  string
		pos  int
	}{
		{"selec nextval('s')", sqlerr.SyntaxError, `syntax error at or near "selec"`, 1},
		{"select nextval('s') from", sqlerr.SyntaxError, "syntax error at end of input", 25},
		{"select 'é' + ", sqlerr.SyntaxError, "syntax error at end of input", 14},
		{`create sequence ""`, sqlerr.SyntaxError, `zero-length delimited identifier at or near """"`, 17},
		{"select 'unterminated", sqlerr.SyntaxError, "unterminated quoted string at or near \"'unterminated\"", 8},
		// A MariaDB rewrite that does not help reports PostgreSQL's error.
		{"create sequence s no cache bogus", sqlerr.SyntaxError, `syntax error at or near "cache"`, 22},
		// A shape clause that is not well formed fails where it is
		// written, after clauses that were rewritten.
		// (START is an option keyword; "counter" is where the grammar
		// stops, at its place in the text as written.)
		{"create sequence s bit_reversed_positive skip range 1 2 start counter x", sqlerr.SyntaxError, `syntax error at or near "counter"`, 62},
		// Outside CREATE and ALTER SEQUENCE the words mean nothing
		// (PostgreSQL's answer: skip is a column alias).
		{"select 1 skip range 1 2", sqlerr.SyntaxError, `syntax error at or near "range"`, 15},
	} {
		_, err := Parse(tc.q)
		se, ok := err.(*sqlerr.Error)
		if !ok {
			t.Errorf("%q: %v, want an *Error", tc.q, err)
			continue
		}
		if se.Kind != tc.kind || se.Msg != tc.msg || se.Pos != tc.pos {
			t.Errorf("%q: %s %q at %d, want %s %q at %d", tc.q, se.Kind, se.Msg, se.Pos, tc.kind, tc.msg, tc.pos)
		}
	}
}

// TestClauses: the sequence clauses come out of the parse tree as data, in
// order, located where they stand; a SEQUENCE NAME option written as such
// stays an option.
func TestClauses(t *testing.T) {
	q := "alter sequence s skip range 1 2 nocache restart counter with -5 noorder"
	st, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	opts := st[0].Node.GetAlterSeqStmt().Options
	if len(opts) != 1 || opts[0].GetDefElem().Defname != "cache" {
		t.Fatalf("options %v, want only CACHE (NOCACHE's)", opts)
	}
	want := []struct {
		name string
		args []string
		at   string // the text as written from the clause's location
	}{
		{"skip_range", []string{"1", "2"}, "skip range 1 2"},
		{"restart_counter", []string{"-5"}, "restart counter"},
		{"noorder", nil, "noorder"},
	}
	cs := st[0].Clauses
	if len(cs) != len(want) {
		t.Fatalf("clauses %+v, want %d", cs, len(want))
	}
	for i, w := range want {
		c := cs[i]
		if c.Name != w.name || strings.Join(c.Args, ",") != strings.Join(w.args, ",") {
			t.Errorf("clause %d: %+v, want %s %v", i, c, w.name, w.args)
		}
		// An error at the clause's location points at it as written.
		err := st[0].Locate(sqlerr.Errorf(sqlerr.SyntaxError, "x").At(st[0].Query, c.Location))
		pos := err.(*sqlerr.Error).Pos
		if !strings.HasPrefix(q[pos-1:], w.at) {
			t.Errorf("clause %d located at %d (%q), want at %q", i, pos, q[pos-1:], w.at)
		}
	}
	st, err = Parse("alter sequence s sequence name pg_catalog.seqd_noorder")
	if err != nil {
		t.Fatal(err)
	}
	if len(st[0].Clauses) != 0 || len(st[0].Node.GetAlterSeqStmt().Options) != 1 {
		t.Errorf("a SEQUENCE NAME option as written was taken for a clause: %+v", st[0].Clauses)
	}
}

// TestRewriteLocated: an error after a rewritten spelling is reported at
// its place in the text as sent, in characters.
func TestRewriteLocated(t *testing.T) {
	for _, tc := range []struct {
		q   string
		pos int
	}{
		// The capitalized call is rewritten always; the error is past it.
		{"SELECT NEXTVAL(s), 'é' +", 25},
		// A sequence clause rewritten before the error.
		{`create sequence "é" noorder start counter x`, 35},
	} {
		_, err := Parse(tc.q)
		se, ok := err.(*sqlerr.Error)
		if !ok || se.Pos != tc.pos {
			t.Errorf("%q: %v at %d, want at %d", tc.q, err, se.Pos, tc.pos)
		}
	}
}

func TestParseQualifiedName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want QName
		ok   bool
	}{
		{"s", QName{Rel: "s"}, true},
		{" Public . \"My Seq\" ", QName{Schema: "public", Rel: "My Seq"}, true},
		{`"a""b"`, QName{Rel: `a"b`}, true},
		{"db.sch.rel", QName{Catalog: "db", Schema: "sch", Rel: "rel"}, true},
		{"a.b.c.d", QName{}, false}, // 42601, as PostgreSQL
		{"", QName{}, false},
		{"a..b", QName{}, false},
		{`""`, QName{}, false},
		{`"open`, QName{}, false},
	} {
		got, err := ParseQualifiedName(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{"abc": "abc", "Ab": `"Ab"`, "select": `"select"`, "a b": `"a b"`, "x1_": "x1_", `q"`: `"q"""`} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParse checks that any input either parses or fails with an *Error
// that has a kind, and that a statement's text lies within its query.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"select nextval('s')", "SELECT NEXT VALUE FOR s", "create sequence s nocache", "selec 1",
		"select 1; select 2", "SELECT NEXTVAL(a.b)", "/* c */ select $1::int", "show all",
		"create sequence s bit_reversed_positive skip range 1 2 start counter 3", "alter sequence s no skip range restart counter with 4",
		"create sequence t shard_bits 4 range_bits 40; select 1",
		"create sequence if not exists a.noorder noorder; alter sequence s order"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		st, err := parse(q)
		if err != nil {
			se, ok := err.(*sqlerr.Error)
			if !ok || se.Kind == "" || se.Msg == "" {
				t.Fatalf("%q: %#v", q, err)
			}
			return
		}
		for _, s := range st {
			if s.Start < 0 || s.End > len(s.Query) || s.Start > s.End {
				t.Fatalf("%q: statement bounds %d..%d of %d", q, s.Start, s.End, len(s.Query))
			}
			if s.Node == nil || s.Node.GetNode() == nil {
				t.Fatalf("%q: empty statement node", q)
			}
		}
	})
}

// TestSnowflakeClauses: SNOWFLAKE's clauses, EPOCH's and TIME_UNIT's
// strings carried whatever quotes they hold; a string too long to carry,
// or not a plain string, is left for the grammar to refuse.
func TestSnowflakeClauses(t *testing.T) {
	q := `create sequence ids snowflake epoch '2014-09-01 00:00:00+00' time_unit '10 ms' node_bits 16 counter_bits 8 cache 1`
	st, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range st[0].Clauses {
		got = append(got, c.Name+"("+strings.Join(c.Args, ",")+")")
	}
	want := "snowflake() epoch(2014-09-01 00:00:00+00) time_unit(10 ms) node_bits(16) counter_bits(8)"
	if strings.Join(got, " ") != want {
		t.Fatalf("clauses %v, want %s", got, want)
	}
	st, err = Parse(`create sequence ids snowflake epoch 'a"b''c'`)
	if err != nil || len(st[0].Clauses) != 2 || st[0].Clauses[1].Args[0] != `a"b'c` {
		t.Fatalf("quotes: %+v, %v", st, err)
	}
	for _, bad := range []string{
		"create sequence ids snowflake epoch '" + strings.Repeat("1", 61) + "'",
		"create sequence ids snowflake epoch E'2020-01-01'",
		"create sequence ids snowflake time_unit 5",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
}
