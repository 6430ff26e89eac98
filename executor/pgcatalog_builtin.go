package executor

import (
	"sync"

	"github.com/seqd/seqd/catalog"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
)

// The built-in functions, operators and casts the evaluator has, as the
// catalog lists them (catalog.Builtins): what a SELECT compiles, asked
// once, the first time a session needs them, and the sequence functions
// their descriptors declare.

var (
	builtinOnce sync.Once
	builtin     *catalog.Builtins
)

func (s *Session) builtins() *catalog.Builtins {
	builtinOnce.Do(func() { builtin = catalog.NewBuiltins(s.compiles, sequenceFunctionFacts()) })
	return builtin
}

// compiles reports whether query, one SELECT, compiles for the session.
func (s *Session) compiles(query string) bool {
	stmts, err := pgsql.Parse(query)
	if err != nil || len(stmts) != 1 || stmts[0].Node.GetSelectStmt() == nil {
		return false
	}
	c := &eval.Compiler{Session: (*evalView)(s), SQL: query}
	_, err = c.Select(stmts[0].Node.GetSelectStmt())
	return err == nil
}

// sequenceFunctionFacts are the sequence functions' descriptors as
// pg_proc lists them.
func sequenceFunctionFacts() []catalog.SequenceFunction {
	var out []catalog.SequenceFunction
	for _, f := range SequenceFunctions() {
		out = append(out, catalog.SequenceFunction{Name: f.Name, Args: f.ArgTypes(), MinArgs: f.minArgs(), Result: f.Result})
	}
	return out
}

func init() {
	proc := func(f func(p catalog.Proc) string) func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		return func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
			p, ok := sessionOf(e).builtins().Proc(uint32(a[0].I))
			if !ok {
				return eval.Null, nil
			}
			return eval.Text(f(p)), nil
		}
	}
	eval.Define("pg_get_function_arguments", eval.TText, true, proc(func(p catalog.Proc) string { return p.Arguments(false) }), eval.TOid)
	eval.Define("pg_get_function_identity_arguments", eval.TText, true, proc(func(p catalog.Proc) string { return p.Arguments(true) }), eval.TOid)
	eval.Define("pg_get_function_result", eval.TText, true, proc(catalog.Proc.Result), eval.TOid)
	eval.Define("pg_function_is_visible", eval.TBool, true, func(e *eval.Env, a []eval.Datum) (eval.Datum, error) {
		_, ok := sessionOf(e).builtins().Proc(uint32(a[0].I))
		return eval.Bool(ok), nil
	}, eval.TOid)
}
