package pgwire

import (
	"bufio"
	"cmp"
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/storage/embedded"
	"github.com/seqd/seqd/storage/faultfs"
)

// catalogueRow is one row of docs/errors.md.
type catalogueRow struct{ input, code, msg string }

func readCatalogue(t *testing.T) []catalogueRow {
	f, err := os.Open("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []catalogueRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Input") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 3 {
			t.Fatalf("errors.md: row %q has %d cells", line, len(cells))
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, catalogueRow{cells[0], cells[1], strings.ReplaceAll(cells[2], `\|`, "|")})
	}
	if len(rows) < 30 {
		t.Fatalf("errors.md: only %d rows", len(rows))
	}
	return rows
}

// catalogueSetup is what every SQL row of docs/errors.md runs against
// (the role on its own: role commands run outside transactions).
var catalogueSetup = []string{"create sequence s; create sequence lim maxvalue 2 start 2; select nextval('lim')", "create user dup_u"}

// TestErrorCatalogue runs every row of docs/errors.md: a row whose input
// is SQL in backticks runs on a fresh connection to a server (-max-bulk-rows
// 1000) holding catalogueSetup's sequences; any other row names a scenario
// below. Each must give exactly the row's SQLSTATE and message, and the
// server must still serve another connection afterwards.
func TestErrorCatalogue(t *testing.T) {
	dsn, _ := startServerWith(t, Config{MaxBulkRows: 1000})
	ctx := context.Background()
	admin := mustConnect(t, dsn, catalogueSetup...)
	for _, row := range readCatalogue(t) {
		t.Run(row.input, func(t *testing.T) {
			var code, msg string
			if q, ok := strings.CutPrefix(row.input, "`"); ok {
				c, err := pgx.Connect(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close(ctx)
				_, err = c.Exec(ctx, strings.TrimSuffix(q, "`"), pgx.QueryExecModeSimpleProtocol)
				code, msg = pgCode(err)
			} else {
				sc := scenarios[row.input]
				if sc == nil {
					t.Fatalf("no scenario for %q", row.input)
				}
				code, msg = sc(t, dsn)
			}
			want := row.msg
			if prefix, ok := strings.CutSuffix(want, "..."); ok && strings.HasPrefix(msg, prefix) {
				want = msg
			}
			if code != row.code || msg != want {
				t.Errorf("got %s %q\nwant %s %q", code, msg, row.code, row.msg)
			}
			var v int64
			if err := admin.QueryRow(ctx, "select nextval('s')").Scan(&v); err != nil {
				t.Fatalf("the server after this error: %v", err)
			}
		})
	}
}

// rawError sends msgs after startup on a raw connection and returns the
// first error's code and message.
func rawError(t *testing.T, dsn string, msgs ...pgproto3.FrontendMessage) (string, string) {
	c := dialRaw(t, dsn)
	c.send(msgs...)
	return firstError(c)
}

func firstError(c *rawClient) (string, string) {
	for {
		m, err := c.fe.Receive()
		if err != nil {
			return "", "no error before: " + err.Error()
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			return e.Code, e.Message
		}
	}
}

func rawBytes(t *testing.T, dsn string, b []byte) (string, string) {
	c := dialRaw(t, dsn)
	c.nc.Write(b)
	return firstError(c)
}

var scenarios = map[string]func(t *testing.T, dsn string) (string, string){
	"protocol: a message of an unknown type": func(t *testing.T, dsn string) (string, string) {
		return rawBytes(t, dsn, []byte{'z', 0, 0, 0, 4})
	},
	"protocol: a length shorter than its own 4 bytes": func(t *testing.T, dsn string) (string, string) {
		return rawBytes(t, dsn, []byte{'Q', 0, 0, 0, 2})
	},
	"protocol: a message longer than -max-statement-bytes": func(t *testing.T, dsn string) (string, string) {
		dsn, _ = startServerWith(t, Config{MaxMessage: 1000})
		return rawError(t, dsn, &pgproto3.Query{String: strings.Repeat(" ", 2000)})
	},
	"statement: an expression nested deeper than 1000 levels": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Query{String: "select 1" + strings.Repeat("+1", 30000)})
	},
	"protocol: Bind with the wrong number of parameters": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Parse{Query: "select nextval($1)"}, &pgproto3.Bind{}, &pgproto3.Sync{})
	},
	"protocol: Bind to a prepared statement that does not exist": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Bind{PreparedStatement: "nope"}, &pgproto3.Sync{})
	},
	"protocol: Execute of a portal that does not exist": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Execute{Portal: "nope"}, &pgproto3.Sync{})
	},
	"protocol: Parse of a named statement that exists": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Parse{Name: "p", Query: "select 1"}, &pgproto3.Parse{Name: "p", Query: "select 1"}, &pgproto3.Sync{})
	},
	"protocol: Parse of two statements": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Parse{Query: "select nextval('s'); select 1"}, &pgproto3.Sync{})
	},
	"protocol: a text parameter that is not an integer": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Parse{Query: "select setval('s', $1)"}, &pgproto3.Bind{Parameters: [][]byte{[]byte("ten")}}, &pgproto3.Sync{})
	},
	"protocol: a binary parameter of the wrong size": func(t *testing.T, dsn string) (string, string) {
		return rawError(t, dsn, &pgproto3.Parse{Query: "select setval('s', $1)"}, &pgproto3.Bind{ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{1, 2, 3}}}, &pgproto3.Sync{})
	},
	"connection: one more than -max-connections": func(t *testing.T, dsn string) (string, string) {
		dsn, _ = startServerWith(t, Config{MaxConns: 1})
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		_, err = pgx.Connect(context.Background(), dsn)
		return pgCode(err)
	},
	"connection: silent for -idle-timeout": func(t *testing.T, dsn string) (string, string) {
		dsn, _ = startServerWith(t, Config{IdleTimeout: 100 * time.Millisecond})
		return firstError(dialRaw(t, dsn))
	},
	"connection: a CancelRequest for the running statement": func(t *testing.T, dsn string) (string, string) {
		dsn, _ = startServerWith(t, Config{})
		ctx := context.Background()
		c, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		c.Exec(ctx, "create sequence big").Close()
		rr := c.ExecParams(ctx, "select nextval('big') from generate_series(1, 1000000)", nil, nil, nil, nil)
		rr.NextRow()
		if err := c.CancelRequest(ctx); err != nil {
			t.Fatal(err)
		}
		for rr.NextRow() {
		}
		_, err = rr.Close()
		return pgCode(err)
	},
	"session: a statement after an error inside BEGIN": func(t *testing.T, dsn string) (string, string) {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		c.Exec(ctx, "begin")
		c.Exec(ctx, "select nextval('nope')")
		_, err = c.Exec(ctx, "select nextval('s')")
		return pgCode(err)
	},
	"session: two blocks that each wait for a sequence the other altered": func(t *testing.T, dsn string) (string, string) {
		ctx := context.Background()
		a := mustConnect(t, dsn, "create sequence dl1; create sequence dl2")
		b := mustConnect(t, dsn)
		for _, x := range []struct {
			c *pgx.Conn
			q string
		}{{a, "alter sequence dl1 cache 2"}, {b, "alter sequence dl2 cache 2"}} {
			if _, err := x.c.Exec(ctx, "begin"); err != nil {
				t.Fatal(err)
			}
			if _, err := x.c.Exec(ctx, x.q); err != nil {
				t.Fatal(err)
			}
		}
		// Whichever closes the cycle fails, and its block's locks go
		// with the failure, so the other's statement then succeeds.
		errs := make(chan error, 2)
		go func() { _, err := a.Exec(ctx, "alter sequence dl2 cache 3"); errs <- err }()
		go func() { _, err := b.Exec(ctx, "alter sequence dl1 cache 3"); errs <- err }()
		err := cmp.Or(<-errs, <-errs)
		a.Exec(ctx, "rollback")
		b.Exec(ctx, "rollback")
		return pgCode(err)
	},
	"session: COMMIT of a block that altered a role another session altered since": func(t *testing.T, dsn string) (string, string) {
		ctx := context.Background()
		a := mustConnect(t, dsn, "create role rc", "begin", "alter role rc login")
		mustConnect(t, dsn, "alter role rc superuser")
		_, err := a.Exec(ctx, "commit")
		return pgCode(err)
	},
	"server: shut down": func(t *testing.T, dsn string) (string, string) {
		dsn, srv := startServerWith(t, Config{})
		c := dialRaw(t, dsn)
		srv.Shutdown(context.Background())
		return firstError(c)
	},
	"store: a write or fsync fails": func(t *testing.T, dsn string) (string, string) {
		fs, c := faultServer(t, dsn)
		fs.Inject(faultfs.Sync, syscall.EIO, 1)
		c.send(&pgproto3.Query{String: "select nextval('f')"})
		return firstError(c)
	},
	"store: less free on its file system than -min-free-space": func(t *testing.T, dsn string) (string, string) {
		fs, c := faultServer(t, dsn)
		fs.SetFull(true)
		c.send(&pgproto3.Query{String: "select nextval('f')"})
		return firstError(c)
	},
}

// faultServer serves a new store, holding sequence f, on a
// fault-injecting file system, and returns it and a connection.
func faultServer(t *testing.T, dsn string) (*faultfs.FS, *rawClient) {
	fs, path, err := faultfs.Open(filepath.Join(t.TempDir(), "data"), 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := embedded.Open(path, embedded.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(context.Background(), engine.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(Config{Engine: eng})
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()); eng.Close() })
	u, _ := url.Parse(dsn)
	u.Host = ln.Addr().String()
	c := dialRaw(t, u.String())
	c.send(&pgproto3.Query{String: "create sequence f"})
	c.until(&pgproto3.ReadyForQuery{})
	return fs, c
}
