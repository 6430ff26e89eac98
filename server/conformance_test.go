package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/frontend/frontendtest"
	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/internal/selfsigned"
)

// TestFrontEndConformance runs the front-end conformance suite against
// every listener seqd has: PostgreSQL's protocol, MySQL's, the HTTP API,
// gRPC, and the metrics and health listener.
func TestFrontEndConformance(t *testing.T) {
	frontendtest.Run(t, startConformance)
}

// runaway is a statement that would run for hours.
const runaway = "select count(*) from generate_series(1, 200000) a, generate_series(1, 200000) b"

func startConformance(t *testing.T, o frontendtest.Options) *frontendtest.Target {
	ctx := context.Background()
	dir := t.TempDir()
	cert, key, err := selfsigned.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{DataDir: filepath.Join(dir, "d"), Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0", APIListen: "127.0.0.1:0",
		GRPCListen: "127.0.0.1:0", HTTP: "127.0.0.1:0", Auth: "scram-sha-256", Password: "pw",
		MySQLDefaultAuth: "caching_sha2_password", // MySQL 8's: its full authentication is where roles leaked
		MaxConns:         o.MaxConns, ReservedConns: o.ReservedConns, AuthTimeout: o.AuthTimeout, TLSRequired: o.TLSRequired,
		Logger: log.New(io.Discard, "", 0)}
	useTLS := o.TLS || o.TLSRequired
	if useTLS { // with a certificate the APIs serve TLS alone
		cfg.TLSCert, cfg.TLSKey = cert, key
	}
	cfg.IdleTimeout = o.IdleTimeout
	if o.StatementTimeout > 0 {
		cfg.SessionDefaults = map[string]string{"statement_timeout": strconv.Itoa(int(o.StatementTimeout.Milliseconds()))}
	}
	srv, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(ctx) })
	cs := conformanceServer{srv: srv, useTLS: useTLS, clientTLS: &tls.Config{InsecureSkipVerify: true}}
	cs.createRolesAndSequences(t)
	return &frontendtest.Target{
		Protocols: []frontendtest.Protocol{cs.pgProtocol(), cs.mysqlProtocol(), cs.httpProtocol(), cs.grpcProtocol(), cs.metricsProtocol()},
		Admitted:  srv.pg.Registry().Admitted,
		Evictable: srv.pg.Registry().Evictable,
		HeapAlloc: func() uint64 {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			return ms.HeapAlloc
		},
		TLS:       useTLS,
		Stopped:   cs.stopped,
		Superuser: "seqd", Password: "pw",
	}
}

// conformanceServer is a server started for the front-end conformance
// suite, and how its clients reach it: with TLS when useTLS, trusting
// any certificate (clientTLS).
type conformanceServer struct {
	srv       *Server
	useTLS    bool
	clientTLS *tls.Config
}

func (cs conformanceServer) pgDSN(user, password string, useTLS bool) string {
	mode := "disable"
	if useTLS {
		mode = "require"
	}
	return fmt.Sprintf("postgres://%s:%s@%s/db?sslmode=%s&connect_timeout=10", user, password, cs.srv.Addr(), mode)
}

// createRolesAndSequences makes what the suite uses: sequences s and
// slow, a role app with usage on s, and a role nologin; and waits for
// the session that made them to leave.
func (cs conformanceServer) createRolesAndSequences(t *testing.T) {
	ctx := context.Background()
	setup, err := pgx.Connect(ctx, cs.pgDSN("seqd", "pw", cs.useTLS))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"create sequence s", "create sequence slow",
		"create role app login password '" + frontendtest.AppPassword + "'", "grant usage, select on sequence s to app",
		"create role nologin password '" + frontendtest.AppPassword + "'",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	setup.Close(ctx)
	for cs.srv.pg.Registry().Admitted() > 0 { // the server sees the close a moment later
		time.Sleep(time.Millisecond)
	}
}

// stopped says whether the server stopped or its store failed.
func (cs conformanceServer) stopped() error {
	select {
	case err := <-cs.srv.Done():
		return fmt.Errorf("stopped: %v", err)
	default:
	}
	if e := cs.srv.storeErr.Load(); e != nil {
		return *e
	}
	return nil
}

func (cs conformanceServer) pgProtocol() frontendtest.Protocol {
	return frontendtest.Protocol{Name: "pgwire", Addr: cs.srv.Addr().String(),
		// A startup message's length and protocol version.
		Hello: []byte{0, 0, 0, 40, 0, 3, 0, 0},
		Login: func(ctx context.Context, user, password string, useTLS bool) (frontendtest.Session, error) {
			c, err := pgx.Connect(ctx, cs.pgDSN(user, password, useTLS))
			if err != nil {
				return nil, err
			}
			return pgSession{c}, nil
		},
		Unread:       cs.pgUnread,
		ClosesUnread: true,
		Sessions:     true,
		Kind:         pgKind,
	}
}

// pgUnread: five million rows, far more than the sockets' buffers hold,
// not one of them read past the first.
func (cs conformanceServer) pgUnread(ctx context.Context, user, password string) (frontendtest.Stall, error) {
	c, err := pgx.Connect(ctx, cs.pgDSN(user, password, cs.useTLS))
	if err != nil {
		return nil, err
	}
	if _, err := c.Query(ctx, "select * from generate_series(1, 5000000)"); err != nil {
		c.Close(ctx)
		return nil, err
	}
	return rawStall{c.PgConn().Conn()}, nil
}

func (cs conformanceServer) mysqlProtocol() frontendtest.Protocol {
	return frontendtest.Protocol{Name: "mysql", Addr: cs.srv.MySQLAddr().String(),
		Login:        cs.mysqlLogin,
		Unread:       cs.mysqlUnread,
		ClosesUnread: true,
		Sessions:     true,
		Kind:         myKind,
	}
}

func (cs conformanceServer) mysqlLogin(ctx context.Context, user, password string, useTLS bool) (frontendtest.Session, error) {
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr, mc.DBName = user, password, "tcp", cs.srv.MySQLAddr().String(), "public"
	mc.Timeout = 10 * time.Second
	if useTLS {
		mc.TLS = cs.clientTLS
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &mySession{db: db, c: c, pgDSN: cs.pgDSN("seqd", "pw", useTLS)}, nil
}

// mysqlUnread: MySQL's commands one after another, never read: each of
// MySQL's statements answers little (seqd's dialect has no large
// result), so the stall is a long pipeline.
func (cs conformanceServer) mysqlUnread(ctx context.Context, user, password string) (frontendtest.Stall, error) {
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr, mc.DBName = user, password, "tcp", cs.srv.MySQLAddr().String(), "public"
	var nc net.Conn
	mc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		nc = c
		return c, err
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	defer c.Close() // nc stays open: the driver is done with it, and the stall closes it
	if err := c.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	query := "SHOW VARIABLES"
	packet := append([]byte{byte(len(query) + 1), 0, 0, 0, 3}, query...) // COM_QUERY, sequence 0
	batch := bytes.Repeat(packet, 1000)
	nc.SetWriteDeadline(time.Now().Add(2 * time.Second))
	for {
		if _, err := nc.Write(batch); err != nil {
			break // the buffers full: the server answers no more
		}
	}
	nc.SetWriteDeadline(time.Time{})
	return rawStall{nc}, nil
}

func (cs conformanceServer) httpProtocol() frontendtest.Protocol {
	return frontendtest.Protocol{Name: "http", Addr: cs.srv.APIAddr().String(), Hello: []byte("POST /v1/sequences/public/s/nextval HTTP/1.1\r\n"),
		Login:  cs.httpLogin,
		Unread: cs.httpUnread,
		Kind:   httpKind,
	}
}

func (cs conformanceServer) httpLogin(ctx context.Context, user, password string, useTLS bool) (frontendtest.Session, error) {
	scheme := "http"
	tr := &http.Transport{MaxConnsPerHost: 1}
	if useTLS {
		scheme, tr.TLSClientConfig = "https", cs.clientTLS
	}
	s := &httpSession{base: scheme + "://" + cs.srv.APIAddr().String(), user: user, password: password, c: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
	if useTLS {
		// HTTP/2, as a client over TLS speaks it.
		tr.ForceAttemptHTTP2 = true
	}
	// The API authenticates each request: this one checks the
	// credentials now, as a login would.
	_, err := s.Nextval(ctx, "s")
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// httpUnread: HTTP/2 streams, as many as a connection may have, each
// for the most values a call takes, and a window of 0.
func (cs conformanceServer) httpUnread(ctx context.Context, user, password string) (frontendtest.Stall, error) {
	nc, err := tls.Dial("tcp", cs.srv.APIAddr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		return nil, err
	}
	body := []byte(`{"count": "100000"}`)
	return h2Unread(nc, "https", "/v1/sequences/public/s/nextval", [][2]string{
		{"authorization", basic(user, password)}, {"content-type", "application/json"},
		{"content-length", strconv.Itoa(len(body))}}, body, 100)
}

func (cs conformanceServer) grpcProtocol() frontendtest.Protocol {
	return frontendtest.Protocol{Name: "grpc", Addr: cs.srv.GRPCAddr().String(), Hello: []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
		Login:  cs.grpcLogin,
		Unread: cs.grpcUnread,
		Kind:   grpcKind,
	}
}

func (cs conformanceServer) grpcLogin(ctx context.Context, user, password string, useTLS bool) (frontendtest.Session, error) {
	creds := insecure.NewCredentials()
	if useTLS {
		creds = credentials.NewTLS(cs.clientTLS)
	}
	cc, err := grpc.NewClient(cs.srv.GRPCAddr().String(), grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	s := &grpcSession{cc: cc, c: seqdv1.NewSequencesClient(cc),
		auth: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))}
	if _, err := s.Nextval(ctx, "s"); err != nil {
		cc.Close()
		return nil, err
	}
	return s, nil
}

// grpcUnread: HTTP/2 streams of Next for the most values a call takes,
// and a window of 0.
func (cs conformanceServer) grpcUnread(ctx context.Context, user, password string) (frontendtest.Stall, error) {
	var nc net.Conn
	var err error
	if cs.useTLS {
		nc, err = tls.Dial("tcp", cs.srv.GRPCAddr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	} else {
		nc, err = net.Dial("tcp", cs.srv.GRPCAddr().String())
	}
	if err != nil {
		return nil, err
	}
	m, err := proto.Marshal(&seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Name: "s"}, Count: apicore.MaxValues})
	if err != nil {
		return nil, err
	}
	body := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(m))) // not compressed, its length
	return h2Unread(nc, "http", "/seqd.v1.Sequences/Next", [][2]string{
		{"authorization", basic(user, password)}, {"content-type", "application/grpc"}, {"te", "trailers"}},
		append(body, m...), 256)
}

func (cs conformanceServer) metricsProtocol() frontendtest.Protocol {
	return frontendtest.Protocol{Name: "metrics", Addr: cs.srv.HTTPAddr().String(), Hello: []byte("GET /metrics HTTP/1.1\r\n"), OwnBudget: metricsConns,
		Probe: cs.probeReady,
		Kind:  func(error) frontendtest.Kind { return frontendtest.Other },
	}
}

// probeReady asks /readyz, on a connection of its own.
func (cs conformanceServer) probeReady(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+cs.srv.HTTPAddr().String()+"/readyz", nil)
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz: %s", resp.Status)
	}
	return nil
}

// rawStall is a connection whose peer reads nothing.
type rawStall struct{ nc net.Conn }

func (s rawStall) Closed(d time.Duration) error {
	s.nc.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, s.nc)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("still open after %v", d)
	}
	return nil // EOF, reset: closed
}
func (s rawStall) Close() error { return s.nc.Close() }

// h2Unread starts HTTP/2 on nc, sends streams requests (the headers
// given besides the pseudo-headers, and body) and reads no answer: the
// server's settings are acknowledged (a server closes a connection that
// does not), and each stream's window is 0, so that nothing of an
// answer can be sent.
func h2Unread(nc net.Conn, scheme, path string, header [][2]string, body []byte, streams int) (frontendtest.Stall, error) {
	fail := func(err error) (frontendtest.Stall, error) {
		nc.Close()
		return nil, err
	}
	if _, err := io.WriteString(nc, http2.ClientPreface); err != nil {
		return fail(err)
	}
	fr := http2.NewFramer(nc, nc)
	if err := fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0}); err != nil {
		return fail(err)
	}
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return fail(err)
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			if err := fr.WriteSettingsAck(); err != nil {
				return fail(err)
			}
			break
		}
	}
	nc.SetReadDeadline(time.Time{})
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	fields := append([][2]string{{":method", "POST"}, {":scheme", scheme}, {":path", path}, {":authority", "seqd"}}, header...)
	for i := range streams {
		hb.Reset()
		for _, f := range fields {
			enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		id := uint32(2*i + 1)
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true}); err != nil {
			return fail(err)
		}
		if err := fr.WriteData(id, true, body); err != nil {
			return fail(err)
		}
	}
	return rawStall{nc}, nil
}

// basic is an HTTP Basic authorization.
func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

type pgSession struct{ c *pgx.Conn }

func (s pgSession) Nextval(ctx context.Context, seq string) (v int64, err error) {
	err = s.c.QueryRow(ctx, "select nextval($1)", seq).Scan(&v)
	return v, err
}
func (s pgSession) Slow(ctx context.Context) error {
	_, err := s.c.Exec(ctx, runaway)
	return err
}
func (s pgSession) Oversize(ctx context.Context) error {
	_, err := s.c.Exec(ctx, "select '"+strings.Repeat("x", 2<<20)+"'")
	return err
}
func (s pgSession) Close() error { return s.c.Close(context.Background()) }

func pgKind(err error) frontendtest.Kind {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return frontendtest.Other
	}
	switch pe.Code {
	case "53300":
		return frontendtest.TooMany
	case "28P01", "28000":
		return frontendtest.AuthFailed
	case "54000":
		return frontendtest.TooLarge
	case "57014":
		return frontendtest.Canceled
	}
	return frontendtest.Other
}

type mySession struct {
	db    *sql.DB
	c     *sql.Conn
	pgDSN string // the superuser's, to hold a lock
}

func (s *mySession) Nextval(ctx context.Context, seq string) (v int64, err error) {
	err = s.c.QueryRowContext(ctx, "SELECT NEXTVAL("+seq+")").Scan(&v)
	return v, err
}

// Slow waits for a sequence another session holds locked (MySQL's dialect
// has no runaway query as cheap to write).
func (s *mySession) Slow(ctx context.Context) error {
	holder, err := pgx.Connect(context.Background(), s.pgDSN)
	if err != nil {
		return err
	}
	defer holder.Close(context.Background())
	if _, err := holder.Exec(context.Background(), "begin; alter sequence slow increment 1"); err != nil {
		return err
	}
	var v int64
	return s.c.QueryRowContext(ctx, "SELECT NEXTVAL(slow)").Scan(&v)
}
func (s *mySession) Oversize(ctx context.Context) error {
	_, err := s.c.ExecContext(ctx, "SELECT '"+strings.Repeat("x", 2<<20)+"'")
	return err
}
func (s *mySession) Close() error {
	s.c.Close()
	return s.db.Close()
}

func myKind(err error) frontendtest.Kind {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return frontendtest.Other
	}
	switch me.Number {
	case 1040:
		return frontendtest.TooMany
	case 1045:
		return frontendtest.AuthFailed
	case 1153:
		return frontendtest.TooLarge
	case 1317:
		return frontendtest.Canceled
	}
	return frontendtest.Other
}

type httpSession struct {
	base, user, password string
	c                    *http.Client
}

// httpError is a problem the API answered.
type httpError struct {
	status int
	body   string
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s", e.status, e.body) }

func (s *httpSession) post(ctx context.Context, path, body string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", s.base+path, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(s.user, s.password)
	resp, err := s.c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return "", &httpError{resp.StatusCode, strings.TrimSpace(string(b))}
	}
	return string(b), nil
}

func (s *httpSession) Nextval(ctx context.Context, seq string) (int64, error) {
	b, err := s.post(ctx, "/v1/sequences/public/"+seq+"/nextval", "")
	if err != nil {
		return 0, err
	}
	_, v, _ := strings.Cut(b, `["`)
	v, _, _ = strings.Cut(v, `"`)
	return strconv.ParseInt(v, 10, 64)
}
func (s *httpSession) Slow(context.Context) error { return frontendtest.ErrNoStatements }
func (s *httpSession) Oversize(ctx context.Context) error {
	_, err := s.post(ctx, "/v1/sequences/public/s/reserve", `{"count": "1", "pad": "`+strings.Repeat("x", 2<<20)+`"}`)
	return err
}
func (s *httpSession) Close() error {
	s.c.CloseIdleConnections()
	return nil
}

func httpKind(err error) frontendtest.Kind {
	var he *httpError
	if !errors.As(err, &he) {
		return frontendtest.Other
	}
	switch {
	case strings.Contains(he.body, `"53300"`):
		return frontendtest.TooMany
	case he.status == http.StatusUnauthorized:
		return frontendtest.AuthFailed
	case he.status == http.StatusRequestEntityTooLarge:
		return frontendtest.TooLarge
	case strings.Contains(he.body, `"57014"`):
		return frontendtest.Canceled
	}
	return frontendtest.Other
}

type grpcSession struct {
	cc   *grpc.ClientConn
	c    seqdv1.SequencesClient
	auth string
}

func (s *grpcSession) Nextval(ctx context.Context, seq string) (int64, error) {
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", s.auth)
	r, err := s.c.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Name: seq}})
	if err != nil {
		return 0, err
	}
	return r.GetValues()[0], nil
}
func (s *grpcSession) Slow(context.Context) error { return frontendtest.ErrNoStatements }
func (s *grpcSession) Oversize(ctx context.Context) error {
	_, err := s.Nextval(ctx, strings.Repeat("x", 2<<20))
	return err
}
func (s *grpcSession) Close() error { return s.cc.Close() }

func grpcKind(err error) frontendtest.Kind {
	st, ok := status.FromError(err)
	if !ok {
		return frontendtest.Other
	}
	switch {
	case strings.Contains(st.Message(), "too many clients"), strings.Contains(st.Message(), "slots are reserved"):
		return frontendtest.TooMany
	case st.Code() == codes.Unauthenticated:
		return frontendtest.AuthFailed
	case st.Code() == codes.ResourceExhausted && strings.Contains(st.Message(), "larger than max"):
		return frontendtest.TooLarge
	case st.Code() == codes.Canceled || st.Code() == codes.DeadlineExceeded:
		return frontendtest.Canceled
	}
	return frontendtest.Other
}
