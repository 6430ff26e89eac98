// CREATE and DROP SCHEMA.

package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/sqlerr"
)

func (c *planner) createSchema(st *pg.CreateSchemaStmt) (*Prepared, error) {
	if len(st.SchemaElts) > 0 {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support schema elements in CREATE SCHEMA")
	}
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("CREATE SCHEMA"); err != nil {
			return nil, err
		}
		// PostgreSQL's order: the owner named, CREATE on the database,
		// the right to act as the owner, the name.
		name, owner := st.Schemaname, s.cfg.User
		if st.Authrole != nil {
			owner = s.roleOf(st.Authrole)
			if err := s.checkRoleExists(owner); err != nil {
				return nil, err
			}
			if name == "" {
				name = owner
			}
		}
		if err := s.checkDatabase(engine.PrivCreate); err != nil {
			return nil, err
		}
		if err := s.checkMember(owner); err != nil {
			return nil, err
		}
		if strings.HasPrefix(name, "pg_") {
			return nil, sqlerr.Errorf(sqlerr.ReservedName, "unacceptable schema name \"%s\"", name).WithDetail("The prefix \"pg_\" is reserved for system schemas.")
		}
		created, err := s.ddlCat().CreateSchema(ctx, name, owner, st.IfNotExists)
		if err != nil {
			return nil, err
		}
		if !created {
			return commandResult("CREATE SCHEMA", notice(sqlerr.DuplicateSchema, "schema \"%s\" already exists, skipping", name)), nil
		}
		return commandResult("CREATE SCHEMA"), nil
	}), nil
}

func (c *planner) dropSchema(st *pg.DropStmt) (*Prepared, error) {
	var names []string
	for _, q := range objectNames(st.Objects) {
		names = append(names, q.Rel)
	}
	cascade := st.Behavior == pg.DropBehavior_DROP_CASCADE
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("DROP SCHEMA"); err != nil {
			return nil, err
		}
		r := commandResult("DROP SCHEMA")
		// What the statement drops, checked whole before anything goes;
		// sequences named as PostgreSQL names them (qualified unless
		// visible), decided before they are gone.
		var schemas []string
		var deps []engine.Name
		display := map[engine.Name]string{}
		created := map[engine.Name]uint64{}
		for _, name := range names {
			switch {
			case isBuiltinSchema(name):
				return nil, sqlerr.Errorf(sqlerr.DependentObjectsStillExist, "cannot drop schema %s because it is required by the database system", name)
			case !s.cat().SchemaExists(name) && st.MissingOk:
				r.Notices = append(r.Notices, notice(sqlerr.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", name))
				continue
			case !s.cat().SchemaExists(name):
				return nil, sqlerr.Errorf(sqlerr.UndefinedSchema, "schema \"%s\" does not exist", name)
			case !s.ownsSchema(name, s.cfg.User):
				return nil, sqlerr.Errorf(sqlerr.InsufficientPrivilege, "must be owner of schema %s", name)
			}
			schemas = append(schemas, name)
			for _, n := range s.cat().SchemaSequences(name) {
				deps = append(deps, n)
				display[n] = s.displayRel(n)
				if info, err := s.cat().Info(n); err == nil {
					created[n] = info.ID
				}
			}
		}
		// PostgreSQL lists dependents in the order they were created.
		byCreation := func(ns []engine.Name) {
			sort.SliceStable(ns, func(i, j int) bool { return created[ns[i]] < created[ns[j]] })
		}
		byCreation(deps)
		if len(deps) > 0 && !cascade {
			var lines []string
			for _, n := range deps {
				lines = append(lines, fmt.Sprintf("sequence %s depends on schema %s", display[n], n.Schema()))
			}
			return nil, sqlerr.Errorf(sqlerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", deps[0].Schema()).
				WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		var dropped []engine.Name
		for _, name := range schemas {
			d, err := s.ddlCat().DropSchema(ctx, name, cascade)
			dropped = append(dropped, d...)
			if errors.Is(err, engine.ErrDependents) {
				// A sequence created since the check.
				return nil, sqlerr.Errorf(sqlerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			if err != nil {
				return nil, err
			}
		}
		byCreation(dropped)
		for _, n := range dropped {
			id := created[n]
			s.atCommit(func() { s.oids().forget(nil, id) })
		}
		switch len(dropped) {
		case 0:
		case 1:
			r.Notices = append(r.Notices, notice(sqlerr.SuccessfulCompletion, "drop cascades to sequence %s", display[dropped[0]]))
		default:
			var lines []string
			for _, n := range dropped {
				lines = append(lines, "drop cascades to sequence "+display[n])
			}
			n := notice(sqlerr.SuccessfulCompletion, "drop cascades to %d other objects", len(dropped))
			n.Detail = strings.Join(lines, "\n")
			r.Notices = append(r.Notices, n)
		}
		return r, nil
	}), nil
}
