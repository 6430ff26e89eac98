package console

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzRequest sends any query string to the JSON endpoints: the answer
// is 200, 400, 404 or 414, always JSON, and a list never holds more than
// MaxLimit sequences.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{"", "q=s&sort=used&limit=2", "after=public.s1", "limit=-1", "offset=1&sort=used", "schema=public&name=s1", "q=%zz", "sort=name&sort=used"} {
		f.Add(seed)
	}
	fx := newFixture(f)
	for _, name := range []string{"s1", "s2", "s3"} {
		fx.create(name)
	}
	f.Fuzz(func(t *testing.T, query string) {
		for _, path := range []string{"/console/api/sequences", "/console/api/sequence"} {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.URL = &url.URL{Path: path, RawQuery: query}
			r.SetBasicAuth("admin", "")
			w := httptest.NewRecorder()
			fx.c.ServeHTTP(w, r)
			switch w.Code {
			case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestURITooLong:
			default:
				t.Fatalf("%s?%s: %d %s", path, query, w.Code, w.Body)
			}
			var answer struct{ Sequences []row }
			if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil || len(answer.Sequences) > MaxLimit {
				t.Fatalf("%s?%s: %v, %d sequences", path, query, err, len(answer.Sequences))
			}
		}
	})
}
