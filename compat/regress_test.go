package compat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/pgsql"
)

// regressExclusions name the statements of sequence.sql seqd does not run,
// with the reason; a unit (one statement, or a whole transaction block)
// containing any of them runs on PostgreSQL only, and so does every later
// statement naming a relation such a unit created.
var regressExclusions = []struct {
	re     *regexp.Regexp
	reason string
}{
	{regexp.MustCompile(`(?i)^(create|drop) (temp )?table|^insert|serial`), "tables: seqd holds none"},
	{regexp.MustCompile(`(?i)owned by (?:pg_class|sequence_test_table)`), "OWNED BY a table column: seqd has no tables"},
}

// createdNames are the relation names a statement creates or renames
// into, or ties to a table (a column default's nextval('s') makes the
// table depend on s).
var createdNames = regexp.MustCompile(`(?i)(?:create (?:temp |temporary |unlogged )?(?:sequence|table)(?: if not exists)?|rename to)\s+(\w+)|nextval\('(\w+)'`)

// TestRegressSequence runs PostgreSQL 15's own regression test for
// sequences (src/test/regress/sql/sequence.sql from Debian's source
// package) on PostgreSQL and on seqd: every statement that needs neither
// tables (nor what later issues bring) must give identical results,
// errors included: the privilege block (SET LOCAL SESSION AUTHORIZATION
// with GRANT and REVOKE under nextval, currval, lastval and setval) too.
func TestRegressSequence(t *testing.T) {
	file := need(t, "SEQD_TEST_PG_REGRESS")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, _, cfg, host, port := connectBoth(t, "seqd_regress", "drop role if exists regress_seq_user")
	pg, pgNotices := connectNoticed(t, cfg)
	sdCfg := cfg.Copy()
	sdCfg.Host, sdCfg.Port, sdCfg.TLSConfig, sdCfg.Fallbacks = host, port, nil, nil
	sd, sdNotices := connectNoticed(t, sdCfg)
	// PostgreSQL 15's test_setup.sql, which its regression tests run
	// after: public writable by every role, as before 15 (the privilege
	// block's roles create their sequences there).
	for _, c := range []*pgx.Conn{pg, sd} {
		if _, err := c.Exec(ctx, "GRANT ALL ON SCHEMA public TO public"); err != nil {
			t.Fatal(err)
		}
	}
	tainted := map[string]bool{}
	compared, skipped := 0, map[string]int{}
	for _, unit := range regressUnits(t, string(text)) {
		reason := ""
		for _, st := range unit {
			for _, ex := range regressExclusions {
				if ex.re.MatchString(st) {
					reason = ex.reason
				}
			}
			for name := range tainted {
				// A table's name also covers its serial columns' sequences.
				if regexp.MustCompile(`(?i)\b` + name + `(_\w+)?\b`).MatchString(st) {
					reason = "names a relation made by a statement seqd does not run"
				}
			}
		}
		for _, st := range unit {
			want := outcomeOf(ctx, pg, st) + pgNotices.take()
			if reason != "" {
				skipped[reason]++
				for _, m := range createdNames.FindAllStringSubmatch(st, -1) {
					tainted[strings.ToLower(m[1]+m[2])] = true
				}
				continue
			}
			compared++
			if got := outcomeOf(ctx, sd, st) + sdNotices.take(); got != want {
				t.Errorf("%s\n postgres: %s\n     seqd: %s", st, want, got)
			}
		}
	}
	t.Logf("%d statements compared; not run on seqd: %v", compared, skipped)
	// Pinned: a statement newly excluded (or a unit newly tainted) must
	// fail here rather than quietly leave the comparison.
	const wantCompared = 212
	if compared != wantCompared {
		t.Errorf("%d statements compared, want exactly %d", compared, wantCompared)
	}
}

// TestLogCntOracle: log_cnt, as SELECT * FROM a sequence shows it, is
// PostgreSQL's after the same statements in one session: fresh, after
// nextval at CACHE 1, 10 and 20, setval, ALTER (those that set it to 0
// and those that keep it), descending, at a limit with and without
// CYCLE, unlogged and temporary. (last_value is compared only where
// the CACHE is 1: PostgreSQL's shows the end of its session's cache.)
func TestLogCntOracle(t *testing.T) {
	pg, sd, _, _, _ := connectBoth(t, "seqd_logcnt")
	ctx := context.Background()
	// No checkpoint for minutes: one would make PostgreSQL log again.
	if _, err := pg.Exec(ctx, "checkpoint"); err != nil {
		t.Fatal(err)
	}
	nexts := func(s string, n int) string {
		return fmt.Sprintf("select count(nextval('%s')) from generate_series(1, %d)", s, n)
	}
	show := func(s string) string { return "select log_cnt, is_called from " + s }
	steps := []string{
		"create sequence a", show("a"), "select * from a",
		nexts("a", 1), "select * from a", nexts("a", 1), "select * from a",
		nexts("a", 31), "select * from a", nexts("a", 1), "select * from a",
		"create sequence b cache 10", nexts("b", 1), show("b"), nexts("b", 9), show("b"),
		nexts("b", 1), show("b"), nexts("b", 10), show("b"), nexts("b", 10), show("b"), nexts("b", 10), show("b"),
		"create sequence c cache 20", nexts("c", 1), show("c"), nexts("c", 20), show("c"), nexts("c", 20), show("c"),
		"select setval('a', 100, true)", "select * from a", nexts("a", 1), "select * from a",
		"select setval('a', 100, false)", "select * from a", nexts("a", 1), "select * from a", nexts("a", 1), "select * from a",
		"alter sequence a restart", "select * from a", nexts("a", 2), "select * from a",
		"alter sequence a increment 2", "select * from a", nexts("a", 2), "select * from a",
		"alter sequence a start 5", "select * from a", nexts("a", 1), "select * from a",
		"alter sequence a cache 3", show("a"), nexts("a", 1), show("a"), nexts("a", 3), show("a"),
		"alter sequence a owned by none", show("a"), "alter sequence a as integer", show("a"),
		"create sequence d increment -3", nexts("d", 2), "select * from d",
		"create sequence e maxvalue 5", nexts("e", 1), "select * from e", nexts("e", 1), "select * from e",
		"create sequence f maxvalue 5 cycle", nexts("f", 5), "select * from f", nexts("f", 1), "select * from f",
		"create sequence g maxvalue 40 cache 10 cycle", nexts("g", 1), show("g"), nexts("g", 10), show("g"), nexts("g", 30), show("g"),
		"create unlogged sequence u", nexts("u", 2), "select * from u", "alter sequence u set logged", "select * from u", nexts("u", 1), "select * from u",
		"create temp sequence t", nexts("t", 2), "select * from t",
		"begin", "alter sequence a increment 1", show("a"), nexts("a", 2), "commit", show("a"),
	}
	for _, st := range steps {
		want := outcomeOf(ctx, pg, st)
		if got := outcomeOf(ctx, sd, st); got != want {
			t.Errorf("%s\n postgres: %s\n     seqd: %s", st, want, got)
		}
	}
}

// TestRelaclOracle: a sequence's ACL as PostgreSQL shows it: NULL until
// a GRANT or REVOKE is made on it, then its items even where they are
// back to the defaults (a GRANT then its REVOKE; the owner's REVOKE ALL
// then GRANT ALL), in relacl, has_sequence_privilege and
// information_schema.
func TestRelaclOracle(t *testing.T) {
	pg, sd, _, _, _ := connectBoth(t, "seqd_relacl", "drop role if exists seqd_acl_r")
	ctx := context.Background()
	t.Cleanup(func() { pg.Exec(ctx, "drop role if exists seqd_acl_r") })
	shown := func(s string) []string {
		return []string{
			"select relacl from pg_class where relname = '" + s + "'",
			"select array_to_string(relacl, ',') from pg_class where relname = '" + s + "'",
			"select has_sequence_privilege('seqd_acl_r', '" + s + "', 'select'), has_sequence_privilege('" + s + "', 'usage')",
			"select grantee, privilege_type from information_schema.usage_privileges where object_name = '" + s + "' order by 1",
			"select grantee, privilege_type from information_schema.role_usage_grants where object_name = '" + s + "' order by 1",
		}
	}
	steps := []string{"create role seqd_acl_r", "create sequence s", "create sequence o"}
	steps = append(steps, shown("s")...)
	steps = append(steps, "grant select on s to seqd_acl_r")
	steps = append(steps, shown("s")...)
	steps = append(steps, "revoke select on s from seqd_acl_r")
	steps = append(steps, shown("s")...)
	steps = append(steps, "revoke all on o from current_user")
	steps = append(steps, shown("o")...)
	steps = append(steps, "grant all on o to current_user")
	steps = append(steps, shown("o")...)
	steps = append(steps, "begin", "grant usage on o to seqd_acl_r", "revoke usage on o from seqd_acl_r", "commit")
	steps = append(steps, shown("o")...)
	steps = append(steps, "drop sequence s, o", "drop role seqd_acl_r")
	for _, st := range steps {
		want := outcomeOf(ctx, pg, st)
		if got := outcomeOf(ctx, sd, st); got != want {
			t.Errorf("%s\n postgres: %s\n     seqd: %s", st, want, got)
		}
	}
}

// TestNoticesIfExists: what an IF EXISTS skipped is named in
// PostgreSQL's words, a missing schema before a missing sequence.
func TestNoticesIfExists(t *testing.T) {
	_, _, cfg, host, port := connectBoth(t, "seqd_notices")
	pg, pgNotices := connectNoticed(t, cfg)
	sdCfg := cfg.Copy()
	sdCfg.Host, sdCfg.Port, sdCfg.TLSConfig, sdCfg.Fallbacks = host, port, nil, nil
	sd, sdNotices := connectNoticed(t, sdCfg)
	ctx := context.Background()
	for _, st := range []string{
		"create sequence n_a",
		"drop sequence if exists no_such_schema.n_x",
		"drop sequence if exists public.n_x",
		"drop sequence if exists n_x, no_such_schema.n_y, n_a",
		"drop sequence if exists pg_temp.n_x",
		"alter sequence if exists no_such_schema.n_x restart",
		"alter sequence if exists n_x restart",
		"drop schema if exists no_such_schema",
	} {
		want := outcomeOf(ctx, pg, st) + pgNotices.take()
		if got := outcomeOf(ctx, sd, st) + sdNotices.take(); got != want {
			t.Errorf("%s\n postgres: %s\n     seqd: %s", st, want, got)
		}
	}
}

// noticeLog is what notices a connection received since it was last
// read.
type noticeLog struct {
	mu  sync.Mutex
	got []string
}

// take is the notices received since the last take, as " NOTICE <text>"
// each.
func (l *noticeLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := strings.Join(l.got, "")
	l.got = nil
	return out
}

// connectNoticed connects with cfg, keeping the notices the server sends
// (the regression test compares them too: PostgreSQL's say what an IF
// EXISTS skipped).
func connectNoticed(t *testing.T, cfg *pgx.ConnConfig) (*pgx.Conn, *noticeLog) {
	l := &noticeLog{}
	cfg = cfg.Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		l.mu.Lock()
		l.got = append(l.got, fmt.Sprintf(" %s %s %s", n.Severity, n.Code, n.Message))
		l.mu.Unlock()
	}
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c, l
}

// regressUnits splits the file into statements (psql's backslash commands
// are left out: psql's output is compared in TestPsqlCatalog) and groups
// transaction blocks into one unit.
func regressUnits(t *testing.T, text string) [][]string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), `\`) {
			continue
		}
		// Comments go (none of this file's is inside a string literal),
		// so that a statement's text starts with its first word.
		if i := strings.Index(l, "--"); i >= 0 && strings.Count(l[:i], "'")%2 == 0 {
			l = l[:i]
		}
		lines = append(lines, l)
	}
	stmts, err := pgsql.Parse(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	var units [][]string
	var block []string
	for i := range stmts {
		st := strings.Join(strings.Fields(stmts[i].Text()), " ")
		lower := strings.ToLower(st)
		switch {
		case strings.HasPrefix(lower, "begin") || strings.HasPrefix(lower, "start transaction"):
			block = []string{st}
		case block != nil:
			block = append(block, st)
			if strings.HasPrefix(lower, "commit") || strings.HasPrefix(lower, "rollback") && !strings.HasPrefix(lower, "rollback to") {
				units = append(units, block)
				block = nil
			}
		default:
			units = append(units, []string{st})
		}
	}
	return units
}

// outcomeOf runs one statement in the simple protocol and describes what
// came back: columns, rows, or the error's SQLSTATE and message.
func outcomeOf(ctx context.Context, c *pgx.Conn, q string) string {
	rr := c.PgConn().Exec(ctx, q)
	var b strings.Builder
	for rr.NextResult() {
		r := rr.ResultReader()
		for _, f := range r.FieldDescriptions() {
			fmt.Fprintf(&b, "%s:%d ", f.Name, f.DataTypeOID)
		}
		for r.NextRow() {
			b.WriteString("|")
			for _, v := range r.Values() {
				if v == nil {
					b.WriteString(" NULL")
				} else {
					fmt.Fprintf(&b, " %s", v)
				}
			}
		}
		tag, err := r.Close()
		if err == nil {
			fmt.Fprintf(&b, " %s", tag)
		}
	}
	err := rr.Close()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("ERROR %s %s", pe.Code, pe.Message)
	}
	if err != nil {
		return "ERROR " + err.Error()
	}
	return b.String()
}
