package httpapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// The typed path (the API's calls) against the SQL path (the same
// role's statements in a session as PostgreSQL's protocol runs them):
// an ordinary role's probes, each answered alike by both.

// sqlSession is a session of user's on eng, as a PostgreSQL-protocol
// connection has.
func sqlSession(t *testing.T, eng *engine.Engine, user string, reg *frontend.Registry) *executor.Session {
	t.Helper()
	cfg := executor.Config{Engine: eng, User: user, Superuser: "seqd", Database: "seqd"}
	if reg != nil {
		pid, _, ok := reg.Register(func() {})
		if !ok {
			t.Fatal("registry full")
		}
		cfg.Activity, cfg.BackendPID = reg.Activity(), pid
	}
	s, err := executor.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// trySQL runs the statements of q in s: the first value of the last one
// that returned rows, and the SQLSTATE of the first failure ("" for
// none). A failed statement ends an implicit block, as a front end does.
func trySQL(t *testing.T, s *executor.Session, q string) (eval.Datum, string) {
	t.Helper()
	stmts, err := pgsql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	v := eval.Null
	for i := range stmts {
		p, err := s.Prepare(&stmts[i], nil)
		if err == nil {
			var res *executor.Result
			// As a front end runs it: under statement_timeout.
			ctx, cancel := s.StatementContext(context.Background())
			defer cancel()
			if res, err = s.Execute(ctx, p, nil); err == nil {
				if res.Rows != nil {
					var row []eval.Datum
					var ok bool
					for row, ok, err = res.Rows.Next(); ok && err == nil; row, ok, err = res.Rows.Next() {
						v = row[0]
					}
				}
				s.Release(res)
			}
		}
		if err != nil {
			s.Abort()
			return v, stateOf(err)
		}
	}
	return v, ""
}

func stateOf(err error) string {
	return sqlerr.SQLState(frontend.KindOf(err))
}

// mustSQL is trySQL that must succeed.
func mustSQL(t *testing.T, s *executor.Session, q string) eval.Datum {
	t.Helper()
	v, st := trySQL(t, s, q)
	if st != "" {
		t.Fatalf("%s: %s", q, st)
	}
	return v
}

// stateOfAnswer is the API answer's SQLSTATE, "" for a success.
func stateOfAnswer(a answer) string {
	if a.status < 300 {
		return ""
	}
	s, _ := a.body["sqlstate"].(string)
	return s
}

// same checks that the API's answer a and the SQL path's SQLSTATE agree,
// and that both are want.
func same(t *testing.T, what string, a answer, sqlState, want string) {
	t.Helper()
	if got := stateOfAnswer(a); got != want || sqlState != want {
		t.Errorf("%s: API %q (%d %v), SQL %q, want %q", what, got, a.status, a.body, sqlState, want)
	}
}

// lit is a string literal of the qualified, quoted name schema.rel.
func lit(schema, rel string) string {
	return "'" + strings.ReplaceAll(pgsql.QuoteIdent(schema)+"."+pgsql.QuoteIdent(rel), "'", "''") + "'"
}

func seqURL(base, schema, rel string) string {
	return base + "/v1/sequences/" + url.PathEscape(schema) + "/" + url.PathEscape(rel)
}

func firstValue(a answer) int64 {
	vals, _ := a.body["values"].([]any)
	if len(vals) == 0 {
		return -1 << 63
	}
	n, _ := strconv.ParseInt(fmt.Sprint(vals[0]), 10, 64)
	return n
}

func adversarialServer(t *testing.T) (string, *engine.Engine, *executor.Session) {
	t.Helper()
	base, eng := start(t, AuthTrust, engine.Role{Name: "seqd", Superuser: true, Login: true},
		engine.Role{Name: "app", Login: true}, engine.Role{Name: "other", Login: true})
	return base, eng, sqlSession(t, eng, "seqd", nil)
}

// TestTypedPrivileges: nextval, reserve and release need USAGE or
// UPDATE, describe's position USAGE or SELECT; each privilege alone
// gives the API what it gives SQL.
func TestTypedPrivileges(t *testing.T) {
	base, eng, root := adversarialServer(t)
	app := sqlSession(t, eng, "app", nil)
	for _, c := range []struct {
		grant                string
		take, describe, rele string
	}{
		{"", "42501", "42501", "42501"},
		{"SELECT", "42501", "", "42501"},
		{"USAGE", "", "", ""},
		{"UPDATE", "", "42501", ""},
	} {
		name := "p" + strings.ToLower(c.grant)
		mustSQL(t, root, "create sequence "+name)
		if c.grant != "" {
			mustSQL(t, root, "grant "+c.grant+" on sequence "+name+" to app")
		}
		u := seqURL(base, "public", name)
		_, st := trySQL(t, app, "select nextval("+lit("public", name)+")")
		same(t, c.grant+": nextval", call(t, "POST", u+"/nextval", "", "app", ""), st, c.take)
		_, st = trySQL(t, app, "select nextval("+lit("public", name)+") from generate_series(1, 3)")
		same(t, c.grant+": nextval count 3", call(t, "POST", u+"/nextval", `{"count": "3"}`, "app", ""), st, c.take)
		_, st = trySQL(t, app, "select * from seqd_reserve("+lit("public", name)+", 5)")
		same(t, c.grant+": reserve", call(t, "POST", u+"/reserve", `{"count": "5"}`, "app", ""), st, c.take)
		_, st = trySQL(t, app, "select seqd_release("+lit("public", name)+", 100, 101)")
		same(t, c.grant+": release", call(t, "POST", u+"/release", `{"first": "100", "last": "101"}`, "app", ""), st, c.rele)
		_, st = trySQL(t, app, "select pg_sequence_last_value("+lit("public", name)+"::regclass)")
		same(t, c.grant+": describe", call(t, "GET", u, "", "app", ""), st, c.describe)
		// Not the owner: ALTER and DROP are the owner's.
		_, st = trySQL(t, app, "alter sequence "+name+" increment 5")
		same(t, c.grant+": alter", call(t, "PATCH", u, `{"increment": "5"}`, "app", ""), st, "42501")
		_, st = trySQL(t, app, "drop sequence "+name)
		same(t, c.grant+": drop", call(t, "DELETE", u, "", "app", ""), st, "42501")
	}
}

// TestTypedRevokeSeenByPooledSession: a privilege revoked, or the
// schema's USAGE, while the role's API session sits in the pool: the
// next call is refused, as the next statement of a SQL session is.
func TestTypedRevokeSeenByPooledSession(t *testing.T) {
	base, eng, root := adversarialServer(t)
	app := sqlSession(t, eng, "app", nil)
	mustSQL(t, root, "create schema sch; create sequence sch.s; grant usage on schema sch to app; grant usage on sequence sch.s to app")
	u := seqURL(base, "sch", "s")
	lt := lit("sch", "s")
	for i := range 3 { // the session pooled, its name resolved and its privileges cached
		if a := call(t, "POST", u+"/nextval", "", "app", ""); a.status != http.StatusOK || firstValue(a) != int64(i+1) {
			t.Fatalf("nextval before the revoke: %d %v", a.status, a.body)
		}
	}
	mustSQL(t, app, "select nextval("+lt+")")
	mustSQL(t, root, "revoke usage on sequence sch.s from app")
	_, st := trySQL(t, app, "select nextval("+lt+")")
	same(t, "nextval after the sequence's USAGE revoked", call(t, "POST", u+"/nextval", "", "app", ""), st, "42501")
	mustSQL(t, root, "grant usage on sequence sch.s to app")
	if a := call(t, "POST", u+"/nextval", "", "app", ""); a.status != http.StatusOK {
		t.Fatalf("nextval granted again: %d %v", a.status, a.body)
	}
	mustSQL(t, app, "select nextval("+lt+")")
	mustSQL(t, root, "revoke usage on schema sch from app")
	_, st = trySQL(t, app, "select nextval("+lt+")")
	same(t, "nextval after the schema's USAGE revoked", call(t, "POST", u+"/nextval", "", "app", ""), st, "42501")
	_, st = trySQL(t, app, "select * from seqd_reserve("+lt+", 2)")
	same(t, "reserve after the schema's USAGE revoked", call(t, "POST", u+"/reserve", `{"count": "2"}`, "app", ""), st, "42501")
	_, st = trySQL(t, app, "select pg_sequence_last_value("+lt+"::regclass)")
	same(t, "describe after the schema's USAGE revoked", call(t, "GET", u, "", "app", ""), st, "42501")
	// A role with the privilege through PUBLIC, then PUBLIC's revoked.
	mustSQL(t, root, "create sequence pub; grant usage on sequence pub to public")
	pu := seqURL(base, "public", "pub")
	if a := call(t, "POST", pu+"/nextval", "", "other", ""); a.status != http.StatusOK {
		t.Fatalf("nextval through PUBLIC: %d %v", a.status, a.body)
	}
	mustSQL(t, root, "revoke usage on sequence pub from public")
	other := sqlSession(t, eng, "other", nil)
	_, st = trySQL(t, other, "select nextval('pub')")
	same(t, "nextval after PUBLIC's USAGE revoked", call(t, "POST", pu+"/nextval", "", "other", ""), st, "42501")
	// Membership: USAGE through a group, then the membership revoked.
	mustSQL(t, root, "create role grp; grant usage on sequence pub to grp; grant grp to other")
	if a := call(t, "POST", pu+"/nextval", "", "other", ""); a.status != http.StatusOK {
		t.Fatalf("nextval through a group: %d %v", a.status, a.body)
	}
	mustSQL(t, root, "revoke grp from other")
	_, st = trySQL(t, other, "select nextval('pub')")
	same(t, "nextval after the group's membership revoked", call(t, "POST", pu+"/nextval", "", "other", ""), st, "42501")
}

// TestTypedDropRecreateRename: between two calls of one pooled session
// the sequence is dropped and made again, or two are swapped by
// renames: the next call takes from the sequence the name names now,
// never from a dropped one or the other one.
func TestTypedDropRecreateRename(t *testing.T) {
	base, _, root := adversarialServer(t)
	u := seqURL(base, "public", "a")
	mustSQL(t, root, "create sequence a; create sequence b start 1000")
	for i := range 3 {
		if a := call(t, "POST", u+"/nextval", "", "seqd", ""); firstValue(a) != int64(i+1) {
			t.Fatalf("nextval a: %d %v", a.status, a.body)
		}
	}
	mustSQL(t, root, "drop sequence a; create sequence a start 500")
	if a := call(t, "POST", u+"/nextval", "", "seqd", ""); firstValue(a) != 500 {
		t.Errorf("nextval of a made again: %d %v, want 500", a.status, a.body)
	}
	if a := call(t, "POST", u+"/nextval", "", "seqd", `{"count": "2"}`); a.status != http.StatusOK {
		t.Errorf("nextval count 2 of a made again: %d %v", a.status, a.body)
	}
	mustSQL(t, root, "alter sequence a rename to tmp; alter sequence b rename to a; alter sequence tmp rename to b")
	if a := call(t, "POST", u+"/nextval", "", "seqd", ""); firstValue(a) != 1000 {
		t.Errorf("nextval of a after the swap: %d %v, want 1000 (b's)", a.status, a.body)
	}
	if a := call(t, "POST", u+"/reserve", `{"count": "3"}`, "seqd", ""); fmt.Sprint(a.body["first"]) != "1001" {
		t.Errorf("reserve of a after the swap: %d %v, want 1001", a.status, a.body)
	}
	if a := call(t, "GET", u, "", "seqd", ""); fmt.Sprint(a.body["start"]) != "1000" {
		t.Errorf("describe of a after the swap: %d %v, want b's start 1000", a.status, a.body)
	}
	// Dropped, not made again: 42P01, as nextval('a').
	mustSQL(t, root, "drop sequence a")
	_, st := trySQL(t, root, "select nextval('a')")
	same(t, "nextval of a dropped", call(t, "POST", u+"/nextval", "", "seqd", ""), st, "42P01")
	same(t, "describe of a dropped", call(t, "GET", u, "", "seqd", ""), st, "42P01")
	_, st = trySQL(t, root, "select seqd_release('a', 1, 2)")
	same(t, "release of a dropped", call(t, "POST", u+"/release", `{"first": "1", "last": "2"}`, "seqd", ""), st, "42P01")
	// The API's cache of names and a SQL session's, in a block: a name
	// dropped and made again in the block is seen by the block's next
	// statement (the typed path's own block is not reachable from HTTP;
	// the executor's session is, below).
	mustSQL(t, root, "create sequence c start 7")
	s := root
	ctx := context.Background()
	if v, err := s.Nextval(ctx, "public", "c"); err != nil || v != 7 {
		t.Fatalf("typed nextval c: %v %v", v, err)
	}
	if _, err := s.Begin(ctx, nil); err != nil {
		t.Fatal(err)
	}
	mustSQL(t, s, "drop sequence c; create sequence c start 70")
	if v, err := s.Nextval(ctx, "public", "c"); err != nil || v != 70 {
		t.Errorf("typed nextval c, dropped and made again in the block: %v %v, want 70", v, err)
	}
	mustSQL(t, s, "alter sequence c rename to d")
	if _, err := s.Nextval(ctx, "public", "c"); stateOf(err) != "42P01" {
		t.Errorf("typed nextval c, renamed away in the block: %v, want 42P01", err)
	}
	if _, err := s.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	s.Idle()
	if v, err := s.Nextval(ctx, "public", "c"); err != nil || v != 8 {
		t.Errorf("typed nextval c after the rollback: %v %v, want 8 (the first c back)", v, err)
	}
	s.Idle()
}

// TestTypedNames: names as given reach the sequence of exactly that
// name, and what SQL refuses the API refuses alike.
func TestTypedNames(t *testing.T) {
	base, _, root := adversarialServer(t)
	long63 := strings.Repeat("x", 63)
	for _, n := range []string{"Upper", "upper", `q"uo'te`, "dot.ted", "with space", "ünïcødé", "序列", long63, strings.Repeat("é", 31) + "x"} {
		mustSQL(t, root, "create sequence "+pgsql.QuoteIdent(n)+" start 10")
		a := call(t, "POST", seqURL(base, "public", n)+"/nextval", "", "seqd", "")
		v, st := trySQL(t, root, "select nextval("+lit("public", n)+")")
		if a.status != http.StatusOK || firstValue(a) != 10 || st != "" || v.I != 11 {
			t.Errorf("%q: API %d %v, SQL %v %s", n, a.status, a.body, v, st)
		}
	}
	if a := call(t, "GET", seqURL(base, "public", "Upper"), "", "seqd", ""); fmt.Sprint(a.body["last_value"]) != "11" {
		t.Errorf("Upper and upper one sequence? %v", a.body)
	}
	// 64 bytes: SQL cuts the name to 63 and finds long63; the API
	// refuses it (42622) rather than name another sequence.
	long64 := long63 + "y"
	if a := call(t, "POST", seqURL(base, "public", long64)+"/nextval", "", "seqd", ""); stateOfAnswer(a) != "42622" {
		t.Errorf("a 64-byte name: %d %v, want 42622", a.status, a.body)
	}
	// The catalog's relations are no sequences.
	for _, c := range []struct{ schema, rel string }{{"pg_catalog", "pg_class"}, {"information_schema", "sequences"}, {"pg_catalog", "pg_sequences"}} {
		_, st := trySQL(t, root, "select nextval("+lit(c.schema, c.rel)+")")
		same(t, c.schema+"."+c.rel+" nextval", call(t, "POST", seqURL(base, c.schema, c.rel)+"/nextval", "", "seqd", ""), st, st)
		if st == "" {
			t.Errorf("nextval of %s.%s succeeds", c.schema, c.rel)
		}
		_, st = trySQL(t, root, "select * from seqd_reserve("+lit(c.schema, c.rel)+", 2)")
		same(t, c.schema+"."+c.rel+" reserve", call(t, "POST", seqURL(base, c.schema, c.rel)+"/reserve", `{"count": "2"}`, "seqd", ""), st, st)
		_, st = trySQL(t, root, "drop sequence "+pgsql.QuoteIdent(c.schema)+"."+pgsql.QuoteIdent(c.rel))
		if a := call(t, "DELETE", seqURL(base, c.schema, c.rel), "", "seqd", ""); stateOfAnswer(a) != st || st == "" {
			t.Errorf("drop %s.%s: API %v, SQL %s", c.schema, c.rel, a.body, st)
		}
		_, st = trySQL(t, root, "create sequence "+pgsql.QuoteIdent(c.schema)+".\"new\"")
		if a := call(t, "PUT", seqURL(base, c.schema, "new"), "", "seqd", ""); stateOfAnswer(a) != st || st == "" {
			t.Errorf("create in %s: API %v, SQL %s", c.schema, a.body, st)
		}
	}
}

// TestTypedTemporary: the API's sessions are pooled, shared by the
// role's callers: another session's temporary sequence is not reachable
// by its schema's name, and a pg_temp sequence made through the API
// lives only as long as some pooled session happens to (not across the
// role's callers as a table would).
func TestTypedTemporary(t *testing.T) {
	base, eng, root := adversarialServer(t)
	mustSQL(t, root, "grant temporary on database seqd to app")
	app := sqlSession(t, eng, "app", nil)
	mustSQL(t, app, "create temporary sequence tmp")
	schema := mustSQL(t, app, "select nspname from pg_namespace where nspname like 'pg\\_temp\\_%'").S
	if !strings.HasPrefix(schema, "pg_temp_") {
		t.Fatalf("temp schema %q", schema)
	}
	other := sqlSession(t, eng, "app", nil)
	_, st := trySQL(t, other, "select nextval("+lit(schema, "tmp")+")")
	a := call(t, "POST", seqURL(base, schema, "tmp")+"/nextval", "", "app", "")
	if st == "" || stateOfAnswer(a) == "" {
		t.Errorf("another session's temporary sequence: API %d %v, SQL %q: want both refused", a.status, a.body, st)
	}
	a = call(t, "POST", seqURL(base, "pg_temp", "tmp")+"/nextval", "", "app", "")
	if stateOfAnswer(a) != "42P01" {
		t.Errorf("pg_temp.tmp of another session through the API: %d %v, want 42P01", a.status, a.body)
	}
}

// TestTypedCounts: counts refused as SQL refuses them, and a sequence at
// its limit: the values before the limit are taken as SQL takes them.
func TestTypedCounts(t *testing.T) {
	base, _, root := adversarialServer(t)
	u := seqURL(base, "public", "s")
	mustSQL(t, root, "create sequence s maxvalue 5")
	for _, c := range []string{"0", "-1", "9223372036854775807", "-9223372036854775808"} {
		call(t, "POST", u+"/nextval", `{"count": "`+c+`"}`, "seqd", "").problem(t, "nextval count "+c, http.StatusBadRequest, "22023")
		call(t, "POST", u+"/reserve", `{"count": "`+c+`"}`, "seqd", "").problem(t, "reserve count "+c, http.StatusBadRequest, "22023")
	}
	_, st := trySQL(t, root, "select * from seqd_reserve('s', 0)")
	if st != "22023" {
		t.Errorf("SQL seqd_reserve 0: %q", st)
	}
	// At MAXVALUE without CYCLE: 2200H; the values before it are taken
	// (nextval is not undone), in both.
	mustSQL(t, root, "create sequence t maxvalue 5")
	_, st = trySQL(t, root, "select nextval('t') from generate_series(1, 7)")
	same(t, "nextval 7 of 5", call(t, "POST", u+"/nextval", `{"count": "7"}`, "seqd", ""), st, "2200H")
	apiLast := call(t, "GET", u, "", "seqd", "").body["last_value"]
	sqlLast := mustSQL(t, root, "select last_value from pg_sequences where sequencename = 't'")
	if fmt.Sprint(apiLast) != fmt.Sprint(sqlLast.I) {
		t.Errorf("position after the failed count: API %v, SQL %v", apiLast, sqlLast)
	}
	_, st = trySQL(t, root, "select * from seqd_reserve('t', 1)")
	same(t, "reserve at the limit", call(t, "POST", u+"/reserve", `{"count": "1"}`, "seqd", ""), st, "2200H")
	// With CYCLE: the values wrap alike.
	mustSQL(t, root, "create sequence c1 maxvalue 3 cycle; create sequence c2 maxvalue 3 cycle")
	a := call(t, "POST", seqURL(base, "public", "c1")+"/nextval", `{"count": "7"}`, "seqd", "")
	var sqlVals []string
	for range 7 {
		sqlVals = append(sqlVals, fmt.Sprint(mustSQL(t, root, "select nextval('c2')").I))
	}
	if fmt.Sprint(a.body["values"]) != "["+strings.Join(sqlVals, " ")+"]" {
		t.Errorf("a cycle: API %v, SQL %v", a.body["values"], sqlVals)
	}
	// Descending at MINVALUE.
	mustSQL(t, root, "create sequence d increment -1 minvalue -2 maxvalue 0 start 0")
	du := seqURL(base, "public", "d")
	call(t, "POST", du+"/nextval", `{"count": "3"}`, "seqd", "")
	_, st = trySQL(t, root, "select nextval('d')")
	same(t, "descending at MINVALUE", call(t, "POST", du+"/nextval", "", "seqd", ""), st, "2200H")
}

// TestTypedRelease: a release of what was not reserved, twice,
// overlapping, of another role's sequence: what seqd_release says.
func TestTypedRelease(t *testing.T) {
	base, eng, root := adversarialServer(t)
	mustSQL(t, root, "create sequence s; create sequence s2")
	u := seqURL(base, "public", "s")
	r := call(t, "POST", u+"/reserve", `{"count": "10"}`, "seqd", "")
	if fmt.Sprint(r.body["first"]) != "1" || fmt.Sprint(r.body["last"]) != "10" {
		t.Fatalf("reserve: %v", r.body)
	}
	mustSQL(t, root, "select * from seqd_reserve('s2', 10)")
	rel := func(first, last int64) (any, bool) {
		a := call(t, "POST", u+"/release", fmt.Sprintf(`{"first": "%d", "last": "%d"}`, first, last), "seqd", "")
		v, st := trySQL(t, root, fmt.Sprintf("select seqd_release('s2', %d, %d)", first, last))
		sqlAns := any(st)
		if st == "" {
			sqlAns = v.Truth()
		}
		apiAns := any(stateOfAnswer(a))
		if a.status == http.StatusOK {
			apiAns = a.body["released"]
		}
		if fmt.Sprint(apiAns) != fmt.Sprint(sqlAns) {
			t.Errorf("release %d..%d: API %v, SQL %v", first, last, apiAns, sqlAns)
		}
		return apiAns, true
	}
	rel(20, 30)       // never handed out
	rel(5, 9)         // not the tail
	rel(6, 10)        // the tail
	rel(6, 10)        // twice
	rel(4, 5)         // overlapping what was given back
	rel(-5, 5)        // below the start
	rel(1<<62, 1<<62) // one value never handed out
	// Against the increment: seqd_release says false, the API 22023 (its
	// documented difference: it says why nothing was given back).
	if a := call(t, "POST", u+"/release", `{"first": "11", "last": "10"}`, "seqd", ""); stateOfAnswer(a) != "22023" {
		t.Errorf("release against the increment: %d %v", a.status, a.body)
	}
	if v := mustSQL(t, root, "select seqd_release('s2', 11, 10)"); v.Truth() {
		t.Error("seqd_release against the increment: true")
	}
	// Another role's: USAGE needed.
	app := sqlSession(t, eng, "app", nil)
	_, st := trySQL(t, app, "select seqd_release('s', 1, 2)")
	same(t, "release of another role's", call(t, "POST", u+"/release", `{"first": "1", "last": "2"}`, "app", ""), st, "42501")
}

// TestTypedTokens: a role sees and revokes only its own tokens; a
// revoked token, and a token of a role made NOLOGIN, authenticate no
// more.
func TestTypedTokens(t *testing.T) {
	base, eng, root := adversarialServer(t)
	mustSQL(t, root, "create sequence s; grant usage on sequence s to app, other")
	other := sqlSession(t, eng, "other", nil)
	otherToken := mustSQL(t, other, "select seqd_create_token('o')").S
	otherID := mustSQL(t, other, "select id from seqd_tokens").S
	rootToken := mustSQL(t, root, "select seqd_create_token('r')").S
	a := call(t, "POST", base+"/v1/tokens", `{"label": "mine"}`, "app", "")
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %v", a.status, a.body)
	}
	appToken, appID := a.body["token"].(string), a.body["id"].(string)
	l := call(t, "GET", base+"/v1/tokens", "", "app", "")
	list, _ := l.body["tokens"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != appID {
		t.Errorf("app's list: %v", l.body)
	}
	app := sqlSession(t, eng, "app", nil)
	if n := mustSQL(t, app, "select count(*) from seqd_tokens").I; n != 1 {
		t.Errorf("app's seqd_tokens: %d rows", n)
	}
	if l := call(t, "GET", base+"/v1/tokens?id="+otherID, "", "app", ""); strings.Contains(fmt.Sprint(l.body), otherID) {
		t.Errorf("app sees other's token: %v", l.body)
	}
	v := mustSQL(t, app, "select seqd_revoke_token('"+otherID+"')")
	a = call(t, "DELETE", base+"/v1/tokens/"+otherID, "", "app", "")
	if v.Truth() || a.status == http.StatusNoContent {
		t.Errorf("app revoking other's token: API %d %v, SQL %v", a.status, a.body, v)
	}
	if a := bearer(t, "POST", seqURL(base, "public", "s")+"/nextval", "", otherToken); a.status != http.StatusOK {
		t.Errorf("other's token after app's attempt: %d %v", a.status, a.body)
	}
	// Revoked: refused at once, on a pooled session too.
	if a := bearer(t, "POST", seqURL(base, "public", "s")+"/nextval", "", appToken); a.status != http.StatusOK {
		t.Fatalf("app's token: %d %v", a.status, a.body)
	}
	mustSQL(t, app, "select seqd_revoke_token('"+appID+"')")
	bearer(t, "POST", seqURL(base, "public", "s")+"/nextval", "", appToken).problem(t, "a revoked token", http.StatusUnauthorized, "28P01")
	// NOLOGIN: the role's token stops, as its logins do.
	if a := bearer(t, "POST", seqURL(base, "public", "s")+"/nextval", "", otherToken); a.status != http.StatusOK {
		t.Fatalf("other's token: %d %v", a.status, a.body)
	}
	mustSQL(t, root, "alter role other nologin")
	a = bearer(t, "POST", seqURL(base, "public", "s")+"/nextval", "", otherToken)
	if a.status != http.StatusUnauthorized {
		t.Errorf("a NOLOGIN role's token: %d %v, want 401", a.status, a.body)
	}
	if a := call(t, "POST", seqURL(base, "public", "s")+"/nextval", "", "other", ""); a.status != http.StatusUnauthorized {
		t.Errorf("a NOLOGIN role, trusted: %d %v, want 401", a.status, a.body)
	}
	// A superuser's token: revoking it by ID from app does nothing.
	_ = rootToken
}

// TestTypedRoleSettings: a role's default_transaction_read_only,
// statement_timeout and lock_timeout (ALTER ROLE ... SET) apply to its
// API calls as to its SQL sessions, a session pooled before the change
// included: a new connection has them.
func TestTypedRoleSettings(t *testing.T) {
	reg := frontend.NewRegistry(100, 3)
	eng := newEngine(t)
	base := serveOn(t, eng, reg)
	root := sqlSession(t, eng, "seqd", reg)
	mustSQL(t, root, "create sequence s; grant usage, update, select on sequence s to app")
	u := seqURL(base, "public", "s")
	if a := call(t, "POST", u+"/nextval", "", "app", ""); a.status != http.StatusOK { // pooled from here
		t.Fatalf("nextval: %d %v", a.status, a.body)
	}
	mustSQL(t, root, "alter role app set default_transaction_read_only = on")
	app := sqlSession(t, eng, "app", nil)
	_, st := trySQL(t, app, "select nextval('s')")
	same(t, "nextval, read-only by default", call(t, "POST", u+"/nextval", "", "app", ""), st, "25006")
	_, st = trySQL(t, app, "select * from seqd_reserve('s', 2)")
	same(t, "reserve, read-only by default", call(t, "POST", u+"/reserve", `{"count": "2"}`, "app", ""), st, "25006")
	_, st = trySQL(t, app, "select pg_sequence_last_value('s'::regclass)")
	same(t, "describe, read-only by default", call(t, "GET", u, "", "app", ""), st, "")
	mustSQL(t, root, "alter role app reset default_transaction_read_only")

	// statement_timeout: a call waiting for a lock a SQL block holds.
	mustSQL(t, root, "alter role app set statement_timeout = '300ms'")
	holder := sqlSession(t, eng, "seqd", reg)
	mustSQL(t, holder, "begin; alter sequence s restart with 100")
	app = sqlSession(t, eng, "app", nil)
	_, st = trySQL(t, app, "select nextval('s')")
	began := time.Now()
	a := call(t, "POST", u+"/nextval", "", "app", "")
	same(t, "nextval past statement_timeout", a, st, "57014")
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the API call took %v", d)
	}
	if a.body["detail"] != nil && !strings.Contains(fmt.Sprint(a.body["detail"]), "statement timeout") {
		t.Errorf("message: %v", a.body["detail"])
	}
	mustSQL(t, root, "alter role app reset statement_timeout; alter role app set lock_timeout = '200ms'")
	app = sqlSession(t, eng, "app", nil)
	_, st = trySQL(t, app, "select nextval('s')")
	same(t, "nextval past lock_timeout", call(t, "POST", u+"/nextval", "", "app", ""), st, "55P03")
	mustSQL(t, root, "alter role app reset lock_timeout")

	// pg_stat_activity while an API call waits: its role, its text,
	// waiting on a lock; an ordinary role sees no other role's text.
	done := make(chan answer, 1)
	go func() { done <- call(t, "POST", u+"/nextval", "", "app", "") }()
	var row string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		v, st := trySQL(t, root, "select usename || '|' || state || '|' || coalesce(wait_event_type, '') || '|' || query from pg_stat_activity where usename = 'app' and state = 'active'")
		if st == "" && v.Kind != eval.KNull {
			row = v.S
			if row == `app|active|Lock|select nextval('public.s')` {
				break // active, and then waiting on the lock: polled until it waits
			}
		}
	}
	if row != `app|active|Lock|select nextval('public.s')` {
		t.Errorf("pg_stat_activity of the waiting call: %q", row)
	}
	otherSess := sqlSession(t, eng, "other", nil)
	if v, _ := trySQL(t, otherSess, "select query from pg_stat_activity where usename = 'app' and state = 'active'"); v.Kind != eval.KNull && v.S != "<insufficient privilege>" {
		t.Errorf("another role sees the call's text: %q", v.S)
	}
	mustSQL(t, holder, "commit")
	if a := <-done; firstValue(a) != 100 {
		t.Errorf("the waiting call once the lock is free: %d %v", a.status, a.body)
	}
}

// newEngine is a fresh engine with the roles app and other.
func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng := testenv.MemEngine(t)
	for _, r := range []string{"app", "other"} {
		if err := eng.PutRole(context.Background(), engine.Role{Name: r, Login: true}, true); err != nil {
			t.Fatal(err)
		}
	}
	return eng
}

// serveOn serves the API over eng, its sessions in reg.
func serveOn(t *testing.T, eng *engine.Engine, reg *frontend.Registry) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(Config{Config: apicore.Config{Engine: eng, Auth: AuthTrust, MaxBulkRows: 1000, Registry: reg}})
	go s.Serve(l)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return "http://" + l.Addr().String()
}
