package httpapi

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// sequenceTypes are all a request's type option may be.
var sequenceTypes = regexp.MustCompile(`^(smallint|integer|bigint)?$`)

// FuzzRequestBody: any body decodes to a JSON object or a 400/413
// problem, never a panic; the options made of one are only a type of
// the three and integers (RESTART only for ALTER); count, first and last
// are 64-bit integers or a 400.
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
			if opts, _, err := q.options(alter); err == nil && (!sequenceTypes.MatchString(opts.Type) || !alter && opts.Restart != nil) {
				t.Fatalf("%q made options %+v", body, opts)
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
