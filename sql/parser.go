package sql

import (
	"fmt"
	"strings"

	"github.com/seqd/seqd/alloc"
)

type parser struct {
	q         string
	toks      []token
	i         int
	sawOption bool // the last options() consumed at least one option
}

// Parse parses a query string of zero or more statements separated by
// semicolons.
func Parse(q string) ([]Stmt, error) {
	toks, err := lex(q)
	if err != nil {
		return nil, err
	}
	p := &parser{q: q, toks: toks}
	var out []Stmt
	for {
		for p.punct(";") {
		}
		if p.peek().kind == tEOF {
			return out, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if !p.punct(";") && p.peek().kind != tEOF {
			if t := p.peek(); t.kind == tIdent && clauseWords[t.text] {
				return nil, unsupported("seqd does not support %s in this statement", strings.ToUpper(t.text))
			}
			return nil, p.syntaxError()
		}
	}
}

// clauseWords start SQL clauses seqd's statements do not take; after a
// complete statement they are named in a 0A000 rather than reported as a
// syntax error.
var clauseWords = map[string]bool{"where": true, "order": true, "limit": true, "offset": true, "group": true,
	"having": true, "join": true, "union": true, "intersect": true, "except": true, "for": true, "into": true,
	"returning": true, "window": true, "fetch": true, "cross": true, "left": true, "inner": true}

func (p *parser) peek() token { return p.toks[p.i] }

// at is the token k places ahead, or the final EOF token.
func (p *parser) at(k int) token { return p.toks[min(p.i+k, len(p.toks)-1)] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// kw consumes the keyword if it is next.
func (p *parser) kw(words ...string) bool {
	for k, w := range words {
		t := p.at(k)
		if t.kind != tIdent || t.text != w {
			return false
		}
	}
	p.i += len(words)
	return true
}

func (p *parser) punct(s string) bool {
	if t := p.peek(); t.kind == tPunct && t.text == s {
		p.i++
		return true
	}
	return false
}

func (p *parser) syntaxError() error {
	t := p.peek()
	if t.kind == tEOF {
		return &Error{Code: "42601", Msg: "syntax error at end of input", Pos: charPos(p.q, len(p.q))}
	}
	text := p.q[t.pos:]
	if n := p.at(1); n.pos > t.pos {
		text = p.q[t.pos:n.pos]
	}
	return &Error{Code: "42601", Msg: fmt.Sprintf("syntax error at or near \"%s\"", strings.TrimSpace(text)), Pos: charPos(p.q, t.pos)}
}

func (p *parser) expectKw(w string) error {
	if !p.kw(w) {
		return p.syntaxError()
	}
	return nil
}

func (p *parser) expectPunct(s string) error {
	if !p.punct(s) {
		return p.syntaxError()
	}
	return nil
}

func unsupported(format string, args ...any) error {
	return &Error{Code: "0A000", Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) statement() (Stmt, error) {
	start := p.peek()
	switch {
	case p.kw("create"):
		if !p.kw("sequence") {
			return nil, p.unsupportedFrom(start)
		}
		return p.createSequence()
	case p.kw("alter"):
		if !p.kw("sequence") {
			return nil, p.unsupportedFrom(start)
		}
		return p.alterSequence()
	case p.kw("drop"):
		if !p.kw("sequence") {
			return nil, p.unsupportedFrom(start)
		}
		return p.dropSequence()
	case p.kw("select"):
		return p.selectStmt()
	case p.kw("set"), p.kw("reset"):
		return p.skipRest(&Set{Tag: strings.ToUpper(start.text)}), nil
	case p.kw("discard"):
		return p.skipRest(&Set{Tag: "DISCARD ALL"}), nil
	case p.kw("deallocate"):
		return p.skipRest(&Set{Tag: "DEALLOCATE"}), nil
	case p.kw("show"):
		t := p.next()
		if t.kind != tIdent && t.kind != tQuotedIdent {
			p.i--
			return nil, p.syntaxError()
		}
		name := t.text
		if name == "time" && p.kw("zone") {
			name = "timezone"
		}
		return &Show{Name: name}, nil
	case p.kw("begin"), p.kw("start", "transaction"):
		return p.skipRest(&Transaction{Tag: "BEGIN"}), nil
	case p.kw("commit"), p.kw("end"):
		return p.skipRest(&Transaction{Tag: "COMMIT"}), nil
	case p.kw("rollback"), p.kw("abort"):
		return p.skipRest(&Transaction{Tag: "ROLLBACK"}), nil
	}
	if start.kind == tIdent {
		return nil, p.unsupportedFrom(start)
	}
	return nil, p.syntaxError()
}

func (p *parser) unsupportedFrom(start token) error {
	words := strings.ToUpper(start.text)
	if t := p.peek(); t.pos > start.pos && t.kind == tIdent {
		words += " " + strings.ToUpper(t.text)
	}
	return unsupported("seqd does not support %s: it serves sequences only", words)
}

// skipRest consumes tokens up to the end of the statement.
func (p *parser) skipRest(s Stmt) Stmt {
	for t := p.peek(); t.kind != tEOF && !(t.kind == tPunct && t.text == ";"); t = p.peek() {
		p.next()
	}
	return s
}

// qname parses name or schema.name.
func (p *parser) qname() (QName, error) {
	a, err := p.ident()
	if err != nil {
		return QName{}, err
	}
	if p.punct(".") {
		b, err := p.ident()
		if err != nil {
			return QName{}, err
		}
		if p.punct(".") {
			c, err := p.ident()
			if err != nil {
				return QName{}, err
			}
			// database.schema.name: the database part is ignored, as
			// there is only one.
			return QName{Schema: b, Rel: c}, nil
		}
		return QName{Schema: a, Rel: b}, nil
	}
	return QName{Rel: a}, nil
}

func (p *parser) ident() (string, error) {
	t := p.peek()
	if t.kind == tIdent || t.kind == tQuotedIdent {
		p.next()
		return t.text, nil
	}
	return "", p.syntaxError()
}

func (p *parser) createSequence() (Stmt, error) {
	s := &CreateSequence{}
	if p.kw("if", "not", "exists") {
		s.IfNotExists = true
	}
	var err error
	if s.Name, err = p.qname(); err != nil {
		return nil, err
	}
	s.Spec, err = p.options(false)
	return s, err
}

func (p *parser) alterSequence() (Stmt, error) {
	s := &AlterSequence{}
	if p.kw("if", "exists") {
		s.IfExists = true
	}
	var err error
	if s.Name, err = p.qname(); err != nil {
		return nil, err
	}
	s.Spec, err = p.options(true)
	if err != nil {
		return nil, err
	}
	if s.Spec == (alloc.Spec{}) && !p.sawOption {
		return nil, p.syntaxError()
	}
	return s, nil
}

func (p *parser) dropSequence() (Stmt, error) {
	s := &DropSequence{}
	if p.kw("if", "exists") {
		s.IfExists = true
	}
	for {
		n, err := p.qname()
		if err != nil {
			return nil, err
		}
		s.Names = append(s.Names, n)
		if !p.punct(",") {
			break
		}
	}
	if !p.kw("cascade") {
		p.kw("restrict")
	}
	return s, nil
}
