// The statements that change the session rather than the catalog:
// transaction control, SET, SHOW and DISCARD.

package executor

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/seqd/seqd/eval"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// txOptions reads BEGIN's and SET TRANSACTION's options: readOnly is
// nil unless READ ONLY or READ WRITE was given. Every isolation level is
// accepted (sequence values are non-transactional, so all behave alike);
// DEFERRABLE is not honoured, so it is refused rather than ignored.
func (c *planner) txOptions(opts []*pg.Node) (readOnly *bool, err error) {
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
				return nil, c.ErrAt(d.Location, sqlerr.FeatureNotSupported, "seqd does not support DEFERRABLE transactions")
			}
		}
	}
	return readOnly, nil
}

func (c *planner) transaction(st *pg.TransactionStmt) (*Prepared, error) {
	s := c.s
	readOnly, err := c.txOptions(st.Options)
	if err != nil {
		return nil, err
	}
	if st.Chain {
		return nil, c.ErrAt(st.Location, sqlerr.FeatureNotSupported, "seqd does not support AND CHAIN")
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
		return nil, c.ErrAt(st.Location, sqlerr.FeatureNotSupported, "seqd does not support two-phase commit")
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
			parts = append(parts, pgsql.QuoteIdent(k.GetSval().Sval))
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

func (c *planner) set(st *pg.VariableSetStmt) (*Prepared, error) {
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
				return commandResult("SET", warning(sqlerr.NoActiveTransaction, "SET TRANSACTION can only be used in transaction blocks")), nil
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
			return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
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
			return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
		}
		return command(func(context.Context) (*Result, error) {
			if name == "transaction_read_only" {
				// The transaction's own state, as SET TRANSACTION; outside
				// a block it lasts only for this statement.
				b, err := parseBool(value)
				if err != nil {
					return nil, sqlerr.Errorf(sqlerr.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
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
				return commandResult("SET", warning(sqlerr.NoActiveTransaction, "SET LOCAL can only be used in transaction blocks")), nil
			}
			return commandResult("SET"), nil
		}), nil
	}
	return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support this form of SET")
}

func (c *planner) show(name string) (*Prepared, error) {
	s := c.s
	name = strings.ToLower(name)
	if name == "all" {
		cs := []eval.Column{{Name: "name", Type: eval.TText}, {Name: "setting", Type: eval.TText}, {Name: "description", Type: eval.TText}}
		return &Prepared{Columns: cs, run: func(context.Context, []eval.Datum) (*Result, error) {
			var rows [][]eval.Datum
			for _, k := range s.settings.names() {
				rows = append(rows, []eval.Datum{eval.Text(settingDisplay(k)), eval.Text(first(s.settingValue(k))), eval.Text(settingDefs[k].desc)})
			}
			return &Result{Columns: cs, Rows: eval.RowsOf(rows...), Tag: "SHOW"}, nil
		}}, nil
	}
	if _, ok := s.settings.lookup(name); !ok {
		return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	cs := []eval.Column{{Name: displayName(name), Type: eval.TText}}
	return &Prepared{Columns: cs, run: func(context.Context, []eval.Datum) (*Result, error) {
		v, ok := s.settingValue(name)
		if !ok {
			return nil, sqlerr.Errorf(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
		}
		return &Result{Columns: cs, Rows: eval.RowsOf([]eval.Datum{eval.Text(v)}), Tag: "SHOW"}, nil
	}}, nil
}

func (c *planner) discard(st *pg.DiscardStmt) (*Prepared, error) {
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
			for name := range s.cursors {
				s.dropCursor(name) // what they keep given back
			}
			s.deallocate("", true)
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
	return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support this form of DISCARD")
}

// discardSequences forgets currval and lastval, as DISCARD SEQUENCES does.
func (s *Session) discardSequences() {
	s.seqs = seqMemory{}
	s.lastName = engine.Name{}
}
