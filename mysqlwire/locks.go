package mysqlwire

import (
	"context"
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// MariaDB's table locks, which mariadb-dump takes around its read of a
// database (LOCK TABLES ... READ LOCAL, UNLOCK TABLES), and FLUSH TABLES:
//
//  1. LOCK TABLES ... READ [LOCAL] checks what MariaDB checks (each table
//     there, SELECT on it: 1146, 1142) and commits the open transaction,
//     as MariaDB's does, and takes no lock: a sequence's values are
//     handed out to every session without waiting on any client (seqd's
//     promise). MariaDB's READ lock does not stop other sessions'
//     NEXTVAL either; it refuses the locking session's own (1099) and
//     its use of other tables (1100), which seqd does not. A dump reads
//     each sequence's position once; values taken after the read are
//     after the position the dump holds.
//  2. LOCK TABLES ... WRITE is refused (1235): MariaDB's write lock keeps
//     every other session away from the table, their NEXTVAL waiting, a
//     promise seqd does not make and will not pretend to.
//  3. UNLOCK TABLES commits the open transaction where LOCK TABLES came
//     before it (with no BEGIN between, which ends MariaDB's locks), as
//     MariaDB's does, and otherwise does nothing (after mariadb-dump
//     --single-transaction's START TRANSACTION it leaves the transaction
//     open, as MariaDB's does).
//  4. FLUSH TABLES [t, ...] commits the open transaction, as MariaDB's
//     does, and nothing else: seqd has no table cache to flush. FLUSH
//     TABLES WITH READ LOCK (mariadb-dump --lock-all-tables) takes no
//     lock either: MariaDB's stops every other session's NEXTVAL until
//     UNLOCK TABLES, which seqd's promise (1) rules out. Both need
//     MariaDB's RELOAD privilege, a superuser's here (1227 otherwise);
//     the tables named are not looked up, as MariaDB's are not.

// tableRef is a table a statement names (LOCK TABLES, SHOW CREATE,
// DESCRIBE): its schema as written ("" for none: found along the search
// path) and name, and db, the database MariaDB names it in in its errors
// (the connection's where none is written).
type tableRef struct{ schema, name, db string }

// tableRefs are the tables a statement names, in database db.
func tableRefs(names []*ast.TableName, db string) ([]tableRef, error) {
	out := make([]tableRef, len(names))
	for i, t := range names {
		out[i] = tableRef{t.Schema.O, t.Name.O, t.Schema.O}
		if out[i].db == "" {
			out[i].db = db
		}
		if out[i].db == "" {
			return nil, mysql.NewSQLError(1046, "3D000", "No database selected")
		}
	}
	return out, nil
}

// translateLockTables is LOCK TABLES t READ [LOCAL], ... (rule 1).
func translateLockTables(n *ast.LockTablesStmt, db string) (step, error) {
	names := make([]*ast.TableName, len(n.TableLocks))
	seen := map[[2]string]bool{}
	for i, l := range n.TableLocks {
		key := [2]string{l.Table.Schema.O, l.Table.Name.O}
		if key[0] == "" {
			key[0] = db
		}
		if seen[key] {
			return step{}, mysql.NewSQLError(1066, "42000", "Not unique table/alias: '%s'", l.Table.Name.O)
		}
		seen[key] = true
		if l.Type != ast.TableLockRead && l.Type != ast.TableLockReadLocal {
			return step{}, unsupported("LOCK TABLES ... " + l.Type.String() + " (seqd holds no lock that would stop other sessions' NEXT VALUE FOR; READ is taken, and checked, without one)")
		}
		names[i] = l.Table
	}
	ts, err := tableRefs(names, db)
	if err != nil {
		return step{}, err
	}
	return step{answer: func(c *conn) (*answer, error) { return nil, c.lockTables(ts) }, acts: true}, nil
}

// lockTables checks ts as MariaDB's LOCK TABLES ... READ does, after
// committing the open transaction: every table's privilege first (SELECT:
// 1142), then that each is there (1146).
func (cn *conn) lockTables(ts []tableRef) error {
	sess, err := cn.session()
	if err != nil {
		return err
	}
	defer cn.status(sess)
	ctx := context.Background()
	if sess.TxStatus() != 'I' {
		if err := cn.commit(ctx, sess); err != nil {
			return err
		}
	}
	var missing error
	for _, t := range ts {
		d, err := cn.definition(sess, t)
		switch {
		case err == nil && d.Privileges&engine.PrivSelect == 0:
			return cn.denied("SELECT", t)
		case missingTable(err):
			if missing == nil {
				missing = noSuchTable(tableName(t.db, t.name))
			}
		case frontend.KindOf(err) == sqlerr.InsufficientPrivilege:
			return cn.denied("SELECT", t)
		case err != nil:
			return err
		}
	}
	if missing != nil {
		return missing
	}
	cn.locked = true
	return nil
}

// translateUnlockTables is UNLOCK TABLES (rule 3).
func translateUnlockTables() step {
	return step{answer: func(c *conn) (*answer, error) { return nil, c.unlockTables() }, acts: true}
}

func (cn *conn) unlockTables() error {
	if !cn.locked {
		return nil
	}
	cn.locked = false
	sess, err := cn.session()
	if err != nil {
		return err
	}
	defer cn.status(sess)
	if sess.TxStatus() == 'I' {
		return nil
	}
	return cn.commit(context.Background(), sess)
}

// translateFlush is FLUSH TABLES [t, ...] and FLUSH TABLES WITH READ
// LOCK (rule 4); any other FLUSH is refused.
func translateFlush(n *ast.FlushStmt) (step, error) {
	if n.Tp != ast.FlushTables || n.ReadLock && len(n.Tables) > 0 {
		return step{}, unsupported("this FLUSH (FLUSH TABLES [t, ...] and FLUSH TABLES WITH READ LOCK are answered: seqd has no table cache to flush, nor a lock to take)")
	}
	return step{answer: func(c *conn) (*answer, error) { return nil, c.flushTables() }, acts: true}, nil
}

// flushTables commits the open transaction, as MariaDB's FLUSH TABLES
// does, for a user with MariaDB's RELOAD privilege (a superuser).
func (cn *conn) flushTables() error {
	if !cn.superuser() {
		return mysql.NewSQLError(1227, "42000", "Access denied; you need (at least one of) the RELOAD privilege(s) for this operation")
	}
	sess, err := cn.session()
	if err != nil {
		return err
	}
	defer cn.status(sess)
	if sess.TxStatus() == 'I' {
		return nil
	}
	return cn.commit(context.Background(), sess)
}

// superuser reports whether the connection's user is a superuser: a
// superuser role or, under trust, a name that is no role, as its session
// counts it.
func (cn *conn) superuser() bool {
	eng, _ := cn.srv.engine()
	r, isRole := eng.Role(cn.c.User)
	return !isRole || r.Superuser
}

// definition is the sequence t's definition, with the session user's
// privileges on it (executor.MariaDBDefinition).
func (cn *conn) definition(sess *executor.Session, t tableRef) (executor.MariaDBDefinition, error) {
	var d executor.MariaDBDefinition
	err := cn.guarded(sess, func(ctx context.Context) (err error) {
		d, err = sess.Definition(ctx, t.schema, t.name)
		return err
	})
	return d, err
}

// missingTable reports whether err says a table is not there: no such
// sequence, schema, or a relation that is not a sequence (seqd's only
// tables).
func missingTable(err error) bool {
	switch frontend.KindOf(err) {
	case sqlerr.UndefinedTable, sqlerr.UndefinedSchema, sqlerr.WrongObjectType:
		return true
	}
	return false
}

// denied is MariaDB's error for a user without the privilege command
// needs on table t (ER_TABLEACCESS_DENIED_ERROR).
func (cn *conn) denied(command string, t tableRef) error {
	return mysql.NewSQLError(1142, "42000", "%s command denied to user '%s'@'%s' for table %s", command, cn.c.User, hostOf(cn.c),
		fmt.Sprintf("`%s`.`%s`", t.db, t.name))
}

// Savepoints, which mariadb-dump --single-transaction sets and releases
// around its read of each table, as MariaDB keeps them: SAVEPOINT
// outside a transaction does nothing; RELEASE SAVEPOINT and ROLLBACK TO
// a savepoint the transaction does not have are 1305.

// savepointOp is which of the savepoint statements a step is.
type savepointOp int

const (
	setSavepoint        savepointOp = iota // SAVEPOINT name
	releaseSavepoint                       // RELEASE SAVEPOINT name
	rollbackToSavepoint                    // ROLLBACK TO [SAVEPOINT] name
)

// translateSavepoint is the savepoint statement op of name.
func translateSavepoint(op savepointOp, name string) step {
	return step{answer: func(c *conn) (*answer, error) { return nil, c.savepoint(op, name) }, acts: true, txControl: true}
}

func (cn *conn) savepoint(op savepointOp, name string) error {
	sess, err := cn.session()
	if err != nil {
		return err
	}
	defer cn.status(sess)
	ctx := context.Background()
	noSuch := mysql.NewSQLError(1305, "42000", "SAVEPOINT %s does not exist", name)
	if sess.TxStatus() == 'I' {
		if op == setSavepoint {
			return nil
		}
		return noSuch
	}
	if op == setSavepoint {
		return cn.typed(ctx, sess, func(ctx context.Context) error { return sess.Savepoint(ctx, name) })
	}
	// The statement's own savepoint, set after name, is gone with it
	// once name is released or rolled back to; a failure rolls back to
	// it, so that the transaction goes on, as MariaDB's does.
	if err := cn.typed(ctx, sess, func(ctx context.Context) error { return sess.Savepoint(ctx, statementSavepoint) }); err != nil {
		return err
	}
	err = cn.typed(ctx, sess, func(ctx context.Context) error {
		if op == releaseSavepoint {
			return sess.ReleaseSavepoint(ctx, name)
		}
		return sess.RollbackToSavepoint(ctx, name)
	})
	if err == nil {
		return nil
	}
	cn.typed(ctx, sess, func(ctx context.Context) error { return sess.RollbackToSavepoint(ctx, statementSavepoint) })
	cn.typed(ctx, sess, func(ctx context.Context) error { return sess.ReleaseSavepoint(ctx, statementSavepoint) })
	if frontend.KindOf(err) == sqlerr.InvalidSavepoint {
		return noSuch
	}
	return err
}
