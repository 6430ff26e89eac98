package sqlerr

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// kindConsts are the Kind constants errors.go declares, read from its
// source so that a kind added without a row in kinds fails here.
func kindConsts(t *testing.T) []Kind {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []Kind
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Kind" {
				lit := v.Values[0].(*ast.BasicLit)
				out = append(out, Kind(lit.Value[1:len(lit.Value)-1]))
			}
		}
	}
	if len(out) < 70 {
		t.Fatalf("read %d kinds from errors.go: too few, the reading is wrong", len(out))
	}
	return out
}

// TestKinds: every kind has one row, its SQLSTATE is its own and leads
// back to it, and what is retryable is of a class a caller waits out.
func TestKinds(t *testing.T) {
	codes := map[string]Kind{}
	for _, k := range kindConsts(t) {
		i, ok := kinds[k]
		if !ok {
			t.Errorf("%s: no row in kinds", k)
			continue
		}
		if len(i.code) != 5 {
			t.Errorf("%s: SQLSTATE %q", k, i.code)
		}
		if other, dup := codes[i.code]; dup {
			t.Errorf("%s and %s share SQLSTATE %s", k, other, i.code)
		}
		codes[i.code] = k
		if got := KindOfCode(i.code); got != k {
			t.Errorf("KindOfCode(%s) = %q, want %q", i.code, got, k)
		}
		if i.retry && i.class != ClassUnavailable && i.class != ClassTooMany && i.class != ClassCanceled {
			t.Errorf("%s is retryable but of class %d", k, i.class)
		}
	}
	if len(kinds) != len(codes) {
		t.Errorf("kinds has %d rows for %d declared kinds", len(kinds), len(codes))
	}
	if SQLState("no_such_kind") != "XX000" || KindOfCode("99999") != "" || ClassOf("no_such_kind") != ClassInternal || Retryable("no_such_kind") {
		t.Error("an unknown kind or code is not internal and not retryable")
	}
}

// TestClasses pins what callers act on: HTTP's statuses, gRPC's codes
// and the client library's sentinels all read these.
func TestClasses(t *testing.T) {
	for _, c := range []struct {
		kind  Kind
		class Class
		retry bool
	}{
		{UndefinedTable, ClassNotFound, false},
		{InsufficientPrivilege, ClassForbidden, false},
		{InvalidPassword, ClassUnauthenticated, false},
		{DuplicateTable, ClassExists, false},
		{SerializationFailure, ClassContended, false},
		{SequenceLimitExceeded, ClassPrecondition, false},
		{TooManyConnections, ClassTooMany, true},
		{ProgramLimitExceeded, ClassTooLarge, false},
		{OutOfMemory, ClassOutOfMemory, false},
		{QueryCanceled, ClassCanceled, true},
		{ReadOnlyTransaction, ClassUnavailable, true},
		{AdminShutdown, ClassUnavailable, true},
		{IOError, ClassUnavailable, true},
		{DiskFull, ClassUnavailable, true},
		{CannotConnectNow, ClassUnavailable, true},
		{SyntaxError, ClassInvalid, false},
		{NumericValueOutOfRange, ClassInvalid, false},
		{FeatureNotSupported, ClassInvalid, false},
		{ProtocolViolation, ClassInvalid, false},
		{InternalError, ClassInternal, false},
		{ObjectNotInPrerequisiteState, ClassPrecondition, false}, // currval before nextval, ids ahead of the clock
	} {
		if got := ClassOf(c.kind); got != c.class {
			t.Errorf("ClassOf(%s) = %d, want %d", c.kind, got, c.class)
		}
		if got := Retryable(c.kind); got != c.retry {
			t.Errorf("Retryable(%s) = %v, want %v", c.kind, got, c.retry)
		}
	}
}

func TestCharPos(t *testing.T) {
	q := "select 'é', x"
	for _, c := range []struct{ off, want int }{{0, 1}, {8, 9}, {10, 10}, {13, 13}, {14, 14}, {99, 14}} {
		if got := CharPos(q, c.off); got != c.want {
			t.Errorf("CharPos(%q, %d) = %d, want %d", q, c.off, got, c.want)
		}
	}
}
