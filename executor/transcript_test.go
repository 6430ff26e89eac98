package executor

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seqd/seqd/eval"

	"github.com/cockroachdb/datadriven"

	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// TestTranscripts runs the stories in testdata/transcripts, one engine per
// file and sessions by name:
//
//	exec [session=NAME] [user=ROLE]
//	                       runs the statements, printing each one's
//	                       result (a session's user is set where it is
//	                       first named; "seqd" by default)
//	describe [params=OIDS] prepares one statement, printing parameter and
//	                       column types
//
// go test -run TestTranscripts -rewrite rewrites the expected output.
func TestTranscripts(t *testing.T) {
	datadriven.Walk(t, "testdata/transcripts", func(t *testing.T, path string) {
		eng := testenv.MemEngine(t)
		sessions := map[string]*Session{}
		session := func(d *datadriven.TestData) *Session {
			name := "main"
			if d.HasArg("session") {
				d.ScanArgs(t, "session", &name)
			}
			if sessions[name] == nil {
				user := "seqd"
				if d.HasArg("user") {
					d.ScanArgs(t, "user", &user)
				}
				s, err := NewSession(Config{Engine: eng, MaxBulkRows: 1000, User: user, Database: "seqd"})
				if err != nil {
					t.Fatal(err)
				}
				sessions[name] = s
			}
			return sessions[name]
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			s := session(d)
			switch d.Cmd {
			case "exec":
				return execTranscript(s, d.Input)
			case "describe":
				stmts, err := pgsql.Parse(d.Input)
				if err != nil {
					return errText(err)
				}
				var oids []uint32
				if d.HasArg("params") {
					var list []string
					d.ScanArgs(t, "params", &list)
					for _, o := range list {
						var v uint32
						fmt.Sscan(o, &v)
						oids = append(oids, v)
					}
				}
				p, err := s.Prepare(&stmts[0], oids)
				if err != nil {
					return errText(err)
				}
				var b strings.Builder
				b.WriteString("params:")
				for _, pt := range p.ParamTypes {
					fmt.Fprintf(&b, " %s", pt.SQLName())
				}
				b.WriteString("\ncolumns:")
				for _, c := range p.Columns {
					fmt.Fprintf(&b, " %s:%s", c.Name, c.Type.SQLName())
				}
				return b.String() + "\n"
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

// execTranscript runs a query string as the simple protocol would: every
// statement in turn, stopping at the first error.
func execTranscript(s *Session, q string) string {
	stmts, err := pgsql.Parse(q)
	if err != nil {
		s.Abort()
		return errText(err)
	}
	var b strings.Builder
	for i := range stmts {
		p, err := s.PrepareCached(&stmts[i])
		var r *Result
		if err == nil {
			r, err = s.Execute(context.Background(), p, nil)
		}
		if err == nil {
			for _, n := range r.Notices {
				fmt.Fprintf(&b, "%s %s: %s\n", n.Severity, n.Kind, n.Msg)
			}
			if r.Columns != nil {
				for i, c := range r.Columns {
					if i > 0 {
						b.WriteString(" ")
					}
					fmt.Fprintf(&b, "%s:%s", c.Name, c.Type.SQLName())
				}
				b.WriteString("\n")
				n := 0
				for {
					row, ok, rerr := r.Rows.Next()
					if rerr != nil {
						err = rerr
						break
					}
					if !ok {
						break
					}
					n++
					for i, d := range row {
						if i > 0 {
							b.WriteString(" ")
						}
						if v, ok := eval.Output(r.Columns[i].Type, d); ok {
							b.WriteString(v)
						} else {
							b.WriteString("NULL")
						}
					}
					b.WriteString("\n")
				}
				if err == nil {
					fmt.Fprintf(&b, "%s %d\n", r.Tag, n)
				}
			} else {
				b.WriteString(r.Tag + "\n")
			}
		}
		if err != nil {
			s.Abort()
			b.WriteString(errText(err))
			break
		}
	}
	fmt.Fprintf(&b, "[%c]\n", s.TxStatus())
	return b.String()
}

func errText(err error) string {
	if se, ok := err.(*sqlerr.Error); ok {
		out := fmt.Sprintf("ERROR %s: %s", se.Kind, se.Msg)
		if se.Pos > 0 {
			out += fmt.Sprintf(" (at %d)", se.Pos)
		}
		if se.Hint != "" {
			out += "\nHINT: " + se.Hint
		}
		return out + "\n"
	}
	return fmt.Sprintf("ERROR: %v\n", err)
}
