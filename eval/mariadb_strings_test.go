package eval

import (
	"context"
	"math"
	"testing"
	"unicode/utf8"
)

// TestMariaDBStrings: LEFT, RIGHT, SUBSTRING, LPAD, RPAD and TRIM of a
// string as MariaDB 10.11 answers them, in characters (the oracle in
// mysqlwire compares the functions themselves with a live MariaDB).
func TestMariaDBStrings(t *testing.T) {
	call := func(name string, args ...Datum) (Datum, []Warning) {
		t.Helper()
		w := &warnings{}
		env := &Env{Ctx: WithMemory(context.Background(), NewMemory(0, nil)), Session: w}
		for _, d := range builtins[name] {
			if len(d.args) == len(args) {
				got, err := d.fn(env, args)
				if err != nil {
					t.Fatalf("%s%v: %v", name, args, err)
				}
				return got, w.got
			}
		}
		t.Fatalf("no %s of %d arguments", name, len(args))
		return Null, nil
	}
	for _, c := range []struct {
		name string
		args []Datum
		want Datum
	}{
		{"seqd_mariadb_left", []Datum{Text("añb"), Int(2)}, Text("añ")},
		{"seqd_mariadb_left", []Datum{Text("abc"), Int(-1)}, Text("")},
		{"seqd_mariadb_left", []Datum{Text("abc"), Int(math.MaxInt64)}, Text("abc")},
		{"seqd_mariadb_right", []Datum{Text("añb"), Int(2)}, Text("ñb")},
		{"seqd_mariadb_right", []Datum{Text("abc"), Int(0)}, Text("")},
		{"seqd_mariadb_substr", []Datum{Text("abcdef"), Int(-3), Int(2)}, Text("de")},
		{"seqd_mariadb_substr", []Datum{Text("abcdef"), Int(0)}, Text("")},
		{"seqd_mariadb_substr", []Datum{Text("abcdef"), Int(-7)}, Text("")},
		{"seqd_mariadb_substr", []Datum{Text("abc"), Int(math.MaxInt64)}, Text("")},
		{"seqd_mariadb_substr", []Datum{Text("añbc"), Int(2), Int(math.MaxInt64)}, Text("ñbc")},
		{"seqd_mariadb_pad", []Datum{Text("ab"), Int(5), Text("xy"), Bool(true), Int(1 << 24)}, Text("xyxab")},
		{"seqd_mariadb_pad", []Datum{Text("añ"), Int(4), Text("ü"), Bool(false), Int(1 << 24)}, Text("añüü")},
		{"seqd_mariadb_pad", []Datum{Text("abc"), Int(2), Text(""), Bool(true), Int(1 << 24)}, Text("ab")},
		{"seqd_mariadb_pad", []Datum{Text("abc"), Int(5), Text(""), Bool(true), Int(1 << 24)}, Null},
		{"seqd_mariadb_pad", []Datum{Text("abc"), Int(-1), Text("x"), Bool(true), Int(1 << 24)}, Null},
		{"seqd_mariadb_trim", []Datum{Text("xyxyaxy"), Text("xy"), Int(1)}, Text("axy")},
		{"seqd_mariadb_trim", []Datum{Text("xyxyaxy"), Text("xy"), Int(0)}, Text("a")},
		{"seqd_mariadb_trim", []Datum{Text("aaba"), Text("a"), Int(2)}, Text("aab")},
		{"seqd_mariadb_trim", []Datum{Text("a"), Text(""), Int(0)}, Text("a")},
		{"seqd_mariadb_reverse", []Datum{Text("añb")}, Text("bña")},
	} {
		got, _ := call(c.name, c.args...)
		if got.Kind != c.want.Kind || got.S != c.want.S {
			t.Errorf("%s%v = %v, want %v", c.name, c.args, got, c.want)
		}
	}
	// Past max_allowed_packet at 4 bytes a character: NULL and 1301,
	// before anything is made.
	got, w := call("seqd_mariadb_pad", Text("a"), Int(5), Text("b"), Bool(true), Int(16))
	if got.Kind != KNull || len(w) != 1 || (w[0] != Warning{Kind: PacketOverflow, Type: "lpad", Value: "16"}) {
		t.Errorf("lpad past the limit: %v, %v", got, w)
	}
	if got, w := call("seqd_mariadb_pad", Text("a"), Int(4), Text("b"), Bool(false), Int(16)); got.S != "abbb" || len(w) != 0 {
		t.Errorf("rpad at the limit: %v, %v", got, w)
	}
}

// TestMariaDBPadCharged: a pad is charged to the statement's memory
// before it is made, as REPEAT is.
func TestMariaDBPadCharged(t *testing.T) {
	pad := builtins["seqd_mariadb_pad"][0].fn
	env := &Env{Ctx: WithMemory(context.Background(), NewMemory(1<<20, nil)), Session: &warnings{}}
	if _, err := pad(env, []Datum{Text("x"), Int(2 << 30), Text("y"), Bool(true), Int(1 << 62)}); !oom(err) {
		t.Fatalf("2 GiB under a 1 MiB statement limit: %v, want 53200", err)
	}
}

// TestMariaDBRound: ROUND of a double as MariaDB's my_double_round, half
// to even of x * 10^d; of integers and decimals half away from zero.
func TestMariaDBRound(t *testing.T) {
	for _, c := range []struct {
		x    float64
		d    int64
		want float64
	}{
		{2.5, 0, 2}, {3.5, 0, 4}, {-2.5, 0, -2}, {1.55, 1, 1.6}, {2.55, 1, 2.6}, {15, -1, 20}, {25, -1, 20},
		{1e300, 10, 1e300}, {5, -400, 0}, {1.5, 400, 1.5},
	} {
		if got := doubleRound(c.x, c.d); got != c.want {
			t.Errorf("doubleRound(%v, %d) = %v, want %v", c.x, c.d, got, c.want)
		}
	}
	round := builtins["seqd_mariadb_round"]
	for _, d := range round {
		if d.args[0] == TInt8 {
			if got, _ := d.fn(nil, []Datum{Int(15), Int(-1)}); got.S != "20" {
				t.Errorf("ROUND(15, -1) = %v, want 20", got)
			}
			if got, _ := d.fn(nil, []Datum{Int(5), Int(2)}); got.S != "5" {
				t.Errorf("ROUND(5, 2) = %v, want 5", got)
			}
		}
	}
}

// FuzzMariaDBStrings: the string functions of any text and counts make
// valid UTF-8 of valid UTF-8, never more than they were asked for, and
// do not fail.
func FuzzMariaDBStrings(f *testing.F) {
	f.Add("añb", int64(2), int64(-1), "xy")
	f.Add("", int64(math.MaxInt64), int64(math.MinInt64), "")
	f.Fuzz(func(t *testing.T, s string, n, m int64, pad string) {
		if !utf8.ValidString(s) || !utf8.ValidString(pad) {
			return
		}
		env := &Env{Ctx: WithMemory(context.Background(), NewMemory(1<<20, nil)), Session: &warnings{}}
		chars := int64(utf8.RuneCountInString(s))
		for name, defs := range map[string][]funcDef{"left": builtins["seqd_mariadb_left"], "right": builtins["seqd_mariadb_right"],
			"substr": builtins["seqd_mariadb_substr"]} {
			for _, d := range defs {
				args := []Datum{Text(s), Int(n), Int(m)}[:len(d.args)]
				got, err := d.fn(env, args)
				if err != nil || !utf8.ValidString(got.S) || int64(utf8.RuneCountInString(got.S)) > chars {
					t.Fatalf("%s%v = %v, %v", name, args, got, err)
				}
			}
		}
		got, err := padMariaDB(env, []Datum{Text(s), Int(n % 4096), Text(pad), Bool(n%2 == 0), Int(1 << 24)})
		if err != nil || got.Kind != KNull && (!utf8.ValidString(got.S) || int64(utf8.RuneCountInString(got.S)) != n%4096) {
			t.Fatalf("pad(%q, %d, %q) = %v, %v", s, n%4096, pad, got, err)
		}
		for how := range int64(3) {
			got, _ := builtins["seqd_mariadb_trim"][0].fn(env, []Datum{Text(s), Text(pad), Int(how)})
			if len(got.S) > len(s) || !utf8.ValidString(got.S) {
				t.Fatalf("trim(%q, %q, %d) = %v", s, pad, how, got)
			}
		}
	})
}
