package catalog

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/seqmath"
)

// TestViews runs the stories in testdata, one catalog and one fake
// source per file:
//
//	role NAME [superuser] [login] [createrole] [password] [member=ROLE] [admin=ROLE]
//	    [setting=K=V] [token=LABEL]
//	                       adds a role (the first is the bootstrap
//	                       superuser, OID 10); admin: a member WITH
//	                       ADMIN OPTION; token: with a token of LABEL
//	user NAME              makes NAME the current role
//	schema NAME [owner=ROLE] [usage] [comment=TEXT]
//	                       adds a schema (usage: the current role holds
//	                       USAGE on it)
//	sequence SCHEMA.NAME [type=T] [increment=N] [cache=N] [cycle] [last=N]
//	    [owner=ROLE] [grant=ROLE:select|usage|update] [comment=TEXT] [temp] [unlogged]
//	                       adds a sequence
//	setting NAME VALUE [reset=V] [fixed] [pg] [unit=U] [vartype=T] [min=N] [max=N] [enum=A,B]
//	                       adds a setting (pg: one of PostgreSQL's)
//	rows VIEW [col=N value=V [prefix]] [mysql]
//	                       prints VIEW's rows (schema.name), all or
//	                       those a lookup by column N finds (of a view
//	                       without rows per sequence, those whose column
//	                       N's text is V; mysql: MySQL's
//	                       information_schema's VIEW)
//
// and those of fake_session_test.go.
func TestViews(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		c := New()
		src := newFakeSource(c)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "role":
				src.addRole(t, d)
			case "user":
				src.user = d.CmdArgs[0].Key
			case "schema":
				src.addSchema(t, d)
			case "sequence":
				src.addSequence(t, d)
			case "setting":
				src.addSetting(t, d)
			case "rows":
				return src.show(t, d)
			default:
				if !src.command(t, d) {
					t.Fatalf("unknown command %q", d.Cmd)
				}
			}
			return ""
		})
	})
}

// TestTable checks the table: every view has a unique name and OID,
// is found by both, and makes rows of its columns' width from an empty
// source.
func TestTable(t *testing.T) {
	c := New()
	src := newFakeSource(c)
	src.roles = []Role{{Role: engine.Role{Name: "seqd", Superuser: true, Login: true, CreateRole: true}, OID: SuperuserOID}}
	src.user = "seqd"
	for _, v := range append(c.Views(), MySQL().Views()...) {
		if c.Lookup(v.Schema, v.Name) != v && MySQL().Lookup(v.Schema, v.Name) == nil || v.OID != 0 && c.ByOID(v.OID) != v {
			t.Errorf("%s.%s (%d) is not found by its name and OID", v.Schema, v.Name, v.OID)
		}
		rows, err := src.rows(v)
		if err != nil {
			t.Errorf("%s.%s: %v", v.Schema, v.Name, err)
		}
		for _, row := range rows {
			if len(row) != len(v.Columns) {
				t.Errorf("%s.%s: a row of %d values for %d columns", v.Schema, v.Name, len(row), len(v.Columns))
			}
		}
	}
}

// fakeSource is a Source of roles, schemas, sequences and settings a
// transcript declares.
type fakeSource struct {
	c         *Catalog
	user      string
	roles     []Role
	schemas   []Schema
	usage     map[string]bool
	comments  map[string]string
	seqs      []Sequence
	acls      map[engine.Name]engine.ACL
	seqNotes  map[engine.Name]string
	temp      map[engine.Name]bool
	settings  []Setting
	nextOID   uint32
	verifiers map[string]bool
	// The session's facts (fake_session_test.go).
	backends     []Backend
	stats        DatabaseStats
	prepared     []PreparedStatement
	cursors      []Cursor
	locks        []Lock
	schemaGrants map[string]engine.ACL
	functions    []string
	operators    []string
	seqFuncs     []SequenceFunction
	builtins     *Builtins
	variables    []SystemVariable
}

func newFakeSource(c *Catalog) *fakeSource {
	f := &fakeSource{c: c, usage: map[string]bool{}, comments: map[string]string{}, acls: map[engine.Name]engine.ACL{},
		seqNotes: map[engine.Name]string{}, temp: map[engine.Name]bool{}, nextOID: 16384, verifiers: map[string]bool{},
		schemaGrants: map[string]engine.ACL{}}
	for _, n := range []struct {
		name string
		oid  uint32
	}{{"pg_catalog", 11}, {"pg_toast", 99}, {"information_schema", 13000}} {
		f.schemas = append(f.schemas, Schema{Name: n.name, OID: n.oid, Owner: SuperuserOID})
		f.usage[n.name] = true
	}
	return f
}

func (f *fakeSource) oid() uint32 { f.nextOID++; return f.nextOID }

func (f *fakeSource) addRole(t *testing.T, d *datadriven.TestData) {
	r := Role{Role: engine.Role{Name: d.CmdArgs[0].Key}}
	if len(f.roles) == 0 {
		r.OID = SuperuserOID
	} else {
		r.OID = f.oid()
	}
	for _, a := range d.CmdArgs[1:] {
		switch a.Key {
		case "superuser":
			r.Superuser = true
		case "login":
			r.Login = true
		case "createrole":
			r.CreateRole = true
		case "password":
			r.Verifier = &engine.Verifier{Salt: []byte("salt"), Iterations: 4096, StoredKey: []byte("stored"), ServerKey: []byte("server")}
		case "member":
			r.MemberOf = append(r.MemberOf, engine.Membership{Role: a.Vals[0]})
		case "admin":
			r.MemberOf = append(r.MemberOf, engine.Membership{Role: a.Vals[0], Admin: true})
		case "token":
			r.Tokens = append(r.Tokens, engine.Token{ID: [16]byte{15: byte(len(r.Tokens) + 1)}, Label: a.Vals[0],
				Created: f.Now().Add(-24 * time.Hour), Expires: f.Now().Add(89 * 24 * time.Hour)})
		case "setting":
			k, v, _ := strings.Cut(a.Vals[0], "=")
			r.Settings = append(r.Settings, engine.Setting{Name: k, Value: v})
		default:
			t.Fatalf("unknown role argument %q", a.Key)
		}
	}
	f.roles = append(f.roles, r)
}

func (f *fakeSource) addSchema(t *testing.T, d *datadriven.TestData) {
	n := Schema{Name: d.CmdArgs[0].Key, OID: PublicSchemaOID, Owner: DBOwnerOID}
	if n.Name != "public" {
		n.OID, n.Owner = f.oid(), SuperuserOID
	}
	for _, a := range d.CmdArgs[1:] {
		switch a.Key {
		case "owner":
			n.Owner = f.RoleOID(a.Vals[0])
		case "usage":
			f.usage[n.Name] = true
		case "comment":
			f.comments[n.Name] = a.Vals[0]
		default:
			t.Fatalf("unknown schema argument %q", a.Key)
		}
	}
	n.ACL = eval.Null
	f.schemas = append(f.schemas, n)
	sort.SliceStable(f.schemas, func(i, j int) bool { return f.schemas[i].OID < f.schemas[j].OID })
}

func (f *fakeSource) addSequence(t *testing.T, d *datadriven.TestData) {
	schema, rel, _ := strings.Cut(d.CmdArgs[0].Key, ".")
	name, err := engine.NewName(schema, rel)
	if err != nil {
		t.Fatal(err)
	}
	var spec seqmath.Spec
	var last *int64
	acl := engine.ACL{Owner: f.BootstrapUser(), Grants: map[string]engine.Privs{}}
	unlogged := false
	for _, a := range d.CmdArgs[1:] {
		var n int64
		if len(a.Vals) > 0 {
			fmt.Sscan(a.Vals[0], &n)
		}
		switch a.Key {
		case "type":
			typ, ok := seqmath.ParseType(a.Vals[0])
			if !ok {
				t.Fatalf("unknown type %q", a.Vals[0])
			}
			spec.Type = &typ
		case "increment":
			spec.Increment = &n
		case "cache":
			spec.Cache = &n
		case "cycle":
			cycle := true
			spec.Cycle = &cycle
		case "last":
			last = &n
		case "owner":
			acl.Owner = a.Vals[0]
		case "grant":
			role, privs, _ := strings.Cut(a.Vals[0], ":")
			for _, p := range strings.Split(privs, "|") {
				acl.Grants[role] |= map[string]engine.Privs{"select": engine.PrivSelect, "usage": engine.PrivUsage, "update": engine.PrivUpdate}[p]
			}
		case "comment":
			f.seqNotes[name] = a.Vals[0]
		case "temp":
			f.temp[name] = true
		case "unlogged":
			unlogged = true
		default:
			t.Fatalf("unknown sequence argument %q", a.Key)
		}
	}
	o, st, err := seqmath.Create(spec)
	if err != nil {
		t.Fatal(err)
	}
	if last != nil {
		st.Last, st.Called = *last, true
	}
	f.acls[name] = acl
	f.seqs = append(f.seqs, Sequence{Info: engine.Info{Name: name, Options: o, State: st, Unlogged: unlogged}, OID: f.oid(), Namespace: f.SchemaOID(schema)})
}

func (f *fakeSource) addSetting(t *testing.T, d *datadriven.TestData) {
	st := Setting{Name: d.CmdArgs[0].Key, Value: d.CmdArgs[1].Key, Desc: "the " + d.CmdArgs[0].Key}
	st.Reset, st.Boot = st.Value, st.Value
	var pg *PGSetting
	for _, a := range d.CmdArgs[2:] {
		switch a.Key {
		case "reset":
			st.Reset = a.Vals[0]
		case "fixed":
			st.Fixed = true
		case "pg":
			pg = &PGSetting{Context: "user", Vartype: "string", Boot: st.Boot}
		case "unit":
			pg.Unit = a.Vals[0]
		case "vartype":
			pg.Vartype = a.Vals[0]
		case "min":
			pg.Min = a.Vals[0]
		case "max":
			pg.Max = a.Vals[0]
		case "enum":
			pg.Enumvals = a.Vals
		default:
			t.Fatalf("unknown setting argument %q", a.Key)
		}
	}
	st.PG = pg
	f.settings = append(f.settings, st)
}

// rows are all of v's rows, as a caller streams them.
func (f *fakeSource) rows(v *View) ([][]eval.Datum, error) {
	ps := v.PerSequence
	if ps == nil {
		return v.Rows(f)
	}
	var out [][]eval.Datum
	if ps.Before != nil {
		out = append(out, ps.Before(f)...)
	}
	for _, s := range f.seqs {
		out = append(out, ps.Row(f, s)...)
	}
	if ps.After != nil {
		out = append(out, ps.After(f)...)
	}
	return out, nil
}

// lookup are v's rows with column col equal to value (or beginning with
// it), as a caller looks them up: the sequences' by name or OID, and
// the fixed rows.
func (f *fakeSource) lookup(t *testing.T, v *View, col int, value string, prefix bool) [][]eval.Datum {
	ps := v.PerSequence
	if ps == nil {
		return f.filter(t, v, col, value, prefix)
	}
	if col != ps.NameCol && col != ps.OIDCol {
		t.Fatalf("%s.%s has no lookup by column %d", v.Schema, v.Name, col)
	}
	var out [][]eval.Datum
	for _, s := range f.seqs {
		if col == ps.NameCol && (s.Name.Rel() == value || prefix && strings.HasPrefix(s.Name.Rel(), value)) ||
			col == ps.OIDCol && fmt.Sprint(s.OID) == value {
			out = append(out, ps.Row(f, s)...)
		}
	}
	if ps.Fixed != nil {
		out = append(out, ps.Fixed(f, col, eval.Text(value), prefix)...)
	}
	return out
}

// filter are v's rows whose column col's text is value (or begins with
// it), of a view without rows per sequence.
func (f *fakeSource) filter(t *testing.T, v *View, col int, value string, prefix bool) [][]eval.Datum {
	rows, err := v.Rows(f)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]eval.Datum
	for _, row := range rows {
		text, ok := eval.Output(v.Columns[col].Type, row[col])
		if ok && (text == value || prefix && strings.HasPrefix(text, value)) {
			out = append(out, row)
		}
	}
	return out
}

func (f *fakeSource) show(t *testing.T, d *datadriven.TestData) string {
	schema, name, _ := strings.Cut(d.CmdArgs[0].Key, ".")
	c := f.c
	if d.HasArg("mysql") {
		c = MySQL()
	}
	v := c.Lookup(schema, name)
	if v == nil {
		t.Fatalf("no view %s", d.CmdArgs[0].Key)
	}
	var rows [][]eval.Datum
	if d.HasArg("col") {
		var col int
		var value string
		d.ScanArgs(t, "col", &col)
		d.ScanArgs(t, "value", &value)
		rows = f.lookup(t, v, col, value, d.HasArg("prefix"))
	} else {
		var err error
		if rows, err = f.rows(v); err != nil {
			return fmt.Sprintf("ERROR: %v\n", err)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (oid %d, %c)\n", v.Name, v.OID, v.Kind)
	for i, c := range v.Columns {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s:%s", c.Name, c.Type.SQLName())
	}
	b.WriteString("\n")
	for _, row := range rows {
		for i, d := range row {
			if i > 0 {
				b.WriteString(" ")
			}
			out, ok := eval.Output(v.Columns[i].Type, d)
			switch {
			case !ok:
				out = "NULL"
			case out == "":
				out = `""`
			case strings.ContainsAny(out, " "):
				out = fmt.Sprintf("%q", out)
			}
			b.WriteString(out)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(rows))
	return b.String()
}

func (f *fakeSource) Database() string      { return "seqd" }
func (f *fakeSource) User() string          { return f.user }
func (f *fakeSource) ServerVersion() string { return "15.0 (seqd)" }

// Now is a fixed time in January, when the northern zones keep
// standard time.
func (f *fakeSource) Now() time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC) }

// HasPrivsOfRole: the current role is role, a direct member of it, or a
// superuser.
func (f *fakeSource) HasPrivsOfRole(role string) bool {
	if f.Superuser() || f.user == role {
		return true
	}
	for _, r := range f.roles {
		if r.Name == f.user {
			for _, m := range r.MemberOf {
				if m.Role == role {
					return true
				}
			}
		}
	}
	return false
}

func (f *fakeSource) Superuser() bool {
	for _, r := range f.roles {
		if r.Name == f.user {
			return r.Superuser
		}
	}
	return false
}

func (f *fakeSource) BootstrapUser() string {
	if len(f.roles) == 0 {
		return "seqd"
	}
	return f.roles[0].Name
}

func (f *fakeSource) Roles() []Role { return f.roles }

func (f *fakeSource) StoredRoles() []engine.Role {
	var out []engine.Role
	for _, r := range f.roles {
		out = append(out, r.Role)
	}
	return out
}

func (f *fakeSource) RoleName(oid int64) string {
	if oid == DBOwnerOID {
		return "pg_database_owner"
	}
	for _, r := range f.roles {
		if int64(r.OID) == oid {
			return r.Name
		}
	}
	return fmt.Sprintf("unknown (OID=%d)", oid)
}

func (f *fakeSource) RoleOID(name string) int64 {
	for _, r := range f.roles {
		if r.Name == name {
			return int64(r.OID)
		}
	}
	return SuperuserOID
}

func (f *fakeSource) DatabaseACL() engine.ACL { return engine.ACL{Owner: f.BootstrapUser()} }
func (f *fakeSource) Schemas() []Schema       { return f.schemas }

func (f *fakeSource) SchemaPrivileges(name string) (engine.Privs, error) {
	if f.Superuser() || f.usage[name] {
		return engine.PrivUsage, nil
	}
	return 0, nil
}

func (f *fakeSource) SchemaOID(name string) uint32 {
	for _, n := range f.schemas {
		if n.Name == name {
			return n.OID
		}
	}
	return 0
}

func (f *fakeSource) SchemaACL(name string) eval.Datum {
	su := f.BootstrapUser()
	return eval.Array(eval.Text(ACLItem(su, engine.SchemaPrivs, su)), eval.Text(ACLItem(engine.Public, engine.PrivUsage, su)))
}

func (f *fakeSource) SchemaComments() []Comment {
	var out []Comment
	for _, n := range f.schemas {
		if c, ok := f.comments[n.Name]; ok {
			out = append(out, Comment{OID: n.OID, Text: eval.Text(c)})
		}
	}
	return out
}

func (f *fakeSource) SequenceACL(n engine.Name) (engine.ACL, error) { return f.acls[n], nil }
func (f *fakeSource) Owner(a engine.ACL) string                     { return a.Owner }
func (f *fakeSource) Temporary(n engine.Name) bool                  { return f.temp[n] }

func (f *fakeSource) SequencePrivileges(n engine.Name) (engine.Privs, error) {
	return f.acls[n].Privileges(f.user, f.Superuser()), nil
}

func (f *fakeSource) SequenceComment(n engine.Name) string { return f.seqNotes[n] }

func (f *fakeSource) SequenceComments() ([]Comment, error) {
	var out []Comment
	for _, s := range f.seqs {
		if c, ok := f.seqNotes[s.Name]; ok {
			out = append(out, Comment{OID: s.OID, Text: eval.Text(c)})
		}
	}
	return out, nil
}

func (f *fakeSource) Settings() []Setting { return f.settings }
