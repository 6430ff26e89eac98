package executor

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sql"
)

// statement compiles one statement.
func (c *compiler) statement(n *pg.Node) (*Prepared, error) {
	s := c.s
	switch {
	case n.GetSelectStmt() != nil:
		q, err := c.selectStmt(n.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		visible := q.cols[:len(q.cols)]
		return &Prepared{Columns: visible, run: func(ctx context.Context, params []Datum) (*Result, error) {
			rows, err := q.open(ctx, params, nil)
			if err != nil {
				return nil, err
			}
			if r, ok := rows.(*singleRow); ok {
				// The hot path: the result lives in the row's allocation.
				r.res = Result{Columns: visible, Rows: r, Tag: "SELECT", row: r}
				return &r.res, nil
			}
			return &Result{Columns: visible, Rows: rows, Tag: "SELECT"}, nil
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
			return &Result{Tag: "DEALLOCATE", Deallocate: d.Name, DeallocateAll: d.Isall}, nil
		}), nil
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
	return nil, sql.Errorf(sql.FeatureNotSupported, "seqd does not support %s: it serves sequences only", statementName(n))
}

func command(f func(ctx context.Context) (*Result, error)) *Prepared {
	return &Prepared{run: func(ctx context.Context, _ []Datum) (*Result, error) { return f(ctx) }}
}

// statementName names a statement kind in messages: CREATE TABLE, not
// CreateStmt.
func statementName(n *pg.Node) string {
	name := nodeName(n)
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

func intOption(d *pg.DefElem, q string) (*int64, error) {
	var text string
	switch {
	case d.Arg.GetInteger() != nil:
		v := int64(d.Arg.GetInteger().Ival)
		return &v, nil
	case d.Arg.GetFloat() != nil:
		text = d.Arg.GetFloat().Fval
	default:
		return nil, sql.Errorf(sql.SyntaxError, "%s requires a numeric value", d.Defname).At(q, d.Location)
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, sql.Errorf(sql.NumericValueOutOfRange, "value \"%s\" is out of range for type bigint", text)
	}
	return &v, nil
}

// spec turns sequence options into an seqmath.Spec, as PostgreSQL 15's
// init_params reads them.
func (c *compiler) spec(opts []*pg.Node) (seqmath.Spec, error) {
	var sp seqmath.Spec
	seen := map[string]bool{}
	var shard, rangeBits *int64
	for _, o := range opts {
		d := o.GetDefElem()
		key := d.Defname
		clause, args, shape := "", []string(nil), false
		if key == "sequence_name" {
			if clause, args, shape = sql.ShapeOption(strs(d.Arg.GetList().GetItems())); shape {
				key = strings.TrimPrefix(strings.TrimPrefix(clause, "no_"), "re")
				if clause == "noorder" {
					key = "order"
				}
			}
		}
		if seen[key] {
			return sp, c.errAt(d.Location, sql.SyntaxError, "conflicting or redundant options")
		}
		seen[key] = true
		if shape {
			if err := c.shapeOption(&sp, clause, args, &shard, &rangeBits); err != nil {
				return sp, err
			}
			continue
		}
		var err error
		switch d.Defname {
		case "as":
			tn := d.Arg.GetTypeName()
			names := strs(tn.Names)
			if lookupType(names) == nil {
				return sp, c.errAt(tn.Location, sql.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
			}
			t, ok := seqmath.ParseType(names[len(names)-1])
			if !ok {
				return sp, sql.Errorf(sql.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
			}
			sp.Type = &t
		case "increment":
			sp.Increment, err = intOption(d, c.query)
		case "minvalue":
			if d.Arg == nil {
				sp.NoMin = true
			} else {
				sp.Min, err = intOption(d, c.query)
			}
		case "maxvalue":
			if d.Arg == nil {
				sp.NoMax = true
			} else {
				sp.Max, err = intOption(d, c.query)
			}
		case "start":
			sp.Start, err = intOption(d, c.query)
		case "restart":
			sp.Restart = true
			if d.Arg != nil {
				sp.RestartWith, err = intOption(d, c.query)
			}
		case "cache":
			sp.Cache, err = intOption(d, c.query)
		case "cycle":
			b := d.Arg.GetBoolean().GetBoolval()
			sp.Cycle = &b
		case "owned_by":
			names := strs(d.Arg.GetList().GetItems())
			if len(names) != 1 || names[0] != "none" {
				return sp, c.errAt(d.Location, sql.FeatureNotSupported, "seqd has no tables: OWNED BY only accepts NONE")
			}
		default:
			return sp, c.errAt(d.Location, sql.FeatureNotSupported, "seqd does not support the sequence option %s", strings.ToUpper(d.Defname))
		}
		if err != nil {
			return sp, err
		}
	}
	if rangeBits != nil && shard == nil {
		return sp, sql.Errorf(sql.InvalidParameterValue, "RANGE_BITS requires SHARD_BITS")
	}
	if shard != nil {
		if sp.Shape != nil {
			return sp, sql.Errorf(sql.SyntaxError, "conflicting or redundant options: BIT_REVERSED_POSITIVE and SHARD_BITS")
		}
		r := int64(seqmath.MaxRangeBits)
		if rangeBits != nil {
			r = *rangeBits
		}
		sh, err := seqmath.NewSharded(*shard, r)
		if err != nil {
			return sp, err
		}
		sp.Shape = &sh
	}
	return sp, nil
}

// shapeOption reads one of the shapes' clauses into sp (SHARD_BITS and
// RANGE_BITS into shard and rangeBits, checked together at the end).
func (c *compiler) shapeOption(sp *seqmath.Spec, clause string, args []string, shard, rangeBits **int64) error {
	nums := make([]int64, len(args))
	for i, a := range args {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return sql.Errorf(sql.NumericValueOutOfRange, "value \"%s\" is out of range for type bigint", a)
		}
		nums[i] = v
	}
	switch clause {
	case "bit_reversed_positive":
		sp.Shape = &seqmath.Shape{Kind: seqmath.BitReversed}
	case "shard_bits":
		*shard = &nums[0]
	case "range_bits":
		*rangeBits = &nums[0]
	case "skip_range":
		sp.Skip = &[2]int64{nums[0], nums[1]}
	case "no_skip_range":
		sp.NoSkip = true
	case "start_counter":
		sp.StartCounter = &nums[0]
	case "restart_counter":
		sp.RestartCounter = &nums[0]
	case "order", "noorder":
		order := clause == "order"
		sp.Order = &order
	}
	return nil
}

// qnameOf is a RangeVar's name.
func qnameOf(rv *pg.RangeVar) sql.QName {
	return sql.QName{Catalog: rv.Catalogname, Schema: rv.Schemaname, Rel: rv.Relname}
}

// alterTarget begins an ALTER of an existing sequence: the read-only
// check, then the lookup. A missing sequence under IF EXISTS gives the
// result to answer instead (skip), with PostgreSQL's notice.
func (s *Session) alterTarget(tag string, q sql.QName, missingOK bool) (n engine.Name, skip *Result, err error) {
	if err := s.checkWritable(tag); err != nil {
		return n, nil, err
	}
	n, err = s.lookupSequence(q)
	if missingOK && missing(err) {
		return n, commandResult(tag, notice(sql.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", q.Rel)), nil
	}
	return n, nil, err
}

func (c *compiler) createSequence(st *pg.CreateSeqStmt) (*Prepared, error) {
	q := qnameOf(st.Sequence)
	sp, err := c.spec(st.Options)
	if err != nil {
		return nil, err
	}
	s, temp, unlogged := c.s, st.Sequence.Relpersistence == "t", st.Sequence.Relpersistence == "u"
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("CREATE SEQUENCE"); err != nil {
			return nil, err
		}
		var n engine.Name
		var err error
		if temp {
			n, err = s.tempCreationName(ctx, q)
		} else {
			n, err = s.creationName(q)
		}
		if err != nil {
			return nil, err // PostgreSQL gives these no position
		}
		if !temp {
			if err := s.checkSchema(n.Schema(), engine.PrivCreate); err != nil {
				return nil, err
			}
		}
		created, err := s.ddlFor(n).CreateWith(ctx, n, sp, engine.CreateOptions{IfNotExists: st.IfNotExists, Unlogged: unlogged, Owner: s.cfg.User})
		if err != nil {
			return nil, err
		}
		if !created {
			return commandResult("CREATE SEQUENCE", notice(sql.DuplicateTable, "relation \"%s\" already exists, skipping", n.Rel())), nil
		}
		return commandResult("CREATE SEQUENCE"), nil
	}), nil
}

// missing reports a lookup that found no sequence (or no schema), which
// IF EXISTS turns into a notice.
func missing(err error) bool {
	var se *sql.Error
	return errors.Is(err, engine.ErrNotFound) || errors.As(err, &se) && (se.Kind == sql.UndefinedTable || se.Kind == sql.UndefinedSchema)
}

func (c *compiler) alterSequence(st *pg.AlterSeqStmt) (*Prepared, error) {
	q := qnameOf(st.Sequence)
	sp, err := c.spec(st.Options)
	if err != nil {
		return nil, err
	}
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		n, skip, err := s.alterTarget("ALTER SEQUENCE", q, st.MissingOk)
		if skip != nil || err != nil {
			return skip, err // PostgreSQL gives these no position
		}
		if err := s.checkOwner(n); err != nil {
			return nil, err
		}
		if err := s.ddlFor(n).Alter(ctx, n, sp); err != nil {
			return nil, err
		}
		return commandResult("ALTER SEQUENCE"), nil
	}), nil
}

// objectNames are a DROP's names.
func objectNames(objects []*pg.Node) []sql.QName {
	var out []sql.QName
	for _, o := range objects {
		var parts []string
		if l := o.GetList(); l != nil {
			parts = strs(l.Items)
		} else if str := o.GetString_(); str != nil {
			parts = []string{str.Sval}
		}
		q := sql.QName{Rel: parts[len(parts)-1]}
		switch len(parts) {
		case 2:
			q.Schema = parts[0]
		case 3:
			q.Catalog, q.Schema = parts[0], parts[1]
		}
		out = append(out, q)
	}
	return out
}

func (c *compiler) drop(st *pg.DropStmt) (*Prepared, error) {
	switch st.RemoveType {
	case pg.ObjectType_OBJECT_SEQUENCE:
	case pg.ObjectType_OBJECT_SCHEMA:
		return c.dropSchema(st)
	default:
		return nil, sql.Errorf(sql.FeatureNotSupported, "seqd does not support DROP %s: it serves sequences only", strings.TrimPrefix(st.RemoveType.String(), "OBJECT_"))
	}
	names := objectNames(st.Objects)
	s := c.s
	return command(func(ctx context.Context) (*Result, error) {
		if err := s.checkWritable("DROP SEQUENCE"); err != nil {
			return nil, err
		}
		r := commandResult("DROP SEQUENCE")
		// Every name is resolved and checked before any sequence goes: as
		// in PostgreSQL, a statement that fails drops nothing.
		var drop []engine.Name
		for _, q := range names {
			n, err := s.lookupSequence(q)
			if err == nil {
				err = s.checkOwner(n)
			}
			if st.MissingOk && missing(err) {
				r.Notices = append(r.Notices, notice(sql.SuccessfulCompletion, "sequence \"%s\" does not exist, skipping", q.Rel))
				continue
			}
			if missing(err) {
				return nil, sql.Errorf(sql.UndefinedTable, "sequence \"%s\" does not exist", q.Rel)
			}
			if err != nil {
				return nil, err
			}
			drop = append(drop, n)
		}
		for _, n := range drop {
			if err := s.dropSequence(ctx, n); err != nil && !(st.MissingOk && missing(err)) {
				return nil, err
			}
		}
		return r, nil
	}), nil
}

// dropSequence drops a sequence and forgets its OID.
func (s *Session) dropSequence(ctx context.Context, n engine.Name) error {
	eng := s.ddlFor(n)
	info, err := eng.Info(n)
	if err != nil {
		return err
	}
	if err := eng.Drop(ctx, n); err != nil {
		return err
	}
	base := s.baseFor(n)
	s.atCommit(func() { s.oids().forget(base, info.ID) })
	return nil
}

func (c *compiler) createSchema(st *pg.CreateSchemaStmt) (*Prepared, error) {
	if len(st.SchemaElts) > 0 {
		return nil, sql.Errorf(sql.FeatureNotSupported, "seqd does not support schema elements in CREATE SCHEMA")
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
			return nil, sql.Errorf(sql.ReservedName, "unacceptable schema name \"%s\"", name).WithDetail("The prefix \"pg_\" is reserved for system schemas.")
		}
		created, err := s.ddlCat().CreateSchema(ctx, name, owner, st.IfNotExists)
		if err != nil {
			return nil, err
		}
		if !created {
			return commandResult("CREATE SCHEMA", notice(sql.DuplicateSchema, "schema \"%s\" already exists, skipping", name)), nil
		}
		return commandResult("CREATE SCHEMA"), nil
	}), nil
}

func (c *compiler) dropSchema(st *pg.DropStmt) (*Prepared, error) {
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
				return nil, sql.Errorf(sql.DependentObjectsStillExist, "cannot drop schema %s because it is required by the database system", name)
			case !s.cat().SchemaExists(name) && st.MissingOk:
				r.Notices = append(r.Notices, notice(sql.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", name))
				continue
			case !s.cat().SchemaExists(name):
				return nil, sql.Errorf(sql.UndefinedSchema, "schema \"%s\" does not exist", name)
			case !s.ownsSchema(name, s.cfg.User):
				return nil, sql.Errorf(sql.InsufficientPrivilege, "must be owner of schema %s", name)
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
			return nil, sql.Errorf(sql.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", deps[0].Schema()).
				WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		var dropped []engine.Name
		for _, name := range schemas {
			d, err := s.ddlCat().DropSchema(ctx, name, cascade)
			dropped = append(dropped, d...)
			if errors.Is(err, engine.ErrDependents) {
				// A sequence created since the check.
				return nil, sql.Errorf(sql.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			if err != nil {
				return nil, err
			}
		}
		byCreation(dropped)
		for _, n := range dropped {
			id := created[n]
			s.atCommit(func() { s.oids().forget(s.eng, id) })
		}
		switch len(dropped) {
		case 0:
		case 1:
			r.Notices = append(r.Notices, notice(sql.SuccessfulCompletion, "drop cascades to sequence %s", display[dropped[0]]))
		default:
			var lines []string
			for _, n := range dropped {
				lines = append(lines, "drop cascades to sequence "+display[n])
			}
			n := notice(sql.SuccessfulCompletion, "drop cascades to %d other objects", len(dropped))
			n.Detail = strings.Join(lines, "\n")
			r.Notices = append(r.Notices, n)
		}
		return r, nil
	}), nil
}

// txOptions reads BEGIN's and SET TRANSACTION's options: readOnly is
// nil unless READ ONLY or READ WRITE was given. Every isolation level is
// accepted (sequence values are non-transactional, so all behave alike);
// DEFERRABLE is not honoured, so it is refused rather than ignored.
func (c *compiler) txOptions(opts []*pg.Node) (readOnly *bool, err error) {
	for _, o := range opts {
		d := o.GetDefElem()
		on := false
		if v := d.Arg.GetAConst(); v != nil && v.GetIval() != nil {
			on = v.GetIval().Ival != 0
		}
		switch d.Defname {
		case "transaction_read_only":
			readOnly = &on
		case "transaction_deferrable":
			if on {
				return nil, c.errAt(d.Location, sql.FeatureNotSupported, "seqd does not support DEFERRABLE transactions")
			}
		}
	}
	return readOnly, nil
}

func (c *compiler) transaction(st *pg.TransactionStmt) (*Prepared, error) {
	s := c.s
	readOnly, err := c.txOptions(st.Options)
	if err != nil {
		return nil, err
	}
	if st.Chain {
		return nil, c.errAt(st.Location, sql.FeatureNotSupported, "seqd does not support AND CHAIN")
	}
	var p *Prepared
	switch st.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		tag := "BEGIN"
		if st.Kind == pg.TransactionStmtKind_TRANS_STMT_START {
			tag = "START TRANSACTION"
		}
		p = command(func(context.Context) (*Result, error) { return s.begin(tag, readOnly) })
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		p = command(func(ctx context.Context) (*Result, error) { return s.end(ctx, "COMMIT", true) })
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		p = command(func(ctx context.Context) (*Result, error) { return s.end(ctx, "ROLLBACK", false) })
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		name := st.SavepointName
		p = command(func(context.Context) (*Result, error) { return s.savepoint(name) })
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		name := st.SavepointName
		p = command(func(context.Context) (*Result, error) { return s.release(name) })
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		name := st.SavepointName
		p = command(func(context.Context) (*Result, error) { return s.rollbackTo(name) })
	default:
		return nil, c.errAt(st.Location, sql.FeatureNotSupported, "seqd does not support two-phase commit")
	}
	p.txEnd = isTxExitKind(st.Kind)
	return p, nil
}

// setValue is the text of SET's value list, as PostgreSQL flattens it;
// for a list of names (search_path: GUC_LIST_QUOTE) each string is quoted
// as an identifier.
func setValue(args []*pg.Node, quoteNames bool) string {
	var parts []string
	for _, a := range args {
		if tc := a.GetTypeCast(); tc != nil {
			a = tc.Arg
		}
		k := a.GetAConst()
		switch {
		case k == nil:
		case k.GetSval() != nil && quoteNames:
			parts = append(parts, sql.QuoteIdent(k.GetSval().Sval))
		case k.GetSval() != nil:
			parts = append(parts, k.GetSval().Sval)
		case k.GetIval() != nil:
			parts = append(parts, strconv.Itoa(int(k.GetIval().Ival)))
		case k.GetFval() != nil:
			parts = append(parts, k.GetFval().Fval)
		case k.GetBoolval() != nil:
			parts = append(parts, strconv.FormatBool(k.GetBoolval().Boolval))
		}
	}
	return strings.Join(parts, ", ")
}

func (c *compiler) set(st *pg.VariableSetStmt) (*Prepared, error) {
	s := c.s
	name := strings.ToLower(st.Name)
	switch st.Kind {
	case pg.VariableSetKind_VAR_SET_MULTI:
		// SET TRANSACTION ..., SET SESSION CHARACTERISTICS AS TRANSACTION ...
		var opts []*pg.Node
		for _, a := range st.Args {
			opts = append(opts, a)
		}
		readOnly, err := c.txOptions(opts)
		if err != nil {
			return nil, err
		}
		return command(func(context.Context) (*Result, error) {
			if name != "transaction" { // SET SESSION CHARACTERISTICS AS TRANSACTION
				if readOnly != nil {
					if err := s.setSetting("default_transaction_read_only", fmt.Sprint(*readOnly), false); err != nil {
						return nil, err
					}
				}
				return commandResult("SET"), nil
			}
			if !s.tx.open {
				return commandResult("SET", warning(sql.NoActiveTransaction, "SET TRANSACTION can only be used in transaction blocks")), nil
			}
			if readOnly != nil {
				if err := s.setTxReadOnly(*readOnly); err != nil {
					return nil, err
				}
			}
			return commandResult("SET"), nil
		}), nil
	case pg.VariableSetKind_VAR_RESET_ALL:
		return command(func(context.Context) (*Result, error) {
			s.settings.resetAll()
			s.syncUser()
			s.pathVersion++
			return commandResult("RESET"), nil
		}), nil
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		tag := "RESET"
		if st.Kind == pg.VariableSetKind_VAR_SET_DEFAULT {
			tag = "SET"
		}
		if _, ok := s.settings.lookup(name); !ok {
			return nil, sql.Errorf(sql.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
		}
		return command(func(context.Context) (*Result, error) {
			s.settings.reset(name)
			s.pathVersion++
			s.changed(name)
			return commandResult(tag), nil
		}), nil
	case pg.VariableSetKind_VAR_SET_VALUE:
		value := setValue(st.Args, name == "search_path")
		if name == "timezone" && value == "" {
			value = "UTC"
		}
		if _, known := settingDefs[name]; !known && !strings.Contains(name, ".") {
			return nil, sql.Errorf(sql.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
		}
		return command(func(context.Context) (*Result, error) {
			if name == "transaction_read_only" {
				// The transaction's own state, as SET TRANSACTION; outside
				// a block it lasts only for this statement.
				b, err := parseBool(value)
				if err != nil {
					return nil, sql.Errorf(sql.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
				}
				if err := s.checkReadWrite(!b); err != nil {
					return nil, err
				}
				if s.tx.open {
					if err := s.setTxReadOnly(b); err != nil {
						return nil, err
					}
				}
				return commandResult("SET"), nil
			}
			if err := s.checkIdentitySetting(name, value); err != nil {
				return nil, err
			}
			if err := s.setSetting(name, value, st.IsLocal); err != nil {
				return nil, err
			}
			if st.IsLocal && !s.tx.open {
				return commandResult("SET", warning(sql.NoActiveTransaction, "SET LOCAL can only be used in transaction blocks")), nil
			}
			return commandResult("SET"), nil
		}), nil
	}
	return nil, sql.Errorf(sql.FeatureNotSupported, "seqd does not support this form of SET")
}

func (c *compiler) show(name string) (*Prepared, error) {
	s := c.s
	name = strings.ToLower(name)
	if name == "all" {
		cs := []Column{{Name: "name", Type: tText}, {Name: "setting", Type: tText}, {Name: "description", Type: tText}}
		return &Prepared{Columns: cs, run: func(context.Context, []Datum) (*Result, error) {
			var rows [][]Datum
			for _, k := range s.settings.names() {
				rows = append(rows, []Datum{Text(settingDisplay(k)), Text(first(s.settingValue(k))), Text(settingDefs[k].desc)})
			}
			return &Result{Columns: cs, Rows: rowsOf(rows...), Tag: "SHOW"}, nil
		}}, nil
	}
	if _, ok := s.settings.lookup(name); !ok {
		return nil, sql.Errorf(sql.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	cs := []Column{{Name: displayName(name), Type: tText}}
	return &Prepared{Columns: cs, run: func(context.Context, []Datum) (*Result, error) {
		v, ok := s.settingValue(name)
		if !ok {
			return nil, sql.Errorf(sql.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
		}
		return &Result{Columns: cs, Rows: rowsOf([]Datum{Text(v)}), Tag: "SHOW"}, nil
	}}, nil
}

func (c *compiler) discard(st *pg.DiscardStmt) (*Prepared, error) {
	s := c.s
	switch st.Target {
	case pg.DiscardMode_DISCARD_ALL:
		return command(func(context.Context) (*Result, error) {
			if err := s.preventInBlock("DISCARD ALL"); err != nil {
				return nil, err
			}
			s.settings.resetAll()
			s.syncUser()
			s.pathVersion++
			clear(s.cursors)
			s.clearPlans()
			s.discardSequences()
			s.dropTemp()
			return &Result{Tag: "DISCARD ALL", DeallocateAll: true}, nil
		}), nil
	case pg.DiscardMode_DISCARD_SEQUENCES:
		return command(func(context.Context) (*Result, error) {
			s.discardSequences()
			return commandResult("DISCARD SEQUENCES"), nil
		}), nil
	case pg.DiscardMode_DISCARD_TEMP:
		return command(func(context.Context) (*Result, error) {
			s.dropTemp()
			return commandResult("DISCARD TEMP"), nil
		}), nil
	case pg.DiscardMode_DISCARD_PLANS:
		return command(func(context.Context) (*Result, error) {
			s.clearPlans()
			return commandResult("DISCARD PLANS"), nil
		}), nil
	}
	return nil, sql.Errorf(sql.FeatureNotSupported, "seqd does not support this form of DISCARD")
}

// discardSequences forgets currval and lastval, as DISCARD SEQUENCES does.
func (s *Session) discardSequences() {
	s.seqs = seqMemory{}
	s.lastName = engine.Name{}
}
