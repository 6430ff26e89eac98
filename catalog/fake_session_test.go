package catalog

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// The fake Source's sessions, statements, cursors, locks, grants and
// built-in functions, as a transcript declares them:
//
//	session PID user=ROLE [app=A] [addr=HOST:PORT] [state=idle|active|intx|aborted|disabled]
//	    [wait=EVENT] [tls]
//	<query>                adds a session of the server, running (or
//	                       last run) the input (its times are a minute
//	                       before Now)
//	stats commits=N rollbacks=N sessions=N
//	                       sets the database's counters
//	prepared NAME [types=(T, U)] [runs=N] [sql]
//	<text>                 adds a prepared statement of the input's text
//	                       (sql: by PREPARE)
//	cursor NAME [hold] [binary]
//	<text>                 adds a cursor of the input's DECLARE
//	lock pid=N txn=N mode=M [seq=SCHEMA.NAME] [waiting]
//	                       adds a lock held (or waited for)
//	schemagrant SCHEMA ROLE:usage|create
//	                       grants a privilege on a durable schema
//	evaluator [functions=(F, G)] [operators=(bigint + bigint, text || text)]
//	                       the functions the evaluator compiles (a call
//	                       of any arguments), and the operators (of
//	                       those operands' types)
//	seqfunc NAME args=T,U min=N result=T
//	                       adds a sequence function's descriptor
//	variable NAME session=V global=V default=V
//	                       adds a system variable of the front end's
//	                       (global: the session's value if left out,
//	                       default: the global one)

// command runs one of the commands above; false for another.
func (f *fakeSource) command(t *testing.T, d *datadriven.TestData) bool {
	switch d.Cmd {
	case "session":
		f.addSession(t, d)
	case "stats":
		f.stats = DatabaseStats{Since: f.Now().Add(-time.Hour), Backends: int64(len(f.backends))}
		d.MaybeScanArgs(t, "commits", &f.stats.Commits)
		d.MaybeScanArgs(t, "rollbacks", &f.stats.Rollbacks)
		d.MaybeScanArgs(t, "sessions", &f.stats.Sessions)
	case "prepared":
		p := PreparedStatement{Name: d.CmdArgs[0].Key, Text: d.Input, Prepared: f.Now().Add(-time.Second), FromSQL: d.HasArg("sql")}
		d.MaybeScanArgs(t, "runs", &p.Runs)
		if d.HasArg("types") {
			var names []string
			d.ScanArgs(t, "types", &names)
			for _, n := range names {
				p.ParamTypes = append(p.ParamTypes, typeNamed(t, n))
			}
		}
		f.prepared = append(f.prepared, p)
	case "cursor":
		c := Cursor{Name: d.CmdArgs[0].Key, Text: d.Input, Hold: d.HasArg("hold"), Binary: d.HasArg("binary"), Declared: f.Now().Add(-time.Second)}
		f.cursors = append(f.cursors, c)
	case "lock":
		f.addLock(t, d)
	case "schemagrant":
		f.grantSchema(t, d)
	case "evaluator":
		f.functions, f.operators = nil, nil
		d.MaybeScanArgs(t, "functions", &f.functions)
		d.MaybeScanArgs(t, "operators", &f.operators)
		f.builtins = nil
	case "seqfunc":
		fn := SequenceFunction{Name: d.CmdArgs[0].Key}
		var args []string
		var result string
		d.MaybeScanArgs(t, "args", &args)
		d.ScanArgs(t, "min", &fn.MinArgs)
		d.ScanArgs(t, "result", &result)
		for _, a := range args {
			fn.Args = append(fn.Args, typeNamed(t, a))
		}
		fn.Result = typeNamed(t, result)
		f.seqFuncs = append(f.seqFuncs, fn)
		f.builtins = nil
	case "variable":
		v := SystemVariable{Name: d.CmdArgs[0].Key}
		d.ScanArgs(t, "session", &v.Session)
		v.Global = v.Session
		d.MaybeScanArgs(t, "global", &v.Global)
		v.Default = v.Global
		d.MaybeScanArgs(t, "default", &v.Default)
		f.variables = append(f.variables, v)
	default:
		return false
	}
	return true
}

// typeNamed is the type of a pg_type name.
func typeNamed(t *testing.T, name string) *eval.Type {
	typ := eval.TypeByName(name)
	if typ == nil {
		t.Fatalf("no type %q", name)
	}
	return typ
}

func (f *fakeSource) addSession(t *testing.T, d *datadriven.TestData) {
	var pid uint32
	fmt.Sscan(d.CmdArgs[0].Key, &pid)
	start := f.Now().Add(-time.Minute)
	b := Backend{PID: pid, Database: f.Database(), Port: -1, Start: start, Changed: start, Status: 'I', Query: d.Input}
	d.ScanArgs(t, "user", &b.User)
	d.MaybeScanArgs(t, "app", &b.Application)
	d.MaybeScanArgs(t, "wait", &b.WaitEvent)
	if d.HasArg("addr") {
		var addr string
		d.ScanArgs(t, "addr", &addr)
		host, port, _ := strings.Cut(addr, ":")
		b.Addr = host
		fmt.Sscan(port, &b.Port)
	}
	state := "idle"
	d.MaybeScanArgs(t, "state", &state)
	switch state {
	case "idle":
	case "active":
		b.Active, b.QueryStart, b.XactStart = true, start, start
	case "intx", "aborted":
		b.Status, b.XactStart, b.QueryStart = map[string]byte{"intx": 'T', "aborted": 'E'}[state], start, start
	case "disabled":
		b.Disabled, b.Changed = true, time.Time{}
	default:
		t.Fatalf("unknown state %q", state)
	}
	if d.HasArg("tls") {
		b.TLS = fakeTLS()
	}
	f.backends = append(f.backends, b)
}

func (f *fakeSource) addLock(t *testing.T, d *datadriven.TestData) {
	var l Lock
	var pid int
	d.ScanArgs(t, "pid", &pid)
	d.ScanArgs(t, "txn", &l.Txn)
	d.ScanArgs(t, "mode", &l.Mode)
	l.Owner, l.Granted = uint32(pid), !d.HasArg("waiting")
	if !l.Granted {
		l.Since = f.Now().Add(-time.Second)
	}
	if d.HasArg("seq") {
		var name string
		d.ScanArgs(t, "seq", &name)
		for _, s := range f.seqs {
			if s.Name.String() == name {
				l.Seq, l.ID, l.Relation = s.Name, s.ID, s.OID
			}
		}
		if l.Relation == 0 {
			t.Fatalf("no sequence %s", name)
		}
	}
	f.locks = append(f.locks, l)
}

func (f *fakeSource) grantSchema(t *testing.T, d *datadriven.TestData) {
	schema := d.CmdArgs[0].Key
	role, privs, _ := strings.Cut(d.CmdArgs[1].Key, ":")
	a := f.schemaGrants[schema]
	if a.Grants == nil {
		a.Grants = map[string]engine.Privs{}
	}
	for _, p := range strings.Split(privs, "|") {
		switch p {
		case "usage":
			a.Grants[role] |= engine.PrivUsage
		case "create":
			a.Grants[role] |= engine.PrivCreate
		default:
			t.Fatalf("unknown schema privilege %q", p)
		}
	}
	f.schemaGrants[schema] = a
}

// compiles is the fake evaluator: a call of one of its functions, or a
// use of one of its operators, compiles.
func (f *fakeSource) compiles(query string) bool {
	for _, fn := range f.functions {
		if strings.HasPrefix(query, "select "+fn+"(") || strings.HasPrefix(query, "select * from "+fn+"(") {
			return true
		}
	}
	for _, op := range f.operators {
		var use string
		switch parts := strings.Fields(op); len(parts) {
		case 2: // a prefix operator: "- bigint"
			use = "select " + parts[0] + " NULL::" + parts[1]
		case 3:
			use = "select NULL::" + parts[0] + " " + parts[1] + " NULL::" + parts[2]
		default:
			panic("an operator is \"type op type\" or \"op type\": " + op)
		}
		if query == use {
			return true
		}
	}
	return false
}

func (f *fakeSource) Builtins() *Builtins {
	if f.builtins == nil {
		f.builtins = NewBuiltins(f.compiles, f.seqFuncs)
	}
	return f.builtins
}

func (f *fakeSource) Location() *time.Location                { return time.UTC }
func (f *fakeSource) Activity() []Backend                     { return f.backends }
func (f *fakeSource) DatabaseStats() DatabaseStats            { return f.stats }
func (f *fakeSource) PreparedStatements() []PreparedStatement { return f.prepared }
func (f *fakeSource) Cursors() []Cursor                       { return f.cursors }
func (f *fakeSource) Locks() []Lock                           { return f.locks }
func (f *fakeSource) SystemVariables() []SystemVariable       { return f.variables }

// IsMemberOf: member is a superuser, role, or a direct member of it.
func (f *fakeSource) IsMemberOf(member, role string) bool {
	for _, r := range f.roles {
		if r.Name != member {
			continue
		}
		if r.Superuser {
			return true
		}
		for _, m := range r.MemberOf {
			if m.Role == role {
				return true
			}
		}
	}
	return member == role
}

// SequenceACLs are the sequences owned by another role than the
// bootstrap superuser, or with grants.
func (f *fakeSource) SequenceACLs() ([]SequenceACL, error) {
	var out []SequenceACL
	for _, s := range f.seqs {
		if a := f.acls[s.Name]; a.Owner != f.BootstrapUser() || len(a.Grants) > 0 {
			out = append(out, SequenceACL{Sequence: s, ACL: a})
		}
	}
	return out, nil
}

// SchemaACLs are the schemas the transcript added (the catalog's are
// not durable), with their grants.
func (f *fakeSource) SchemaACLs() ([]SchemaACL, error) {
	var out []SchemaACL
	for _, n := range f.schemas {
		if n.Name == "pg_catalog" || n.Name == "pg_toast" || n.Name == "information_schema" {
			continue
		}
		a := f.schemaGrants[n.Name]
		a.Owner = f.RoleName(n.Owner)
		out = append(out, SchemaACL{Name: n.Name, OID: n.OID, Owner: n.Owner, ACL: a})
	}
	return out, nil
}

// fakeTLS is a TLS 1.3 session with a client certificate.
func fakeTLS() *tls.ConnectionState {
	cert := &x509.Certificate{Subject: pkix.Name{CommonName: "alice", Organization: []string{"seqd"}}, SerialNumber: big.NewInt(4660),
		Issuer: pkix.Name{CommonName: "seqd test CA"}}
	return &tls.ConnectionState{Version: tls.VersionTLS13, CipherSuite: tls.TLS_AES_256_GCM_SHA384, PeerCertificates: []*x509.Certificate{cert}}
}

// TestBuiltinsAll makes the built-in relations' rows with an evaluator
// that compiles everything: each row PostgreSQL lists of a function,
// operator or cast seqd could accept converts to its columns' types,
// with no session to ask.
func TestBuiltinsAll(t *testing.T) {
	c := New()
	src := newFakeSource(c)
	src.builtins = NewBuiltins(func(string) bool { return true }, nil)
	for name := range BuiltinRows {
		v := c.Lookup("pg_catalog", name)
		rows, err := v.Rows(src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if len(rows) == 0 {
			t.Errorf("%s: no rows", name)
		}
	}
	// A regproc column names a kept function, and shows the digits of
	// an OID that is none.
	b := src.builtins
	if got := b.RegOut(eval.OIDRegprocedure, 1574).S; got != "nextval(regclass)" {
		t.Errorf("regprocedure 1574 is %q, want nextval(regclass)", got)
	}
	if got := b.RegOut(eval.OIDRegproc, 1).S; got != "" {
		t.Errorf("regproc 1 is %q, want no name", got)
	}
	if got := b.RegOut(eval.OIDRegproc, 0).S; got != "-" {
		t.Errorf("regproc 0 is %q, want -", got)
	}
}
