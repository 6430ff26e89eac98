package sql

import (
	"fmt"
	"strconv"

	"github.com/seqd/seqd/alloc"
)

// options parses sequence options until none matches.
func (p *parser) options(alter bool) (alloc.Spec, error) {
	var s alloc.Spec
	seen := map[string]bool{}
	p.sawOption = false
	once := func(name string, t token) error {
		if seen[name] {
			return &Error{Code: "42601", Msg: "conflicting or redundant options", Pos: charPos(p.q, t.pos)}
		}
		seen[name] = true
		p.sawOption = true
		return nil
	}
	for {
		t := p.peek()
		var err error
		switch {
		case p.kw("as"):
			if err = once("as", t); err != nil {
				return s, err
			}
			name, err := p.ident()
			if err != nil {
				return s, err
			}
			typ, ok := alloc.ParseType(name)
			if !ok {
				return s, &Error{Code: "22023", Msg: "sequence type must be smallint, integer, or bigint"}
			}
			s.Type = &typ
		case p.kw("increment"):
			if err = once("increment", t); err != nil {
				return s, err
			}
			p.kw("by")
			s.Increment, err = p.number()
		case p.kw("minvalue"):
			if err = once("minvalue", t); err != nil {
				return s, err
			}
			s.Min, err = p.number()
		case p.kw("no", "minvalue"), p.kw("nominvalue"):
			err = once("minvalue", t)
			s.NoMin = true
		case p.kw("maxvalue"):
			if err = once("maxvalue", t); err != nil {
				return s, err
			}
			s.Max, err = p.number()
		case p.kw("no", "maxvalue"), p.kw("nomaxvalue"):
			err = once("maxvalue", t)
			s.NoMax = true
		case p.kw("start"):
			if err = once("start", t); err != nil {
				return s, err
			}
			p.kw("with")
			s.Start, err = p.number()
		case p.kw("restart"):
			if err = once("restart", t); err != nil {
				return s, err
			}
			s.Restart = true
			if p.kw("with") || p.isNumber() {
				s.RestartWith, err = p.number()
			}
		case p.kw("cache"):
			if err = once("cache", t); err != nil {
				return s, err
			}
			s.Cache, err = p.number()
		case p.kw("no", "cache"), p.kw("nocache"):
			err = once("cache", t)
			one := int64(1)
			s.Cache = &one
		case p.kw("cycle"):
			err = once("cycle", t)
			b := true
			s.Cycle = &b
		case p.kw("no", "cycle"), p.kw("nocycle"):
			err = once("cycle", t)
			b := false
			s.Cycle = &b
		case p.kw("owned", "by"):
			if err = once("owned_by", t); err != nil {
				return s, err
			}
			if !p.kw("none") {
				return s, unsupported("seqd has no tables: OWNED BY only accepts NONE")
			}
		default:
			return s, nil
		}
		if err != nil {
			return s, err
		}
	}
}

func (p *parser) isNumber() bool {
	t := p.peek()
	if t.kind == tNumber {
		return true
	}
	if t.kind == tPunct && (t.text == "-" || t.text == "+") {
		return p.at(1).kind == tNumber
	}
	return false
}

// number parses a signed integer literal into an int64.
func (p *parser) number() (*int64, error) {
	neg := false
	if p.punct("-") {
		neg = true
	} else {
		p.punct("+")
	}
	t := p.peek()
	if t.kind != tNumber {
		return nil, p.syntaxError()
	}
	p.next()
	v, err := parseInt(t.text, neg)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func parseInt(digits string, neg bool) (int64, error) {
	text := digits
	if neg {
		text = "-" + digits
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, &Error{Code: "22003", Msg: fmt.Sprintf("value \"%s\" is out of range for type bigint", text)}
	}
	return v, nil
}
