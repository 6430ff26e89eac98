package httpapi

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// optionsSQL is all a request's options may add to a CREATE or ALTER
// SEQUENCE: the words of the options and integers, nothing from the body
// verbatim.
var optionsSQL = regexp.MustCompile(`^( as (smallint|integer|bigint))?( (increment by|minvalue|maxvalue|start with|restart with|cache) -?[0-9]+)*( (no )?cycle)?$`)

// FuzzRequestBody: any body decodes to a JSON object or a 400/413
// problem, never a panic; the options made of one are only option words
// and integers; count, first and last are 64-bit integers or a 400.
func FuzzRequestBody(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"count": "3"}`, `{"count": 3}`, `{"count": "9223372036854775808"}`, `{"start": "1", "cycle": true}`,
		`{"type": "bigint; drop"}`, `{"increment": "1 cache 2"}`, `[]`, `null`, `{"first": "1", "last": "-2"}`, `{"cycle": "yes"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		q := &request{}
		if _, err := readBody(httptest.NewRecorder(), req, &q.body); err != nil {
			if p := problemOf(err); p.status != 400 && p.status != 413 {
				t.Fatalf("%q: %d", body, p.status)
			}
			return
		}
		for _, alter := range []bool{false, true} {
			if opts, err := q.options(alter); err == nil && !optionsSQL.MatchString(opts) {
				t.Fatalf("%q made options %q", body, opts)
			} else if err != nil && problemOf(err).status != 400 {
				t.Fatalf("%q: %v", body, err)
			}
		}
		for _, name := range []string{"count", "first", "last"} {
			if _, err := q.integer(name, 1); err != nil && problemOf(err).status != 400 {
				t.Fatalf("%q: %s: %v", body, name, err)
			}
		}
	})
}
