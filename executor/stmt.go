package executor

import (
	"context"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// planner compiles a session's statements: the evaluator's Compiler for
// expressions and queries, and the session, which the statements that
// are not queries (DDL, session commands) change.
type planner struct {
	*eval.Compiler
	s *Session
	// clauses are the statement's sequence clauses (pgsql.Statement's).
	clauses []pgsql.SeqClause
}

func newPlanner(s *Session, query string) *planner {
	return &planner{Compiler: &eval.Compiler{Session: (*evalView)(s), SQL: query}, s: s}
}

// statement compiles one statement.
func (c *planner) statement(n *pg.Node) (*Prepared, error) {
	s := c.s
	switch {
	case n.GetSelectStmt() != nil:
		q, err := c.Select(n.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		visible := q.Columns[:len(q.Columns)]
		if q.Single() {
			// The hot path (SELECT nextval('s')): the result and its row
			// in one allocation, reused once released.
			var spare *oneRow
			return &Prepared{Columns: visible, run: func(ctx context.Context, params []eval.Datum) (*Result, error) {
				r := spare
				if r != nil {
					spare = nil
				} else {
					r = &oneRow{home: &spare}
				}
				rows, err := q.Open(ctx, params, &r.row)
				if err != nil {
					return nil, err
				}
				r.res = Result{Columns: visible, Rows: rows, Tag: "SELECT", row: r}
				return &r.res, nil
			}}, nil
		}
		return &Prepared{Columns: visible, run: func(ctx context.Context, params []eval.Datum) (*Result, error) {
			// Its own budget, which a front end keeps counted while it
			// keeps the result with rows left (a suspended portal).
			mem := eval.NewMemory(s.cfg.MaxStatementMemory, &s.kept)
			rows, err := q.Open(eval.WithMemory(ctx, mem), params, nil)
			if err != nil {
				return nil, err
			}
			return &Result{Columns: visible, Rows: rows, Tag: "SELECT", Memory: mem}, nil
		}}, nil
	case n.GetCreateSeqStmt() != nil:
		return c.createSequence(n.GetCreateSeqStmt())
	case n.GetAlterSeqStmt() != nil:
		return c.alterSequence(n.GetAlterSeqStmt())
	case n.GetDropStmt() != nil:
		return c.drop(n.GetDropStmt())
	case n.GetCreateSchemaStmt() != nil:
		return c.createSchema(n.GetCreateSchemaStmt())
	case n.GetRenameStmt() != nil:
		return c.rename(n.GetRenameStmt())
	case n.GetAlterOwnerStmt() != nil:
		return c.alterOwner(n.GetAlterOwnerStmt())
	case n.GetAlterObjectSchemaStmt() != nil:
		return c.setSchema(n.GetAlterObjectSchemaStmt())
	case n.GetAlterTableStmt() != nil:
		return c.alterTable(n.GetAlterTableStmt())
	case n.GetCommentStmt() != nil:
		return c.commentOn(n.GetCommentStmt())
	case n.GetCreateRoleStmt() != nil:
		return c.createRole(n.GetCreateRoleStmt())
	case n.GetAlterRoleStmt() != nil:
		return c.alterRole(n.GetAlterRoleStmt())
	case n.GetDropRoleStmt() != nil:
		return c.dropRole(n.GetDropRoleStmt())
	case n.GetGrantStmt() != nil:
		return c.grant(n.GetGrantStmt())
	case n.GetAlterRoleSetStmt() != nil:
		return c.alterRoleSet(n.GetAlterRoleSetStmt())
	case n.GetGrantRoleStmt() != nil:
		return c.grantRole(n.GetGrantRoleStmt())
	case n.GetTransactionStmt() != nil:
		return c.transaction(n.GetTransactionStmt())
	case n.GetVariableSetStmt() != nil:
		return c.set(n.GetVariableSetStmt())
	case n.GetVariableShowStmt() != nil:
		return c.show(n.GetVariableShowStmt().Name)
	case n.GetDiscardStmt() != nil:
		return c.discard(n.GetDiscardStmt())
	case n.GetDeallocateStmt() != nil:
		d := n.GetDeallocateStmt()
		return command(func(context.Context) (*Result, error) {
			if s.deallocate(d.Name, d.Isall) {
				return commandResult("DEALLOCATE"), nil
			}
			tag := "DEALLOCATE"
			if d.Isall {
				tag = "DEALLOCATE ALL" // PostgreSQL's
			}
			return &Result{Tag: tag, Deallocate: d.Name, DeallocateAll: d.Isall}, nil
		}), nil
	case n.GetPrepareStmt() != nil:
		return c.prepare(n.GetPrepareStmt())
	case n.GetExecuteStmt() != nil:
		return c.execute(n.GetExecuteStmt())
	case n.GetClosePortalStmt() != nil:
		name := n.GetClosePortalStmt().Portalname
		return command(func(context.Context) (*Result, error) { return s.closeCursor(name) }), nil
	case n.GetDeclareCursorStmt() != nil:
		return c.declare(n.GetDeclareCursorStmt())
	case n.GetFetchStmt() != nil:
		return c.fetch(n.GetFetchStmt())
	case n.GetUnlistenStmt() != nil:
		return command(func(context.Context) (*Result, error) { return commandResult("UNLISTEN"), nil }), nil
	}
	return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support %s: it serves sequences only", statementName(n))
}

func command(f func(ctx context.Context) (*Result, error)) *Prepared {
	return &Prepared{run: func(ctx context.Context, _ []eval.Datum) (*Result, error) { return f(ctx) }}
}

// statementName names a statement kind in messages: CREATE TABLE, not
// CreateStmt.
func statementName(n *pg.Node) string {
	name := eval.NodeName(n)
	if s, ok := statementNames[name]; ok {
		return s
	}
	name = strings.TrimSuffix(name, "Stmt")
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

var statementNames = map[string]string{
	"CreateStmt": "CREATE TABLE", "InsertStmt": "INSERT", "UpdateStmt": "UPDATE", "DeleteStmt": "DELETE", "MergeStmt": "MERGE",
	"IndexStmt": "CREATE INDEX", "ViewStmt": "CREATE VIEW", "CreateSchemaStmt": "CREATE SCHEMA", "CreateFunctionStmt": "CREATE FUNCTION",
	"AlterTableStmt": "ALTER TABLE", "ListenStmt": "LISTEN", "NotifyStmt": "NOTIFY", "PrepareStmt": "PREPARE", "ExecuteStmt": "EXECUTE",
	"CopyStmt": "COPY", "ExplainStmt": "EXPLAIN", "DoStmt": "DO", "TruncateStmt": "TRUNCATE", "GrantStmt": "GRANT",
	"CreateRoleStmt": "CREATE ROLE", "VacuumStmt": "VACUUM", "LockStmt": "LOCK", "CreatedbStmt": "CREATE DATABASE",
	"CommentStmt": "COMMENT", "RenameStmt": "ALTER ... RENAME", "CheckPointStmt": "CHECKPOINT", "CreateTableAsStmt": "CREATE TABLE AS",
}

// qnameOf is a RangeVar's name.
func qnameOf(rv *pg.RangeVar) pgsql.QName {
	return pgsql.QName{Catalog: rv.Catalogname, Schema: rv.Schemaname, Rel: rv.Relname}
}

// alterTarget begins every ALTER of an existing sequence: the read-only
// check, the lookup, then the ownership check. A missing sequence under
// IF EXISTS gives the result to answer instead (skip), with PostgreSQL's
// notice.
func (s *Session) alterTarget(tag string, q pgsql.QName, missingOK bool) (n engine.Name, skip *Result, err error) {
	if err := s.checkWritable(tag); err != nil {
		return n, nil, err
	}
	n, err = s.lookupSequence(q)
	if missingOK && missing(err) {
		return n, commandResult(tag, notice(sqlerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", q.Rel)), nil
	}
	if err != nil {
		return n, nil, err
	}
	return n, nil, s.checkOwner(n)
}
