package torture

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// hostileCorpus is what the attackers replay over the sockets: the seeds
// of the repository's fuzz targets (the literals in their f.Add calls
// and in the lists they range over to call it) and the inputs kept under
// testdata/fuzz, each given to the protocol whose code its target
// exercises. Read once, then only read: safe for concurrent use.
type hostileCorpus struct {
	sql    map[string][]string // "pgwire", "mysql": statements
	raw    map[string][][]byte // protocol: bytes (pgwire messages, MySQL handshake packets); "any": every protocol's
	bodies []string            // HTTP API request bodies
	names  []string            // schema and sequence names
	files  int                 // source and corpus files read
}

// corpusUse says where a fuzz target's inputs go: "pgwire" and "mysql"
// take strings as statements and bytes as raw input, "body" are the
// HTTP API's request bodies, "name" schema and sequence names. A target
// not listed gives raw bytes to every protocol.
var corpusUse = map[string]string{
	"FuzzProtocol": "pgwire", "FuzzParse": "pgwire", "FuzzDepth": "pgwire", "FuzzExecute": "pgwire",
	"FuzzTranslate": "mysql", "FuzzParseClientHandshakePacket": "mysql",
	"FuzzRequestBody": "body", "FuzzNames": "name",
}

// loadCorpus reads the seeds under root; with root "" or unreadable, the
// corpus holds only the built-in inputs.
func loadCorpus(root string) *hostileCorpus {
	c := &hostileCorpus{sql: map[string][]string{}, raw: map[string][][]byte{}}
	if root != "" {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
					return filepath.SkipDir
				}
				if filepath.Base(filepath.Dir(path)) == "fuzz" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "testdata" {
					c.readCorpusDir(path, name)
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, "_test.go") {
				c.readSeeds(path)
			}
			return nil
		})
	}
	c.sql["pgwire"] = append(c.sql["pgwire"], "select nextval('h_nocache')", "select setval('h_bulk', 1)", "select 1/0", "begin; select nextval('nope'); commit")
	c.sql["mysql"] = append(c.sql["mysql"], "SELECT NEXT VALUE FOR public.h_nocache", "SELECT SETVAL(public.h_bulk, 1)", "SELEC 1")
	c.bodies = append(c.bodies, `{"count": "100001"}`, `{"count": "-1"}`, `{"first": "9", "last": "1"}`, `{`)
	c.names = append(c.names, "", strings.Repeat("n", 64), "h_nocache\x00", "..", "%2e%2e")
	return c
}

// readCorpusDir reads testdata/fuzz/<target>'s files ("go test fuzz v1"
// and one Go literal a line).
func (c *hostileCorpus) readCorpusDir(dir, target string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || e.IsDir() {
			continue
		}
		c.files++
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			for _, prefix := range []string{"string(", "[]byte("} {
				if inner, ok := strings.CutPrefix(line, prefix); ok && strings.HasSuffix(inner, ")") {
					if s, err := strconv.Unquote(strings.TrimSuffix(inner, ")")); err == nil {
						c.add(target, prefix == "[]byte(", s)
					}
				}
			}
		}
	}
}

// readSeeds collects the literals of the fuzz targets in one test file.
func (c *hostileCorpus) readSeeds(path string) {
	src, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(src, []byte("func Fuzz")) {
		return
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return
	}
	c.files++
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") {
			continue
		}
		target := fn.Name.Name
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" {
					for _, arg := range n.Args {
						c.collect(target, arg)
					}
				}
			case *ast.RangeStmt:
				switch x := n.X.(type) {
				case *ast.CompositeLit:
					c.collect(target, x)
				case *ast.Ident:
					if v := packageVar(filepath.Dir(path), x.Name); v != nil {
						c.collect(target, v)
					}
				}
			}
			return true
		})
	}
}

// packageVar is the value of the package-level var name declared in a
// Go file of dir, or nil.
func packageVar(dir, name string) ast.Expr {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(src, []byte(name)) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if id.Name == name && i < len(vs.Values) {
						return vs.Values[i]
					}
				}
			}
		}
	}
	return nil
}

// collect adds the string literals under e, and each composite literal
// of integers as bytes; function literals are skipped (their strings
// are code, not inputs).
func (c *hostileCorpus) collect(target string, e ast.Node) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil {
					c.add(target, false, s)
				}
			}
		case *ast.CompositeLit:
			if b, ok := intBytes(n); ok {
				c.add(target, true, string(b))
				return false
			}
		}
		return true
	})
}

// intBytes is a composite literal of integer literals as bytes.
func intBytes(cl *ast.CompositeLit) ([]byte, bool) {
	if len(cl.Elts) == 0 {
		return nil, false
	}
	var out []byte
	for _, e := range cl.Elts {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return nil, false
		}
		v, err := strconv.ParseUint(lit.Value, 0, 8)
		if err != nil {
			return nil, false
		}
		out = append(out, byte(v))
	}
	return out, true
}

func (c *hostileCorpus) add(target string, isBytes bool, s string) {
	switch use := corpusUse[target]; use {
	case "pgwire", "mysql":
		if isBytes {
			c.raw[use] = append(c.raw[use], []byte(s))
		} else {
			c.sql[use] = append(c.sql[use], s)
		}
	case "body":
		c.bodies = append(c.bodies, s)
	case "name":
		c.names = append(c.names, s)
	default:
		c.raw["any"] = append(c.raw["any"], []byte(s))
	}
}

func (c *hostileCorpus) summary() string {
	n := len(c.bodies) + len(c.names)
	for _, v := range c.sql {
		n += len(v)
	}
	for _, v := range c.raw {
		n += len(v)
	}
	return fmt.Sprintf("%d fuzz seeds from %d files", n, c.files)
}
