package mysqlwire

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/internal/vitess/mysql"
)

// What a connection answers itself: its session variables, SET, the
// session functions of a select list, SHOW VARIABLES.

// variables are the session variables connectors read, with MariaDB
// 10.11's values; SET changes them for the connection (autocommit = 0:
// a statement begins a transaction, which COMMIT or ROLLBACK ends).
var variables = map[string]string{
	"autocommit": "1", "auto_increment_increment": "1", "auto_increment_offset": "1",
	"character_set_client": "utf8mb4", "character_set_connection": "utf8mb4", "character_set_results": "utf8mb4",
	"character_set_server": "utf8mb4", "character_set_database": "utf8mb4", "collation_connection": "utf8mb4_general_ci",
	"collation_server": "utf8mb4_general_ci", "collation_database": "utf8mb4_general_ci",
	"init_connect": "", "interactive_timeout": "28800", "wait_timeout": "28800", "net_write_timeout": "60", "net_buffer_length": "16384",
	"license": "GPL", "lower_case_table_names": "0", "max_allowed_packet": "16777216", "performance_schema": "0",
	"query_cache_size": "0", "query_cache_type": "OFF", "sql_mode": "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
	"system_time_zone": "UTC", "time_zone": "SYSTEM", "transaction_isolation": "REPEATABLE-READ", "tx_isolation": "REPEATABLE-READ",
	"tx_read_only": "0", "transaction_read_only": "0", "version": Version, "version_comment": "seqd",
	"version_compile_os": "Linux", "version_compile_machine": "x86_64", "have_ssl": "DISABLED", "sql_auto_is_null": "0",
	"sql_select_limit": "18446744073709551615", "lc_messages": "en_US", "default_storage_engine": "InnoDB", "storage_engine": "InnoDB",
	"session_track_schema": "ON", "session_track_state_change": "OFF", "session_track_transaction_info": "OFF",
	"session_track_system_variables": "autocommit,character_set_client,character_set_connection,character_set_results,time_zone",
	"character_set_system":           "utf8mb3", "redirect_url": "", "net_read_timeout": "30", "max_statement_time": "0",
	// What mariadb-dump's output saves and sets around a restore; seqd
	// has no tables for them to act on.
	"unique_checks": "1", "foreign_key_checks": "1", "sql_notes": "1",
	// mariadb-dump sets semijoin=off and back; seqd has no optimizer for
	// it to steer.
	"optimizer_switch": optimizerSwitch,
}

// optimizerSwitch is MariaDB 10.11's default @@optimizer_switch: its
// flags in its order.
const optimizerSwitch = "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on," +
	"index_merge_sort_intersection=off,engine_condition_pushdown=off,index_condition_pushdown=on,derived_merge=on," +
	"derived_with_keys=on,firstmatch=on,loosescan=on,materialization=on,in_to_exists=on,semijoin=on," +
	"partial_match_rowid_merge=on,partial_match_table_scan=on,subquery_cache=on,mrr=off,mrr_cost_based=off," +
	"mrr_sort_keys=off,outer_join_with_cache=on,semijoin_with_cache=on,join_cache_incremental=on,join_cache_hashed=on," +
	"join_cache_bka=on,optimize_join_buffer_size=on,table_elimination=on,extended_keys=on,exists_to_in=on," +
	"orderby_uses_equalities=on,condition_pushdown_for_derived=on,split_materialized=on," +
	"condition_pushdown_for_subquery=on,rowid_filter=on,condition_pushdown_from_having=on,not_null_range_scan=off," +
	"hash_join_cardinality=off,cset_narrowing=off"

// switched is the optimizer_switch value from, changed as SET
// optimizer_switch = set says, MariaDB's way: "default" (or DEFAULT,
// "") is the default, else each flag=on|off|default of a comma list
// sets that flag; false for a flag or value MariaDB does not take.
func switched(from, set string) (string, bool) {
	set = strings.ToLower(strings.TrimSpace(set))
	if set == "" || set == "default" {
		return optimizerSwitch, true
	}
	flags := strings.Split(from, ",")
	defaults := strings.Split(optimizerSwitch, ",")
	for _, item := range strings.Split(set, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || value != "on" && value != "off" && value != "default" {
			return "", false
		}
		i := slices.IndexFunc(flags, func(f string) bool { return strings.HasPrefix(f, name+"=") })
		if i < 0 {
			return "", false
		}
		if flags[i] = name + "=" + value; value == "default" {
			flags[i] = defaults[i]
		}
	}
	return strings.Join(flags, ","), true
}

// Kinds of MariaDB's system variables by the type SELECT @@name has:
// a boolean's is a signed BIGINT, a number's an unsigned one (sysvar
// ulong, ulonglong), any other a string.
var (
	booleanVariables = map[string]bool{"autocommit": true, "tx_read_only": true, "transaction_read_only": true,
		"sql_auto_is_null": true, "performance_schema": true, "session_track_schema": true, "session_track_state_change": true,
		"unique_checks": true, "foreign_key_checks": true, "sql_notes": true}
	// tUnsignedVariable is a number variable's type (warning_count's).
	tUnsignedVariable = colType{typ: querypb.Type_UINT64, length: 21, known: true}
)

// variableType is the type of SELECT @@name, whose value is v.
func variableType(name, v string) colType {
	name = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(name), "session."), "local."))
	if booleanVariables[name] {
		return colType{typ: querypb.Type_INT64, length: 1, known: true}
	}
	if _, err := strconv.ParseUint(v, 10, 64); err == nil && name != "version_comment" && name != "license" {
		return tUnsignedVariable
	}
	t := textExpr(uint32(len([]rune(v))), false)
	t.known = true
	return t
}

// variable is a session variable's value.
func (cn *conn) variable(name string) (string, bool) {
	name = strings.ToLower(name)
	if v, ok := cn.vars[name]; ok {
		return v, true
	}
	if v, ok := cn.diag.countVariable(name); ok {
		return v, true
	}
	return cn.srv.globalVariable(name)
}

// globalVariable is a variable's server value, which a session's SET
// does not change: its configuration's where it has one
// (max_allowed_packet, max_prepared_stmt_count), else MariaDB 10.11's.
func (srv *Server) globalVariable(name string) (string, bool) {
	switch name {
	case "max_allowed_packet":
		return strconv.Itoa(srv.cfg.MaxMessage), true
	case "max_prepared_stmt_count":
		return preparedCount(srv.cfg.MaxPreparedStatements), true
	}
	v, ok := variables[name]
	return v, ok
}

// defaultVariable is a variable's server value without configuration.
func defaultVariable(name string) string {
	switch name {
	case "max_allowed_packet":
		return strconv.Itoa(defaultMaxMessage)
	case "max_prepared_stmt_count":
		return preparedCount(DefaultMaxPreparedStatements)
	}
	return variables[name]
}

// preparedCount is max_prepared_stmt_count for Config.MaxPreparedStatements
// n.
func preparedCount(n int) string {
	if n > 0 {
		return strconv.Itoa(n)
	}
	return "4294967295" // no bound: MariaDB's largest
}

// variableNames are the variables SHOW VARIABLES lists, in its order:
// those above, max_prepared_stmt_count, and warning_count and error_count
// (the diagnostics').
var variableNames = func() []string {
	out := []string{"max_prepared_stmt_count", "warning_count", "error_count"}
	for n := range variables {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}()

// systemVariables are the connection's variables as information_schema
// shows them (the session's ShowVariables): its own values, the
// server's and their defaults, in SHOW VARIABLES' order. They are read
// on the connection's goroutine, as its statement runs.
func (cn *conn) systemVariables() []catalog.SystemVariable {
	out := make([]catalog.SystemVariable, len(variableNames))
	for i, n := range variableNames {
		session, _ := cn.variable(n)
		global, _ := cn.srv.globalVariable(n)
		out[i] = catalog.SystemVariable{Name: n, Session: session, Global: global, Default: defaultVariable(n)}
	}
	return out
}

// set carries out SET: names, autocommit and the variables above, and
// user variables (@name) to what SET may give a variable, which SET may
// give a variable in turn (mariadb-dump's output saves variables so:
// SET @OLD_TIME_ZONE=@@TIME_ZONE, later SET TIME_ZONE=@OLD_TIME_ZONE).
func (cn *conn) set(n *ast.SetStmt) error {
	var markers markerFinder
	if n.Accept(&markers); len(markers.markers) > 0 { // sent as text: MariaDB's syntax error near the marker
		text := n.Text()
		return markerError(&step{near: strings.TrimSpace(text[max(strings.IndexByte(text, '?'), 0):])})
	}
	uservals, err := cn.userVarValues(n)
	if err != nil {
		return err
	}
	if err := cn.fitUserVars(n, uservals); err != nil {
		return err
	}
	for i, v := range n.Variables {
		name := strings.ToLower(v.Name)
		switch {
		case name == strings.ToLower(ast.SetNames) || name == strings.ToLower(ast.SetCharset):
			continue
		case !v.IsSystem:
			if err := cn.keepUserVar(name, uservals[i]); err != nil {
				return err
			}
			continue
		case v.IsGlobal:
			return unsupported("SET GLOBAL")
		}
		if _, known := variables[name]; !known {
			return unknownVariable(v.Name)
		}
		if name == "sql_mode" {
			if err := cn.setSQLMode(v.Value); err != nil {
				return err
			}
			continue
		}
		val, err := cn.setValue(v.Value)
		if err != nil {
			return err
		}
		if name == "optimizer_switch" {
			from, _ := cn.variable(name)
			v, ok := switched(from, val)
			if !ok {
				return mysql.NewSQLError(1231, "42000", "Variable 'optimizer_switch' can't be set to the value of '%s'", val)
			}
			val = v
		}
		if name == "autocommit" {
			switch strings.ToLower(val) {
			case "1", "on", "true":
				val = "1"
				// MySQL: turning autocommit on commits an open
				// transaction.
				if cn.sess != nil && cn.sess.TxStatus() != 'I' {
					if err := cn.commit(context.Background(), cn.sess); err != nil {
						return err
					}
				}
			case "0", "off", "false":
				val = "0"
			default:
				return mysql.NewSQLError(1231, "42000", "Variable 'autocommit' can't be set to the value of '%s'", val)
			}
		}
		if cn.vars == nil {
			cn.vars = map[string]string{}
		}
		cn.vars[name] = val
	}
	return nil
}

// setSQLMode carries out SET sql_mode = x (sqlmode.go): the mode shown
// and the connection's parser's.
func (cn *conn) setSQLMode(x ast.ExprNode) error {
	var text string
	switch v := x.(type) {
	case *ast.DefaultExpr:
		x, text = nil, defaultSQLMode
	case ast.ValueExpr:
		text, _ = v.GetValue().(string)
	case *ast.UnaryOperationExpr: // -1: parseSQLMode's 1231
	default: // a bare name, a variable, CONCAT
		var err error
		if text, err = cn.setValue(x); err != nil {
			return err
		}
	}
	m, err := parseSQLMode(x, text)
	if err != nil {
		return err
	}
	if err := sqlModeRefused(m); err != nil {
		return err
	}
	if cn.vars == nil {
		cn.vars = map[string]string{}
	}
	cn.vars["sql_mode"] = m.String()
	cn.modes = m
	cn.readWith(m.parser())
	return nil
}

// setValue is a SET's value as text: a literal, a bare word (SET
// sql_mode = ANSI), DEFAULT, a variable, or CONCAT of these (MariaDB
// Connector/J's sql_mode = concat(@@sql_mode, ',STRICT_TRANS_TABLES')).
func (cn *conn) setValue(x ast.ExprNode) (string, error) {
	switch x := x.(type) {
	case ast.ValueExpr:
		return fmt.Sprint(x.GetValue()), nil
	case *ast.ColumnNameExpr:
		return x.Name.Name.O, nil
	case *ast.DefaultExpr:
		return "", nil
	case *ast.VariableExpr:
		if !x.IsSystem {
			if v, ok := cn.userVars[strings.ToLower(x.Name)]; ok && !v.null {
				return v.text, nil
			}
			return "", unsupported("a user variable not SET as its value")
		}
		if v, ok := cn.variable(x.Name); ok {
			return v, nil
		}
		return "", unknownVariable(x.Name)
	case *ast.FuncCallExpr:
		if x.FnName.L == "concat" {
			var b strings.Builder
			for _, a := range x.Args {
				v, err := cn.setValue(a)
				if err != nil {
					return "", err
				}
				b.WriteString(v)
			}
			return b.String(), nil
		}
	}
	return "", unsupported("an expression as a variable's value")
}

// evalSession answers a select list of variables, session functions and
// literals.
func (cn *conn) evalSession(names []string, exprs []ast.ExprNode, limit *ast.Limit) (*answer, error) {
	row := make([]any, len(exprs))
	types := make([]colType, len(exprs))
	for i, x := range exprs {
		switch x := x.(type) {
		case *ast.VariableExpr:
			v, ok := cn.variable(x.Name)
			if !ok {
				return nil, unknownVariable(x.Name)
			}
			types[i] = variableType(x.Name, v)
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				row[i] = n
			} else {
				row[i] = v
			}
		case *ast.FuncCallExpr:
			switch x.FnName.L {
			case "database", "schema":
				types[i] = textExpr(64, false)
				if cn.db == "" {
					row[i] = nil
				} else {
					row[i] = cn.db
				}
			case "connection_id":
				row[i] = int64(cn.c.ConnectionID)
			case "last_insert_id":
				row[i] = int64(0) // no AUTO_INCREMENT here
			case "version":
				row[i] = Version
			default:
				row[i] = cn.c.User + "@" + hostOf(cn.c)
			}
		case ast.ValueExpr:
			types[i], _ = exprType(x, typeScope{})
			switch v := x.GetValue().(type) {
			case int64:
				row[i] = v
			case uint64:
				row[i] = strconv.FormatUint(v, 10)
			case nil:
				row[i] = nil
			case interface{ ToString() string }: // a hexadecimal or bit literal: its bytes
				row[i] = v.ToString()
			default:
				row[i] = fmt.Sprint(v)
			}
		}
	}
	a := &answer{cols: names, rows: [][]any{row}, types: types}
	if limit != nil {
		if c, ok := limit.Count.(ast.ValueExpr); ok && fmt.Sprint(c.GetValue()) == "0" {
			a.rows = nil
		}
	}
	return a, nil
}

// hostOf is the client's host, as USER() shows it.
func hostOf(c *mysql.Conn) string {
	host := c.RemoteAddr().String()
	if i := strings.LastIndex(host, ":"); i >= 0 {
		host = host[:i]
	}
	return host
}

// showVariables is SHOW [GLOBAL | SESSION] VARIABLES [LIKE pattern |
// WHERE cond]: a pattern written as a string is matched here (what
// connectors send at connect); NOT LIKE, another pattern and WHERE read
// the rows as a table does (rowsWhereStep), Variable_name and Value.
func showVariables(n *ast.ShowStmt, env *stmtEnv) (step, error) {
	global := n.GlobalScope
	cond := n.Where
	if p := n.Pattern; p != nil {
		if v, ok := p.Pattern.(ast.ValueExpr); ok && !p.Not && p.Escape == '\\' {
			if pattern, isText := v.GetValue().(string); isText {
				return step{answer: func(c *conn) (*answer, error) { return c.showVariables(pattern, global), nil }}, nil
			}
		}
		cond = &ast.PatternLikeOrIlikeExpr{Expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr("Variable_name")}},
			Pattern: p.Pattern, Not: p.Not, Escape: p.Escape, IsLike: true}
	}
	if cond == nil {
		return step{answer: func(c *conn) (*answer, error) { return c.showVariables("", global), nil }}, nil
	}
	a := variablesAnswer()
	return rowsWhereStep(env, a.cols, a.types, cond, func(c *conn) ([][]any, error) { return c.showVariables("", global).rows, nil })
}

// variablesAnswer is SHOW VARIABLES' answer, of no rows yet.
func variablesAnswer() *answer {
	return &answer{cols: []string{"Variable_name", "Value"}, types: []colType{varchar(64, true), varchar(4096, true)}}
}

// showVariables is the rows of SHOW [GLOBAL | SESSION] VARIABLES [LIKE
// pattern]: the session's values, or the server's (GLOBAL, which lists no
// SESSION ONLY variable), as information_schema's SESSION_VARIABLES and
// GLOBAL_VARIABLES show them, their names in lower case; LIKE's pattern
// read as SHOW STATUS reads it (likeFold).
func (cn *conn) showVariables(pattern string, global bool) *answer {
	pattern = strings.ToLower(pattern)
	a := variablesAnswer()
	for _, v := range cn.systemVariables() {
		if pattern != "" && !likeFold(v.Name, pattern) {
			continue
		}
		value := v.Session
		if global {
			if catalog.MariaDBVariableScope(v.Name) == "SESSION ONLY" {
				continue
			}
			value = v.Global
		}
		a.rows = append(a.rows, []any{v.Name, catalog.MariaDBShownValue(v.Name, value)})
	}
	return a
}

// result is the answer in MySQL's terms: integers as BIGINT, the rest
// text.
func (a *answer) result() *sqltypes.Result {
	if a.typed != nil {
		return a.typed
	}
	out := &sqltypes.Result{}
	types := make([]querypb.Type, len(a.cols))
	for i := range a.cols {
		if i < len(a.types) && a.types[i].known {
			f := &querypb.Field{}
			a.types[i].setField(f, a.cols[i])
			types[i] = f.Type
			out.Fields = append(out.Fields, f)
			continue
		}
		types[i] = querypb.Type_VARCHAR
		for _, r := range a.rows {
			if _, ok := r[i].(int64); ok {
				types[i] = querypb.Type_INT64
			}
		}
		out.Fields = append(out.Fields, field(a.cols[i], types[i]))
	}
	for _, r := range a.rows {
		vals := make([]sqltypes.Value, len(r))
		for i, v := range r {
			switch v := v.(type) {
			case nil:
				vals[i] = sqltypes.NULL
			case int64:
				vals[i] = sqltypes.MakeTrusted(types[i], []byte(strconv.FormatInt(v, 10)))
			default:
				vals[i] = sqltypes.MakeTrusted(types[i], []byte(fmt.Sprint(v)))
			}
		}
		out.Rows = append(out.Rows, vals)
	}
	return out
}

// unknownVariable is MariaDB's error for a system variable it does not
// have (ER_UNKNOWN_SYSTEM_VARIABLE).
func unknownVariable(name string) error {
	return mysql.NewSQLError(1193, "HY000", "Unknown system variable '%s'", name)
}
