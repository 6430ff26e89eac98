package sql

import (
	"reflect"
	"testing"

	"github.com/seqd/seqd/alloc"
)

func i64(v int64) *int64 { return &v }

func TestParse(t *testing.T) {
	yes, no := true, false
	small := alloc.Smallint
	for _, tc := range []struct {
		q    string
		want []Stmt
	}{
		{"", nil},
		{" ; ;", nil},
		{"CREATE SEQUENCE s", []Stmt{&CreateSequence{Name: QName{Rel: "s"}}}},
		{`create sequence if not exists Public."MySeq" as smallint increment by -2 minvalue -100 no maxvalue start with -3 cache 10 cycle;`,
			[]Stmt{&CreateSequence{Name: QName{"public", "MySeq"}, IfNotExists: true, Spec: alloc.Spec{Type: &small, Increment: i64(-2), Min: i64(-100), NoMax: true, Start: i64(-3), Cache: i64(10), Cycle: &yes}}}},
		{"CREATE SEQUENCE s NOCACHE NOCYCLE", []Stmt{&CreateSequence{Name: QName{Rel: "s"}, Spec: alloc.Spec{Cache: i64(1), Cycle: &no}}}},
		{"CREATE SEQUENCE s NO CACHE NO CYCLE OWNED BY NONE", []Stmt{&CreateSequence{Name: QName{Rel: "s"}, Spec: alloc.Spec{Cache: i64(1), Cycle: &no}}}},
		{"ALTER SEQUENCE IF EXISTS s RESTART", []Stmt{&AlterSequence{Name: QName{Rel: "s"}, IfExists: true, Spec: alloc.Spec{Restart: true}}}},
		{"alter sequence s restart with 5 increment 3", []Stmt{&AlterSequence{Name: QName{Rel: "s"}, Spec: alloc.Spec{Restart: true, RestartWith: i64(5), Increment: i64(3)}}}},
		{"alter sequence s restart 7", []Stmt{&AlterSequence{Name: QName{Rel: "s"}, Spec: alloc.Spec{Restart: true, RestartWith: i64(7)}}}},
		{"DROP SEQUENCE IF EXISTS a, b.c CASCADE", []Stmt{&DropSequence{Names: []QName{{Rel: "a"}, {"b", "c"}}, IfExists: true}}},
		{"select nextval('s')", []Stmt{&SelectCall{Call: Call{Func: "nextval", Column: "nextval", Args: []Value{{Kind: VStr, Str: "s", Pos: 16}}}}}},
		{"SELECT nextval($1::regclass) AS id", []Stmt{&SelectCall{Call: Call{Func: "nextval", Column: "id", Args: []Value{{Kind: VParam, Param: 1, Pos: 16}}}}}},
		{"select pg_catalog.setval('s', -5, false)", []Stmt{&SelectCall{Call: Call{Func: "setval", Column: "setval", Args: []Value{{Kind: VStr, Str: "s", Pos: 26}, {Kind: VInt, Int: -5, Pos: 31}, {Kind: VBool, Pos: 35}}}}}},
		{"select lastval()", []Stmt{&SelectCall{Call: Call{Func: "lastval", Column: "lastval"}}}},
		{"select nextval('s') from generate_series(1, 100000) g", []Stmt{&SelectCall{Call: Call{Func: "nextval", Column: "nextval", Args: []Value{{Kind: VStr, Str: "s", Pos: 16}}}, Series: &Series{From: Value{Kind: VInt, Int: 1, Pos: 42}, To: Value{Kind: VInt, Int: 100000, Pos: 45}}}}},
		{"SELECT NEXT VALUE FOR db.s", []Stmt{&SelectCall{Call: Call{Func: "nextval", Column: "nextval", Args: []Value{{Kind: VName, Name: QName{"db", "s"}, Pos: 8}}}}}},
		{"SELECT PREVIOUS VALUE FOR s", []Stmt{&SelectCall{Call: Call{Func: "lastval", Column: "lastval", Args: []Value{{Kind: VName, Name: QName{Rel: "s"}, Pos: 8}}}}}},
		{"SELECT LASTVAL(s)", []Stmt{&SelectCall{Call: Call{Func: "lastval", Column: "lastval", Args: []Value{{Kind: VName, Name: QName{Rel: "s"}, Pos: 16}}}}}},
		{"select * from seqd_reserve('s', 5) r", []Stmt{&SelectCall{Call: Call{Func: "seqd_reserve", Column: "r", Args: []Value{{Kind: VStr, Str: "s", Pos: 28}, {Kind: VInt, Int: 5, Pos: 33}}}}}},
		{"select seqd_release('s', 4, 10)", []Stmt{&SelectCall{Call: Call{Func: "seqd_release", Column: "seqd_release", Args: []Value{{Kind: VStr, Str: "s", Pos: 21}, {Kind: VInt, Int: 4, Pos: 26}, {Kind: VInt, Int: 10, Pos: 29}}}}}},
		{"select last_value, log_cnt, is_called from s", []Stmt{&SelectSequence{Name: QName{Rel: "s"}, Columns: []string{"last_value", "log_cnt", "is_called"}}}},
		{"select * from pg_catalog.pg_sequences", []Stmt{&SelectPgSequences{}}},
		{"SELECT 1", []Stmt{&SelectLiteral{Value: Value{Kind: VInt, Int: 1, Pos: 8}, Column: "?column?"}}},
		{"SET application_name = 'x'; BEGIN; COMMIT; show server_version", []Stmt{&Set{Tag: "SET"}, &Transaction{Tag: "BEGIN"}, &Transaction{Tag: "COMMIT"}, &Show{Name: "server_version"}}},
		{"/* c /* nested */ */ select 1 -- tail", []Stmt{&SelectLiteral{Value: Value{Kind: VInt, Int: 1, Pos: 29}, Column: "?column?"}}},
	} {
		got, err := Parse(tc.q)
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %#v\nwant %#v", tc.q, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		q, code, msg string
		pos          int
	}{
		{"CREATE SEQUENCE", "42601", "syntax error at end of input", 16},
		{"CREATE SEQUENCE s INCREMENT BY x", "42601", `syntax error at or near "x"`, 32},
		{"CREATE SEQUENCE s CACHE 1 CACHE 2", "42601", "conflicting or redundant options", 27},
		{"CREATE SEQUENCE s START 99999999999999999999", "22003", `value "99999999999999999999" is out of range for type bigint`, 0},
		{"CREATE SEQUENCE s AS text", "22023", "sequence type must be smallint, integer, or bigint", 0},
		{"CREATE TABLE t (id int)", "0A000", "seqd does not support CREATE TABLE: it serves sequences only", 0},
		{"INSERT INTO t VALUES (1)", "0A000", "seqd does not support INSERT: it serves sequences only", 0},
		{"select foo('s')", "42883", "function foo does not exist", 0},
		{"select 'abc", "42601", `unterminated quoted string at or near "'abc"`, 8},
		{"ALTER SEQUENCE s", "42601", "syntax error at end of input", 17},
		{"select nextval('s') garbage garbage", "42601", `syntax error at or near "garbage"`, 29},
		{"selec 1", "0A000", "seqd does not support SELEC: it serves sequences only", 0},
		{"select 1.5", "0A000", `seqd supports only integer literals, not "1.5"`, 0},
		{"select @", "42601", `syntax error at or near "@"`, 8},
		{"SELECT NEXTVAL(s), 1", "0A000", "seqd supports one item per select list", 0},
		{"select * from pg_sequences where sequencename = 's'", "0A000", "seqd does not support WHERE in this statement", 0},
		{"select nextval('s') from generate_series(1, 3) order by 1", "0A000", "seqd does not support ORDER in this statement", 0},
		{"select first from seqd_reserve('s', 5)", "0A000", "seqd supports only SELECT * FROM a sequence function", 0},
	} {
		_, err := Parse(tc.q)
		e, ok := err.(*Error)
		if !ok || e.Code != tc.code || e.Msg != tc.msg || e.Pos != tc.pos {
			t.Errorf("%q: got %#v, want %s %q at %d", tc.q, err, tc.code, tc.msg, tc.pos)
		}
	}
}

func TestParseRegclass(t *testing.T) {
	for in, want := range map[string]QName{"s": {Rel: "s"}, "S": {Rel: "s"}, `"S"`: {Rel: "S"}, "public.s": {"public", "s"}, ` x `: {Rel: "x"}} {
		if got, err := ParseRegclass(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "a b", "1", "a.", `"`} {
		if _, err := ParseRegclass(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"create sequence s increment by -1 cycle", "select nextval('s') from generate_series(1,10)", "select * from pg_sequences", "SELECT NEXT VALUE FOR s; drop sequence a, b", `alter sequence "x""y" restart with 5`, "/* */ -- x\nselect $1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		stmts, err := Parse(q)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		for _, s := range stmts {
			if s == nil {
				t.Fatal("nil statement")
			}
		}
	})
}
