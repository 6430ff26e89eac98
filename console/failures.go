package console

import (
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Failure is a failed statement as the server logged it: its SQLSTATE
// (or MySQL's code) and message, who sent it on which connection, and
// its text.
type Failure struct {
	At   time.Time `json:"at"`
	Line string    `json:"line"`
}

// failures lists the recent failed statements. A statement's text may
// hold what a role would not show others (a password it failed to set),
// and so may its error's message, which quotes what the parser stopped
// at (syntax error at or near "secret"): only a superuser sees them;
// members of pg_monitor see the code, the message with what it quotes
// withheld, and who sent it.
func (c *Console) failures(v *viewer, _ *http.Request) (any, error) {
	var list []Failure
	if c.cfg.Failures != nil {
		list = c.cfg.Failures()
	}
	out := make([]Failure, 0, len(list))
	for _, f := range list {
		if !v.superuser {
			f.Line = withheld(f.Line)
		}
		out = append(out, f)
	}
	return map[string]any{"failures": out, "statements_shown": v.superuser}, nil
}

// sender is how a failure's line names who sent it, at the end of what
// comes before its statement: (user "name", connection 7).
var sender = regexp.MustCompile(` \(user "(?:[^"\\]|\\.)*", connection \d+\)$`)

// withheld is a failure's line (`code message (user "u", connection n)
// STATEMENT: text`) without its statement's text, and its message
// without what it quotes: from its first quotation mark to its last
// (either kind: PostgreSQL quotes with ", MySQL with '), or to its end
// when it has one only.
func withheld(line string) string {
	if i := strings.Index(line, " STATEMENT: "); i >= 0 {
		line = line[:i]
	}
	code, msg, _ := strings.Cut(line, " ")
	who := ""
	if loc := sender.FindStringIndex(msg); loc != nil {
		msg, who = msg[:loc[0]], msg[loc[0]:]
	}
	if i := strings.IndexAny(msg, `"'`); i >= 0 {
		end := ""
		if j := strings.LastIndexAny(msg, `"'`); j > i {
			end = msg[j+1:]
		}
		msg = msg[:i] + `"…"` + end
	}
	return code + " " + msg + who
}
