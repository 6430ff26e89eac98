package mysqlwire

import (
	"context"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// renaming is one pair of RENAME TABLE old TO new, each schema filled in
// with the connection's database where the statement leaves it out.
type renaming struct{ fromSchema, from, toSchema, to string }

// translateRename is RENAME TABLE a TO b [, c TO d ...] and ALTER TABLE
// a RENAME [TO] b, for sequences (seqd's only tables): all the pairs, in
// order, or none, as MariaDB renames them.
func translateRename(pairs []*ast.TableToTable, db string) (step, error) {
	rs := make([]renaming, len(pairs))
	for i, p := range pairs {
		rs[i] = renaming{p.OldTable.Schema.O, p.OldTable.Name.O, p.NewTable.Schema.O, p.NewTable.Name.O}
		if rs[i].fromSchema == "" {
			rs[i].fromSchema = db
		}
		if rs[i].toSchema == "" {
			rs[i].toSchema = db
		}
		if rs[i].fromSchema == "" || rs[i].toSchema == "" {
			return step{}, mysql.NewSQLError(1046, "3D000", "No database selected")
		}
	}
	return step{answer: func(c *conn) (*answer, error) { return nil, c.rename(rs) }, acts: true}, nil
}

// rename renames the sequences in one transaction, after committing the
// open one (DDL does, in MariaDB). A sequence that is not there is
// MariaDB's 1146 and a name taken its 1050; either renames nothing.
func (cn *conn) rename(rs []renaming) error {
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
	if err := cn.begin(ctx, sess); err != nil {
		return err
	}
	for _, r := range rs {
		if err := cn.renameOne(ctx, sess, r); err != nil {
			cn.rollback(ctx, sess)
			return err
		}
	}
	return cn.commit(ctx, sess)
}

// renameOne renames one sequence: its name, then its schema (the
// session's RenameSequence). A name left as it is within its schema is
// taken (by itself): 1050, as in MariaDB.
func (cn *conn) renameOne(ctx context.Context, sess *executor.Session, r renaming) error {
	err := cn.typed(ctx, sess, func(ctx context.Context) error {
		return sess.RenameSequence(ctx, r.fromSchema, r.from, r.toSchema, r.to)
	})
	if err != nil {
		return renameError(err, r)
	}
	return nil
}

// renameError words a rename's failure as MariaDB does.
func renameError(err error, r renaming) error {
	switch frontend.KindOf(err) {
	case sqlerr.UndefinedTable:
		return noSuchTable(r.fromSchema + "." + r.from)
	case sqlerr.DuplicateTable:
		return mysql.NewSQLError(1050, "42S01", "Table '%s' already exists", r.to)
	}
	return err
}
