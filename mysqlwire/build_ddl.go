package mysqlwire

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/executor"
)

// seqOptions are a CREATE or ALTER SEQUENCE's options as PostgreSQL's
// DefElems, in the order first written: NOCACHE and CACHE 0 are CACHE 1,
// CACHE 1 CACHE 1 with executor.MariaDBCacheOne (shown as cache 1, not
// nocache), NOCYCLE NO CYCLE, INCREMENT BY 0 INCREMENT BY 1 with
// executor.MariaDBIncrementZero (shown as 0). An option written twice is
// MariaDB's 1225, but for MINVALUE n, which MariaDB's grammar lets a
// later one replace (NO MINVALUE too): the last one counts.
func seqOptions(opts []*ast.SequenceOption) ([]*pg.Node, error) {
	var out []*pg.Node
	at := map[string]int{} // where out holds an option, by name
	for _, o := range opts {
		var name string
		var arg *pg.Node
		v := optionValue(o.IntValue)
		switch o.Tp {
		case ast.SequenceOptionIncrementBy:
			name, arg = "increment", v
			if o.IntValue == 0 {
				// MariaDB steps by its global auto_increment_increment,
				// which is 1 here, and shows 0: the sequence keeps that
				// it was written so.
				arg = optionValue(1)
				out = append(out, defElem(executor.MariaDBIncrementZero, nil))
			}
		case ast.SequenceStartWith:
			name, arg = "start", v
		case ast.SequenceNoMinValue:
			name = "minvalue"
		case ast.SequenceMinValue:
			name, arg = "minvalue", v
		case ast.SequenceNoMaxValue:
			name = "maxvalue"
		case ast.SequenceMaxValue:
			name, arg = "maxvalue", v
		case ast.SequenceNoCache:
			name, arg = "cache", optionValue(1)
		case ast.SequenceCache:
			name, arg = "cache", v
			switch o.IntValue {
			case 0:
				arg = optionValue(1)
			case 1:
				out = append(out, defElem(executor.MariaDBCacheOne, nil))
			}
		case ast.SequenceNoCycle, ast.SequenceCycle:
			name, arg = "cycle", &pg.Node{Node: &pg.Node_Boolean{Boolean: &pg.Boolean{Boolval: o.Tp == ast.SequenceCycle}}}
		case ast.SequenceRestart:
			name = "restart"
		case ast.SequenceRestartWith:
			name, arg = "restart", v
		default:
			return nil, unsupported("this sequence option")
		}
		i, twice := at[name]
		switch {
		case twice && o.Tp == ast.SequenceMinValue:
			out[i] = defElem(name, arg)
		case twice:
			return nil, mysql.NewSQLError(1225, "HY000", "Option '%s' used twice in statement", strings.ToUpper(name))
		default:
			at[name] = len(out)
			out = append(out, defElem(name, arg))
		}
	}
	return out, nil
}

func defElem(name string, arg *pg.Node) *pg.Node {
	return &pg.Node{Node: &pg.Node_DefElem{DefElem: &pg.DefElem{Defname: name, Arg: arg, Defaction: pg.DefElemAction_DEFELEM_UNSPEC,
		Location: noLoc, ArgLocation: noLoc}}}
}

// optionValue is an option's number as PostgreSQL's grammar reads it
// (NumericOnly): an Integer when its digits fit 32 bits, else a Float
// of its text (-2147483648 too: its digits do not fit).
func optionValue(n int64) *pg.Node {
	if n > -1<<31 && n < 1<<31 {
		return &pg.Node{Node: &pg.Node_Integer{Integer: &pg.Integer{Ival: int32(n)}}}
	}
	return &pg.Node{Node: &pg.Node_Float{Float: &pg.Float{Fval: strconv.FormatInt(n, 10)}}}
}

// seqRangeVar is a sequence's name; temporary: in the session's
// temporary schema.
func seqRangeVar(t *ast.TableName, temporary bool) *pg.RangeVar {
	rv := rangeVar(t.Schema.O, t.Name.O, "").GetRangeVar()
	if temporary {
		rv.Relpersistence = "t"
	}
	return rv
}

// createSequenceNode is CREATE SEQUENCE with MariaDB's defaults where
// the statement leaves them (seqDefaults says which).
func createSequenceNode(n *ast.CreateSequenceStmt, temporary bool) (*pg.Node, error) {
	hasCache, hasMax, hasMin, down := seqDefaults(n)
	opts, err := seqOptions(n.SeqOptions)
	if err != nil {
		return nil, err
	}
	if !hasCache {
		opts = append(opts, defElem("cache", optionValue(1000)))
	}
	if !hasMax && !down {
		opts = append(opts, defElem("maxvalue", optionValue(9223372036854775806)))
	}
	if !hasMin && down {
		opts = append(opts, defElem("minvalue", optionValue(-9223372036854775807)))
	}
	return &pg.Node{Node: &pg.Node_CreateSeqStmt{CreateSeqStmt: &pg.CreateSeqStmt{Sequence: seqRangeVar(n.Name, temporary),
		Options: opts, IfNotExists: n.IfNotExists}}}, nil
}

func alterSequenceNode(n *ast.AlterSequenceStmt) (*pg.Node, error) {
	opts, err := seqOptions(n.SeqOptions)
	if err != nil {
		return nil, err
	}
	return &pg.Node{Node: &pg.Node_AlterSeqStmt{AlterSeqStmt: &pg.AlterSeqStmt{Sequence: seqRangeVar(n.Name, false),
		Options: opts, MissingOk: n.IfExists}}}, nil
}

func dropSequenceNode(n *ast.DropSequenceStmt) *pg.Node {
	objs := make([]*pg.Node, len(n.Sequences))
	for i, t := range n.Sequences {
		var names []*pg.Node
		if t.Schema.O != "" {
			names = append(names, strNode(t.Schema.O))
		}
		objs[i] = listNode(append(names, strNode(t.Name.O)))
	}
	return &pg.Node{Node: &pg.Node_DropStmt{DropStmt: &pg.DropStmt{Objects: objs, RemoveType: pg.ObjectType_OBJECT_SEQUENCE,
		Behavior: pg.DropBehavior_DROP_RESTRICT, MissingOk: n.IfExists}}}
}

func createSchemaNode(name string, ifNotExists bool) *pg.Node {
	return &pg.Node{Node: &pg.Node_CreateSchemaStmt{CreateSchemaStmt: &pg.CreateSchemaStmt{Schemaname: name, IfNotExists: ifNotExists}}}
}

func transactionNode(kind pg.TransactionStmtKind) *pg.Node {
	return &pg.Node{Node: &pg.Node_TransactionStmt{TransactionStmt: &pg.TransactionStmt{Kind: kind, Location: noLoc}}}
}
