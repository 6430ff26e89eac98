package sql

import (
	"fmt"
	"strings"
)

var knownFuncs = map[string]bool{"nextval": true, "currval": true, "lastval": true, "setval": true, "seqd_reserve": true, "seqd_release": true}

func (p *parser) selectStmt() (Stmt, error) {
	// SELECT * FROM ... / SELECT col, col FROM seq
	if p.punct("*") {
		return p.selectFrom(nil)
	}
	if t := p.peek(); t.kind == tIdent && !p.isCallAhead() && !isLiteralWord(t.text) && !p.isMariaCall() {
		var cols []string
		for {
			c, err := p.ident()
			if err != nil {
				return nil, err
			}
			cols = append(cols, c)
			if !p.punct(",") {
				break
			}
		}
		return p.selectFrom(cols)
	}
	target, err := p.target()
	if err != nil {
		return nil, err
	}
	alias := ""
	if p.kw("as") {
		if alias, err = p.ident(); err != nil {
			return nil, err
		}
	} else if t := p.peek(); t.kind == tQuotedIdent || t.kind == tIdent && t.text != "from" && !clauseWords[t.text] {
		alias = t.text
		p.next()
	}
	if p.punct(",") {
		return nil, unsupported("seqd supports one item per select list")
	}
	switch v := target.(type) {
	case *SelectLiteral:
		if alias != "" {
			v.Column = alias
		}
		if p.kw("from") {
			return nil, unsupported("seqd supports SELECT <literal> only without FROM")
		}
		return v, nil
	case *SelectCall:
		if alias != "" {
			v.Call.Column = alias
		}
		if p.kw("from") {
			if !p.kw("generate_series") && !p.kw("pg_catalog", ".", "generate_series") {
				return nil, unsupported("seqd supports FROM only with generate_series(from, to) after a sequence function")
			}
			if err := p.expectPunct("("); err != nil {
				return nil, err
			}
			from, err := p.value()
			if err != nil {
				return nil, err
			}
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
			to, err := p.value()
			if err != nil {
				return nil, err
			}
			if err := p.expectPunct(")"); err != nil {
				return nil, err
			}
			if _, err := p.alias(); err != nil {
				return nil, err
			}
			v.Series = &Series{From: from, To: to}
		}
		return v, nil
	}
	panic("unreachable")
}

// alias parses the optional alias of a FROM item.
func (p *parser) alias() (string, error) {
	if p.kw("as") {
		return p.ident()
	}
	if t := p.peek(); t.kind == tIdent && !clauseWords[t.text] || t.kind == tQuotedIdent {
		p.next()
		return t.text, nil
	}
	return "", nil
}

func isLiteralWord(w string) bool { return w == "true" || w == "false" || w == "null" }

func (p *parser) isCallAhead() bool {
	t1 := p.at(1)
	if t1.kind == tPunct && t1.text == "(" {
		return true
	}
	// schema.func(
	t3 := p.at(3)
	return t1.kind == tPunct && t1.text == "." && t3.kind == tPunct && t3.text == "("
}

func (p *parser) isMariaCall() bool {
	t := p.peek()
	if t.kind != tIdent || t.text != "next" && t.text != "previous" {
		return false
	}
	t1, t2 := p.at(1), p.at(2)
	return t1.kind == tIdent && t1.text == "value" && t2.kind == tIdent && t2.text == "for"
}

// target parses the select list's single item.
func (p *parser) target() (Stmt, error) {
	start := p.peek()
	if p.kw("next", "value", "for") || p.kw("previous", "value", "for") {
		n, err := p.qname()
		if err != nil {
			return nil, err
		}
		// PREVIOUS VALUE FOR s is MariaDB's LASTVAL(s): NULL, not an
		// error, before the session used s.
		fn := "nextval"
		if start.text == "previous" {
			fn = "lastval"
		}
		return &SelectCall{Call: Call{Func: fn, Column: fn, Args: []Value{{Kind: VName, Name: n, Pos: charPos(p.q, start.pos)}}}}, nil
	}
	if p.isCallAhead() {
		name, err := p.qname()
		if err != nil {
			return nil, err
		}
		fn := strings.ToLower(name.Rel)
		if name.Schema != "" && name.Schema != "pg_catalog" && name.Schema != "public" || !knownFuncs[fn] {
			full := fn
			if name.Schema != "" {
				full = name.Schema + "." + fn
			}
			return nil, &Error{Code: "42883", Msg: fmt.Sprintf("function %s does not exist", full)}
		}
		if err := p.expectPunct("("); err != nil {
			return nil, err
		}
		var args []Value
		if !p.punct(")") {
			for {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				args = append(args, v)
				if p.punct(")") {
					break
				}
				if err := p.expectPunct(","); err != nil {
					return nil, err
				}
			}
		}
		if err := p.skipCast(); err != nil {
			return nil, err
		}
		return &SelectCall{Call: Call{Func: fn, Args: args, Column: fn}}, nil
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	return &SelectLiteral{Value: v, Column: "?column?"}, nil
}

// value parses a literal, parameter or bare sequence name, with an
// optional ::type cast, which is ignored.
func (p *parser) value() (Value, error) {
	t := p.peek()
	pos := charPos(p.q, t.pos)
	var v Value
	switch {
	case p.isNumber():
		n, err := p.number()
		if err != nil {
			return v, err
		}
		v = Value{Kind: VInt, Int: *n}
	case t.kind == tString:
		p.next()
		v = Value{Kind: VStr, Str: t.text}
	case t.kind == tParam:
		p.next()
		var n int
		fmt.Sscan(t.text, &n)
		if n < 1 {
			return v, &Error{Code: "42P02", Msg: fmt.Sprintf("there is no parameter $%s", t.text), Pos: pos}
		}
		v = Value{Kind: VParam, Param: n}
	case p.kw("true"):
		v = Value{Kind: VBool, Bool: true}
	case p.kw("false"):
		v = Value{Kind: VBool}
	case p.kw("null"):
		v = Value{Kind: VNull}
	case t.kind == tIdent || t.kind == tQuotedIdent:
		n, err := p.qname()
		if err != nil {
			return v, err
		}
		v = Value{Kind: VName, Name: n}
	default:
		return v, p.syntaxError()
	}
	v.Pos = pos
	return v, p.skipCast()
}

func (p *parser) skipCast() error {
	for p.punct("::") {
		if _, err := p.ident(); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) selectFrom(cols []string) (Stmt, error) {
	if err := p.expectKw("from"); err != nil {
		return nil, err
	}
	if p.isCallAhead() {
		// SELECT * FROM f(...): a set-returning spelling of the call.
		if cols != nil {
			return nil, unsupported("seqd supports only SELECT * FROM a sequence function")
		}
		target, err := p.target()
		if err != nil {
			return nil, err
		}
		call, ok := target.(*SelectCall)
		if !ok {
			return nil, p.syntaxError()
		}
		// A scalar function's alias names its column, as in PostgreSQL.
		alias, err := p.alias()
		if alias != "" {
			call.Call.Column = alias
		}
		return call, err
	}
	n, err := p.qname()
	if err != nil {
		return nil, err
	}
	if n.Rel == "pg_sequences" && (n.Schema == "" || n.Schema == "pg_catalog") {
		return &SelectPgSequences{Columns: cols}, nil
	}
	return &SelectSequence{Name: n, Columns: cols}, nil
}

// ParseRegclass parses the text form of a sequence name, as nextval('s')
// takes it: identifiers are lowercased unless double-quoted.
func ParseRegclass(text string) (QName, error) {
	toks, err := lex(text)
	if err != nil || len(toks) < 2 {
		return QName{}, &Error{Code: "42602", Msg: "invalid name syntax"}
	}
	p := &parser{q: text, toks: toks}
	n, err := p.qname()
	if err != nil || p.peek().kind != tEOF {
		return QName{}, &Error{Code: "42602", Msg: "invalid name syntax"}
	}
	return n, nil
}
