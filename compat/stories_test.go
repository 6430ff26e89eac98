package compat

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seqd/seqd/internal/testenv"
)

// TestStories runs each testdata/stories/*.sql through psql against a new
// database of PostgreSQL 15 and a new seqd, and compares psql's whole
// output: every result, notice and error (with its SQLSTATE and detail)
// must be the same.
func TestStories(t *testing.T) {
	psql := testenv.Command(t, "psql")
	stories, _ := filepath.Glob("testdata/stories/*.sql")
	if len(stories) == 0 {
		t.Fatal("no stories")
	}
	for _, story := range stories {
		t.Run(filepath.Base(story), func(t *testing.T) {
			in, err := os.ReadFile(story)
			if err != nil {
				t.Fatal(err)
			}
			cfg := freshDatabase(t, "seqd_story")
			run := func(host string, port uint16) string {
				cmd := exec.Command(psql, "-X", "-a", "-h", host, "-p", fmt.Sprint(port), "-U", cfg.User, "-d", "seqd_story", "-f", "-")
				cmd.Stdin = strings.NewReader(string(in))
				cmd.Env = append(os.Environ(), "PGOPTIONS=")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("psql: %v\n%s", err, out)
				}
				// LOCATION names PostgreSQL's source file: not comparable.
				var keep []string
				for _, l := range strings.Split(string(out), "\n") {
					if !strings.HasPrefix(l, "LOCATION:") {
						keep = append(keep, l)
					}
				}
				return strings.Join(keep, "\n")
			}
			host, port := startSeqd(t)
			var p uint16
			fmt.Sscan(port, &p)
			want, got := run(cfg.Host, cfg.Port), run(host, p)
			if want != got {
				t.Errorf("seqd differs from PostgreSQL 15:\n%s", testenv.LineDiff(want, got))
			}
		})
	}
}
