// Statements told to Config.OnStatement (the server's metrics): each
// statement's command, its outcome's SQLSTATE (its error kind's, as the
// other protocols report it, not MariaDB's the client was sent) and its
// time.

package mysqlwire

import (
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/seqd/seqd/sqlerr"
)

// observed is OnStatement's answer for a connection's last (command,
// SQLSTATE): the next statement with the same pair, most of them, calls
// it again without asking.
type observed struct {
	command, code string
	f             func(d time.Duration)
}

// began is when a statement began, for observe: the zero time when no
// OnStatement is set, which then costs no clock read.
func (cn *conn) began() time.Time {
	if cn.srv.cfg.OnStatement == nil {
		return time.Time{}
	}
	return time.Now()
}

// observe tells OnStatement of a statement that began at began: its
// command ("" when it failed before it had one: a statement that does
// not parse, or a prepared statement not there) and its failure, nil on
// success.
func (cn *conn) observe(command string, err error, began time.Time) {
	if cn.srv.cfg.OnStatement == nil {
		return
	}
	code := "00000"
	if err != nil {
		code = sqlerr.SQLState(kindOf(err))
	}
	o := &cn.observed
	if o.f == nil || o.command != command || o.code != code {
		o.command, o.code, o.f = command, code, cn.srv.cfg.OnStatement(command, code)
	}
	o.f(time.Since(began))
}

// commandOf is the command a statement is counted under: PostgreSQL's
// command tags' words, one per statement translate takes (a bounded
// set: what it does not take fails, and counts as "").
func commandOf(st ast.StmtNode) string {
	switch st.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		return "SELECT"
	case *ast.CreateSequenceStmt:
		return "CREATE SEQUENCE"
	case *ast.AlterSequenceStmt:
		return "ALTER SEQUENCE"
	case *ast.DropSequenceStmt:
		return "DROP SEQUENCE"
	case *ast.CreateDatabaseStmt:
		return "CREATE DATABASE"
	case *ast.DropDatabaseStmt:
		return "DROP DATABASE"
	case *ast.BeginStmt:
		return "BEGIN"
	case *ast.CommitStmt:
		return "COMMIT"
	case *ast.RollbackStmt:
		return "ROLLBACK"
	case *ast.SetStmt:
		return "SET"
	case *ast.UseStmt:
		return "USE"
	case *ast.ShowStmt:
		return "SHOW"
	case *ast.RenameTableStmt:
		return "RENAME TABLE"
	case *ast.AlterTableStmt:
		return "ALTER TABLE"
	case *ast.KillStmt:
		return "KILL"
	default:
		return "OTHER"
	}
}
