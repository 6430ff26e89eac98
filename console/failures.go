package console

import (
	"net/http"
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
// hold what a role would not show others (a password it failed to set):
// only a superuser sees it; members of pg_monitor see the error and who
// sent it.
func (c *Console) failures(v *viewer, _ *http.Request) (any, error) {
	var list []Failure
	if c.cfg.Failures != nil {
		list = c.cfg.Failures()
	}
	out := make([]Failure, 0, len(list))
	for _, f := range list {
		if !v.superuser {
			if i := strings.Index(f.Line, " STATEMENT: "); i >= 0 {
				f.Line = f.Line[:i]
			}
		}
		out = append(out, f)
	}
	return map[string]any{"failures": out, "statements_shown": v.superuser}, nil
}
