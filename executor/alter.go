package executor

import (
	"context"
	"errors"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// ALTER SEQUENCE|TABLE ... RENAME TO, SET SCHEMA, OWNER TO, SET LOGGED,
// and COMMENT ON SEQUENCE.

// rename is ALTER SEQUENCE s RENAME TO t (and ALTER TABLE s RENAME TO t,
// which PostgreSQL allows on a sequence).
func (c *planner) rename(st *pg.RenameStmt) (*Prepared, error) {
	tag, ok := alterTag(st.RenameType)
	if st.RenameType == pg.ObjectType_OBJECT_ROLE {
		return c.renameRole(st.Subname, st.Newname)
	}
	if !ok {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support ALTER %s ... RENAME: it serves sequences only", objectWord(st.RenameType))
	}
	q := qnameOf(st.Relation)
	s, newName := c.s, pgsql.TruncateIdentifier(st.Newname)
	return command(func(ctx context.Context) (*Result, error) {
		n, skip, err := s.alterTarget(tag, q, st.MissingOk)
		if skip != nil || err != nil {
			return skip, err
		}
		to, err := engine.NewName(n.Schema(), newName)
		if err != nil {
			return nil, err
		}
		if err := s.renameSequence(ctx, n, to); err != nil {
			if errors.Is(err, engine.ErrExists) {
				return nil, sqlerr.Errorf(sqlerr.DuplicateTable, "relation \"%s\" already exists", newName)
			}
			return nil, err
		}
		return commandResult(tag), nil
	}), nil
}

// renameSequence moves a sequence to a new name in its engine and keeps its
// OID pointing at it.
func (s *Session) renameSequence(ctx context.Context, from, to engine.Name) error {
	eng := s.ddlFor(from)
	if s.isTemp(from) != s.isTemp(to) {
		return sqlerr.Errorf(sqlerr.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	info, err := eng.Info(from)
	if err != nil {
		return err
	}
	if err := eng.Rename(ctx, from, to); err != nil {
		return err
	}
	s.atCommit(func() { s.oids().renamed(s.oidEng(s.baseFor(to)), info.ID, to) })
	return nil
}

// setSchema is ALTER SEQUENCE s SET SCHEMA x.
func (c *planner) setSchema(st *pg.AlterObjectSchemaStmt) (*Prepared, error) {
	tag, ok := alterTag(st.ObjectType)
	if !ok {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support ALTER %s ... SET SCHEMA: it serves sequences only", objectWord(st.ObjectType))
	}
	q := qnameOf(st.Relation)
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		n, skip, err := s.alterTarget(tag, q, st.MissingOk)
		if skip != nil || err != nil {
			return skip, err
		}
		schema := st.Newschema
		if t, ok := s.tempName(schema); ok {
			schema = t
		}
		if schema == "" || !s.schemaExists(schema) {
			return nil, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", st.Newschema)
		}
		if isBuiltinSchema(schema) {
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "cannot move objects into or out of system schemas")
		}
		if err := s.checkSchema(schema, engine.PrivCreate); err != nil {
			return nil, err
		}
		if schema == n.Schema() {
			return commandResult(tag), nil
		}
		to, err := engine.NewName(schema, n.Rel())
		if err != nil {
			return nil, err
		}
		if err := s.renameSequence(ctx, n, to); err != nil {
			if errors.Is(err, engine.ErrExists) {
				return nil, sqlerr.Errorf(sqlerr.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", n.Rel(), schema)
			}
			return nil, err
		}
		return commandResult(tag), nil
	}), nil
}

// alterTable is ALTER SEQUENCE|TABLE s OWNER TO r / SET LOGGED: the forms
// of ALTER TABLE PostgreSQL takes on a sequence.
func (c *planner) alterTable(st *pg.AlterTableStmt) (*Prepared, error) {
	tag, ok := alterTag(st.Objtype)
	if !ok {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support ALTER %s: it serves sequences only", objectWord(st.Objtype))
	}
	var logged *bool // SET LOGGED|UNLOGGED
	newOwner := ""   // OWNER TO
	for _, n := range st.Cmds {
		cmd := n.GetAlterTableCmd()
		switch cmd.Subtype {
		case pg.AlterTableType_AT_ChangeOwner:
			newOwner = c.s.roleOf(cmd.Newowner)
		case pg.AlterTableType_AT_SetLogged, pg.AlterTableType_AT_SetUnLogged:
			b := cmd.Subtype == pg.AlterTableType_AT_SetLogged
			logged = &b
		default:
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support this form of %s: it serves sequences only", tag)
		}
	}
	q := qnameOf(st.Relation)
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		n, skip, err := s.alterTarget(tag, q, st.MissingOk)
		if skip != nil || err != nil {
			return skip, err
		}
		if newOwner != "" {
			if err := s.changeOwner(ctx, n, newOwner); err != nil {
				return nil, err
			}
		}
		if logged != nil {
			if s.isTemp(n) {
				return nil, sqlerr.Errorf(sqlerr.InvalidTableDefinition, "cannot change logged status of table \"%s\" because it is temporary", n.Rel())
			}
			if err := s.ddlFor(n).SetLogged(ctx, n, *logged); err != nil {
				return nil, err
			}
		}
		return commandResult(tag), nil
	}), nil
}

// commentOn is COMMENT ON SEQUENCE s | SCHEMA n IS 'text' | NULL.
func (c *planner) commentOn(st *pg.CommentStmt) (*Prepared, error) {
	if st.Objtype == pg.ObjectType_OBJECT_SCHEMA {
		return c.commentOnSchema(st.Object.GetString_().GetSval(), st.Comment)
	}
	if st.Objtype != pg.ObjectType_OBJECT_SEQUENCE {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support COMMENT ON %s: it serves sequences only", objectWord(st.Objtype))
	}
	q := objectNames([]*pg.Node{st.Object})[0]
	s, text := c.s, st.Comment
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("COMMENT"); err != nil {
			return nil, err
		}
		n, err := s.lookupSequence(q)
		if err != nil {
			return nil, err
		}
		if err := s.checkOwner(n); err != nil {
			return nil, err
		}
		if err := s.ddlFor(n).SetComment(ctx, n, text); err != nil {
			return nil, err
		}
		return commandResult("COMMENT"), nil
	}), nil
}

// commentOnSchema is COMMENT ON SCHEMA name IS 'text' | NULL: its owner's
// (or a superuser's), as in PostgreSQL.
func (c *planner) commentOnSchema(name, text string) (*Prepared, error) {
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("COMMENT"); err != nil {
			return nil, err
		}
		a, err := s.userSchemaACL(name, "comment")
		if err != nil {
			return nil, err
		}
		if !s.isSuperuser(s.cfg.User) && !s.hasPrivsOfRole(s.schemaOwner(a)) {
			return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be owner of schema %s", name)
		}
		if err := s.ddlCat().SetSchemaComment(ctx, name, text); err != nil {
			return nil, err
		}
		return commandResult("COMMENT"), nil
	}), nil
}

// alterTag is the command tag of an ALTER that seqd takes on a sequence:
// ALTER SEQUENCE, or ALTER TABLE (PostgreSQL lets it name a sequence).
func alterTag(t pg.ObjectType) (string, bool) {
	switch t {
	case pg.ObjectType_OBJECT_SEQUENCE:
		return "ALTER SEQUENCE", true
	case pg.ObjectType_OBJECT_TABLE:
		return "ALTER TABLE", true
	}
	return "", false
}

// objectWord names an object type in messages: SEQUENCE, TABLE.
func objectWord(t pg.ObjectType) string {
	w := t.String()
	if len(w) > 7 && w[:7] == "OBJECT_" {
		w = w[7:]
	}
	return w
}
