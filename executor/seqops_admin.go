// The typed operations that are not a sequence function: transaction
// control, CREATE, ALTER and DROP SEQUENCE, and the APIs' bearer tokens.
// Each runs the code of the statement it stands for (txn.go, the
// planner's DDL, tokens.go) as one statement (typedStatement).

package executor

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/eval"
)

// Begin is BEGIN (readOnly, when given, READ ONLY or READ WRITE), with
// its notices (there is already a transaction in progress).
func (s *Session) Begin(ctx context.Context, readOnly *bool) ([]Notice, error) {
	return s.txStatement(ctx, "BEGIN", false, func(context.Context) (*Result, error) { return s.begin("BEGIN", readOnly) })
}

// Commit is COMMIT: a failed block rolls back.
func (s *Session) Commit(ctx context.Context) ([]Notice, error) {
	return s.txStatement(ctx, "COMMIT", true, func(ctx context.Context) (*Result, error) { return s.end(ctx, "COMMIT", true) })
}

// Rollback is ROLLBACK.
func (s *Session) Rollback(ctx context.Context) ([]Notice, error) {
	return s.txStatement(ctx, "ROLLBACK", true, func(ctx context.Context) (*Result, error) { return s.end(ctx, "ROLLBACK", false) })
}

// Savepoint is SAVEPOINT name.
func (s *Session) Savepoint(ctx context.Context, name string) error {
	_, err := s.txStatement(ctx, "SAVEPOINT", false, func(context.Context) (*Result, error) { return s.savepoint(name) })
	return err
}

// ReleaseSavepoint is RELEASE SAVEPOINT name.
func (s *Session) ReleaseSavepoint(ctx context.Context, name string) error {
	_, err := s.txStatement(ctx, "RELEASE SAVEPOINT", false, func(context.Context) (*Result, error) { return s.release(name) })
	return err
}

// RollbackToSavepoint is ROLLBACK TO SAVEPOINT name.
func (s *Session) RollbackToSavepoint(ctx context.Context, name string) error {
	_, err := s.txStatement(ctx, "ROLLBACK TO SAVEPOINT", true, func(context.Context) (*Result, error) { return s.rollbackTo(name) })
	return err
}

// txStatement runs a transaction control statement: its notices as
// client_min_messages lets them through.
func (s *Session) txStatement(ctx context.Context, text string, txEnd bool, f func(context.Context) (*Result, error)) ([]Notice, error) {
	var notices []Notice
	err := s.typedStatement(ctx, text, txEnd, func(ctx context.Context) error {
		r, err := f(ctx)
		if err == nil && len(r.Notices) > 0 {
			notices = s.visibleNotices(r.Notices)
		}
		return err
	})
	return notices, err
}

// SequenceOptions are CREATE and ALTER SEQUENCE's options, as PostgreSQL
// 15's: nil (or "") leaves one out.
type SequenceOptions struct {
	// Type is smallint, integer or bigint.
	Type                                string
	Increment, Min, Max, Start, Restart *int64 // Restart: ALTER's RESTART WITH
	Cache                               *int64
	Cycle                               *bool
}

// nodes are the options as the grammar gives them, in the order
// PostgreSQL's documentation writes them (the order of their checks).
func (o SequenceOptions) nodes() []*pg.Node {
	var out []*pg.Node
	def := func(name string, arg *pg.Node) { out = append(out, pg.MakeSimpleDefElemNode(name, arg, -1)) }
	if o.Type != "" {
		t := map[string]string{"smallint": "int2", "integer": "int4", "bigint": "int8"}[o.Type]
		if t == "" {
			t = o.Type // not a sequence's type: spec refuses it
		}
		def("as", &pg.Node{Node: &pg.Node_TypeName{TypeName: &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode("pg_catalog"), pg.MakeStrNode(t)},
			Typemod: -1, Location: -1}}})
	}
	for _, v := range [...]struct {
		name string
		v    *int64
	}{{"increment", o.Increment}, {"minvalue", o.Min}, {"maxvalue", o.Max}, {"start", o.Start}, {"restart", o.Restart}, {"cache", o.Cache}} {
		if v.v != nil {
			// A Float node holds any 64-bit integer (the grammar's for
			// one past 32 bits), read as the grammar's Integer is.
			def(v.name, &pg.Node{Node: &pg.Node_Float{Float: &pg.Float{Fval: strconv.FormatInt(*v.v, 10)}}})
		}
	}
	if o.Cycle != nil {
		def("cycle", &pg.Node{Node: &pg.Node_Boolean{Boolean: &pg.Boolean{Boolval: *o.Cycle}}})
	}
	return out
}

// rangeVar is the sequence schema.rel as the grammar names a relation.
func rangeVar(schema, rel string) *pg.RangeVar {
	return &pg.RangeVar{Schemaname: schema, Relname: rel, Inh: true, Relpersistence: "p", Location: -1}
}

// CreateSequence is CREATE SEQUENCE "schema"."rel" with the options.
func (s *Session) CreateSequence(ctx context.Context, schema, rel string, o SequenceOptions) error {
	return s.ddlStatement(ctx, "CREATE SEQUENCE", func(c *planner) (*Prepared, error) {
		return c.createSequence(&pg.CreateSeqStmt{Sequence: rangeVar(schema, rel), Options: o.nodes()})
	})
}

// AlterSequence is ALTER SEQUENCE "schema"."rel" with the options.
func (s *Session) AlterSequence(ctx context.Context, schema, rel string, o SequenceOptions) error {
	return s.ddlStatement(ctx, "ALTER SEQUENCE", func(c *planner) (*Prepared, error) {
		return c.alterSequence(&pg.AlterSeqStmt{Sequence: rangeVar(schema, rel), Options: o.nodes()})
	})
}

// DropSequence is DROP SEQUENCE "schema"."rel".
func (s *Session) DropSequence(ctx context.Context, schema, rel string) error {
	return s.ddlStatement(ctx, "DROP SEQUENCE", func(c *planner) (*Prepared, error) {
		name := pg.MakeListNode([]*pg.Node{pg.MakeStrNode(schema), pg.MakeStrNode(rel)})
		return c.drop(&pg.DropStmt{Objects: []*pg.Node{name}, RemoveType: pg.ObjectType_OBJECT_SEQUENCE, Behavior: pg.DropBehavior_DROP_RESTRICT})
	})
}

// ddlStatement compiles a DDL statement from its tree, as Prepare
// compiles a parsed one (its failure the statement's, before it runs),
// and runs it.
func (s *Session) ddlStatement(ctx context.Context, text string, compile func(c *planner) (*Prepared, error)) error {
	if err := s.typedBegin(false); err != nil {
		return err
	}
	p, err := compile(newPlanner(s, ""))
	if err != nil {
		s.Abort()
		return err
	}
	return s.typedRun(ctx, text, func(ctx context.Context) error {
		_, err := p.run(ctx, nil)
		return err
	})
}

// Token is a bearer token as seqd_tokens lists it: never its secret.
type Token struct {
	Role, ID string
	// Label is "" for none (seqd_tokens' NULL).
	Label            string
	Created, Expires time.Time // UTC, to the microsecond
}

// CreateToken is seqd_create_token(label, days): a token of the
// session's role, valid for days, shown this once.
func (s *Session) CreateToken(ctx context.Context, label string, days int64) (string, error) {
	var token string
	err := s.typedStatement(ctx, "select seqd_create_token($1, $2)", false, func(ctx context.Context) (err error) {
		s.tx.queried = true
		token, err = s.createToken(ctx, label, days)
		return err
	})
	return token, err
}

// Tokens is SELECT ... FROM seqd_tokens [WHERE id = id] ORDER BY
// created, id: the tokens the session's role may see (its own; every
// role's for a superuser), or the one of ID id ("": every one).
func (s *Session) Tokens(ctx context.Context, id string) ([]Token, error) {
	var out []Token
	err := s.typedStatement(ctx, "select * from seqd_tokens", false, func(context.Context) error {
		s.tx.queried = true
		for _, r := range s.tokenRows() {
			t := Token{Role: r[0].S, ID: r[1].S, Created: eval.TimeOf(r[3]), Expires: eval.TimeOf(r[4])}
			if id != "" && t.ID != id {
				continue
			}
			if !r[2].IsNull() {
				t.Label = r[2].S
			}
			out = append(out, t)
		}
		slices.SortStableFunc(out, func(a, b Token) int {
			if c := a.Created.Compare(b.Created); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		return nil
	})
	return out, err
}

// RevokeToken is seqd_revoke_token(id): true when the role (a superuser:
// any role) held a token of that ID.
func (s *Session) RevokeToken(ctx context.Context, id string) (bool, error) {
	var revoked bool
	err := s.typedStatement(ctx, "select seqd_revoke_token($1)", false, func(ctx context.Context) (err error) {
		s.tx.queried = true
		revoked, err = s.revokeToken(ctx, id)
		return err
	})
	return revoked, err
}
