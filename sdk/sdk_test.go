// Package sdk holds the client libraries for other languages (docs/protocol.md).
// Its Go tests run each library's own test suite against a real seqd
// started here, so that the README's test command covers them.
package sdk

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/seqd/seqd/internal/seqdtest"
	"github.com/seqd/seqd/internal/testenv"
	"github.com/seqd/seqd/server"
)

// startSeqd starts an in-process seqd and returns a connection string.
func startSeqd(t *testing.T) string {
	t.Helper()
	return seqdtest.DSN(seqdtest.Start(t, server.Config{}), "sdk", "sdk")
}

// TestPython builds the Python library's wheel from sdk/python, installs
// it into a scratch directory (as a user would, from the folder), and
// runs its pytest suite from there against a real seqd, with the shared
// protocol vectors and the test PostgreSQL for the SQLAlchemy test.
func TestPython(t *testing.T) {
	py := testenv.Python(t)
	pg := testenv.PostgresDSN(t)
	dsn := startSeqd(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	run := func(dir string, env []string, args ...string) {
		t.Helper()
		cmd := exec.Command(py, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		t.Logf("%v:\n%s", args, out)
	}
	wheels, site, src := filepath.Join(tmp, "wheels"), filepath.Join(tmp, "site"), filepath.Join(tmp, "src")
	// Built from a copy (a build writes into its source tree), without
	// build isolation: setuptools comes from the test environment, so
	// nothing is downloaded here.
	if err := os.CopyFS(src, os.DirFS(filepath.Join(root, "sdk", "python"))); err != nil {
		t.Fatal(err)
	}
	run(tmp, nil, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", wheels, src)
	matches, _ := filepath.Glob(filepath.Join(wheels, "seqd-*.whl"))
	if len(matches) != 1 {
		t.Fatalf("wheels: %v", matches)
	}
	run(root, nil, "-m", "pip", "install", "-q", "--no-deps", "--target", site, matches[0])
	// The suite runs from a copy of the tests, against the installed
	// package, never the source tree.
	tests := filepath.Join(tmp, "tests")
	if err := os.CopyFS(tests, os.DirFS(filepath.Join(root, "sdk", "python", "tests"))); err != nil {
		t.Fatal(err)
	}
	run(tests, []string{"PYTHONPATH=" + site, "SEQD_TEST_DSN=" + dsn, "SEQD_TEST_PG_DSN=" + pg,
		"SEQD_PROTOCOL_VECTORS=" + filepath.Join(root, "testdata", "protocol.json"), "PYTHONDONTWRITEBYTECODE=1"},
		"-m", "pytest", "-q", "-p", "no:cacheprovider", ".")
}

// TestTypeScript builds the TypeScript library (ESM and CommonJS, with
// declarations) from a copy of sdk/typescript with the cached toolchain,
// checks its formatting (prettier), and runs its node:test suite against
// a real seqd with the shared protocol vectors.
func TestTypeScript(t *testing.T) {
	modules := testenv.TypeScriptModules(t)
	node := testenv.Command(t, "node")
	dsn := startSeqd(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "typescript")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "sdk", "typescript"))); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "node_modules"))
	os.RemoveAll(filepath.Join(dir, "dist"))
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	run := func(env []string, args ...string) {
		t.Helper()
		cmd := exec.Command(node, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("node %v: %v\n%s", args, err, out)
		}
		t.Logf("node %v:\n%s", args, out)
	}
	tsc := filepath.Join("node_modules", "typescript", "bin", "tsc")
	run(nil, tsc, "-p", "tsconfig.json")
	run(nil, tsc, "-p", "tsconfig.cjs.json")
	if err := os.WriteFile(filepath.Join(dir, "dist", "cjs", "package.json"), []byte(`{"type":"commonjs"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(nil, filepath.Join("node_modules", "prettier", "bin", "prettier.cjs"), "--check", "src", "test")
	run([]string{"SEQD_TEST_DSN=" + dsn, "SEQD_PROTOCOL_VECTORS=" + filepath.Join(root, "testdata", "protocol.json")},
		"--test", "test/")
}

// jdbcURL is a pgx-style postgres:// URL as pgjdbc reads it.
func jdbcURL(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("user", u.User.Username())
	return "jdbc:postgresql://" + u.Host + u.Path + "?" + q.Encode()
}

// TestJava runs the Java library's Maven build (compiled with -Xlint:all
// -Werror) and its JUnit suite against a real seqd: the shared vectors,
// the generators through HikariCP from eight threads, shaped sequences,
// and Hibernate ORM 6 persisting entities into the test PostgreSQL from
// six threads with ids from seqd.
func TestJava(t *testing.T) {
	mvn := testenv.Command(t, "mvn")
	pg := testenv.PostgresDSN(t)
	dsn := startSeqd(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "java")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "sdk", "java"))); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "target"))
	repo := os.Getenv("SEQD_TEST_M2")
	if repo == "" {
		repo = "/var/tmp/seqd-m2"
	}
	cmd := exec.Command(mvn, "-B", "-q", "-Dmaven.repo.local="+repo, "test")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SEQD_TEST_JDBC="+jdbcURL(t, dsn), "SEQD_TEST_PG_JDBC="+jdbcURL(t, pg),
		"SEQD_PROTOCOL_VECTORS="+filepath.Join(root, "testdata", "protocol.json"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mvn test: %v\n%s", err, out)
	}
	t.Logf("mvn test:\n%s", out)
	reports, _ := filepath.Glob(filepath.Join(dir, "target", "surefire-reports", "*.txt"))
	if len(reports) != 3 {
		t.Fatalf("surefire reports %v: want the three test classes", reports)
	}
	for _, r := range reports {
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", b)
	}
}
