package torture

// The hostile soak's ordinary clients: each protocol's usual client
// library, as the role app, drawing one value at a time from the run's
// sequences for the whole run, reconnecting and retrying with backoff
// whenever a call fails. Every value is kept for the distinctness
// check, and every draw's latency (a failed one's too) in the
// histogram of the phase it began in.

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// Bounds on an ordinary client's loops besides the run's end.
const (
	maxClientConnects = 1_000_000
	maxClientDraws    = 100_000_000
)

// hostileClients are the run's ordinary clients.
type hostileClients struct {
	wg  sync.WaitGroup
	mu  sync.Mutex // guards all's length (the probes append)
	all []*hostileClient
}

// hostileClient is one ordinary client's record. Only its own goroutine
// writes it; it is read once that goroutine has ended.
type hostileClient struct {
	proto  string
	id     int
	values map[string][]int64 // by sequence, in the order drawn
	ph     [phases]clientPhase
	delay  time.Duration // the backoff's next wait
}

type clientPhase struct {
	lat                                    *hdrhistogram.Histogram // microseconds
	draws, drawErrs, connects, connectErrs int
	errs                                   map[string]int // by errClass
}

func newHostileClient(proto string, id int) *hostileClient {
	c := &hostileClient{proto: proto, id: id, values: map[string][]int64{}}
	for i := range c.ph {
		c.ph[i] = clientPhase{lat: hdrhistogram.New(1, 60_000_000, 3), errs: map[string]int{}}
	}
	return c
}

// drew records one draw of seq begun in phase.
func (c *hostileClient) drew(r *hostileRun, phase int32, seq string, v int64, took time.Duration, err error) {
	p := &c.ph[phase]
	p.draws++
	p.lat.RecordValue(min(max(took.Microseconds(), 1), 60_000_000))
	if err != nil {
		p.drawErrs++
		p.errs[errClass(err)]++
		return
	}
	c.values[seq] = append(c.values[seq], v)
	r.drawn.Add(1)
	c.delay = 0
}

// connected records one connection attempt begun in phase.
func (c *hostileClient) connected(phase int32, err error) {
	p := &c.ph[phase]
	p.connects++
	if err != nil {
		p.connectErrs++
		p.errs["connect: "+errClass(err)]++
	}
}

// backoff waits before the next attempt after a failure: 10 ms, doubling
// to a second; false if stop closed.
func (c *hostileClient) backoff(stop <-chan struct{}) bool {
	c.delay = min(max(2*c.delay, 10*time.Millisecond), time.Second)
	return pause(stop, c.delay)
}

func (r *hostileRun) startClients(seed uint64, stop <-chan struct{}) *hostileClients {
	cs := &hostileClients{}
	rng := rand.New(rand.NewPCG(seed, 29))
	run := map[string]func(*hostileClient, *rand.Rand, <-chan struct{}){
		"pgwire": r.pgClient, "mysql": r.mysqlClient, "http": r.httpClient, "grpc": r.grpcClient}
	for _, proto := range hostileProtocols {
		for i := range r.cfg.Clients {
			c := newHostileClient(proto, len(cs.all))
			cs.all = append(cs.all, c)
			crng := rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))
			cs.wg.Add(1)
			go func() { defer cs.wg.Done(); run[proto](c, crng, stop) }()
		}
	}
	return cs
}

func pickSeq(rng *rand.Rand) string { return hostileSeqs[rng.IntN(len(hostileSeqs))].name }

func (r *hostileRun) pgClient(c *hostileClient, rng *rand.Rand, stop <-chan struct{}) {
	for range maxClientConnects {
		if stopped(stop) {
			return
		}
		phase := r.phase.Load()
		ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
		conn, err := pgx.Connect(ctx, r.pgDSN(hostileApp, hostileAppPW))
		cancel()
		c.connected(phase, err)
		if err != nil {
			c.backoff(stop)
			continue
		}
		for range maxClientDraws {
			if stopped(stop) || conn.IsClosed() {
				break
			}
			seq, phase := pickSeq(rng), r.phase.Load()
			ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
			start := time.Now()
			var v int64
			err := conn.QueryRow(ctx, "select nextval('"+seq+"')").Scan(&v)
			cancel()
			c.drew(r, phase, seq, v, time.Since(start), err)
			if err != nil {
				c.backoff(stop)
			}
		}
		ctx, cancel = context.WithTimeout(context.Background(), time.Second)
		conn.Close(ctx)
		cancel()
	}
}

// mysqlConnector is go-sql-driver/mysql's connector for role.
func (r *hostileRun) mysqlConnector(user, password string) *sql.DB {
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, password, "tcp", r.addrs["mysql"]
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = hostileCallTimeout, hostileCallTimeout, hostileCallTimeout
	cfg.MaxAllowedPacket = 4 << 20 // the attackers' oversized statements must leave the client
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		panic(err) // the configuration is the harness's own
	}
	db := sql.OpenDB(conn)
	db.SetMaxIdleConns(0)
	return db
}

// mysqlConn is a new connection of db, pinged.
func mysqlConn(db *sql.DB) (*sql.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	c, err := db.Conn(ctx)
	if err == nil {
		if err = c.PingContext(ctx); err != nil {
			c.Close()
		}
	}
	return c, err
}

func (r *hostileRun) mysqlClient(c *hostileClient, rng *rand.Rand, stop <-chan struct{}) {
	db := r.mysqlConnector(hostileApp, hostileAppPW)
	defer db.Close()
	for range maxClientConnects {
		if stopped(stop) {
			return
		}
		phase := r.phase.Load()
		conn, err := mysqlConn(db)
		c.connected(phase, err)
		if err != nil {
			c.backoff(stop)
			continue
		}
		for range maxClientDraws {
			if stopped(stop) {
				break
			}
			seq, phase := pickSeq(rng), r.phase.Load()
			ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
			start := time.Now()
			var v int64
			err := conn.QueryRowContext(ctx, "SELECT NEXT VALUE FOR public."+seq).Scan(&v)
			cancel()
			c.drew(r, phase, seq, v, time.Since(start), err)
			if err != nil {
				c.backoff(stop)
				var me *gomysql.MySQLError
				if !errors.As(err, &me) {
					break // the connection failed: a new one
				}
			}
		}
		conn.Close()
	}
}

// apiError is an HTTP API answer other than 200.
type apiError struct {
	status   int
	sqlstate string
}

func (e *apiError) Error() string { return fmt.Sprintf("HTTP %d %s", e.status, e.sqlstate) }

func (r *hostileRun) httpClient(c *hostileClient, rng *rand.Rand, stop <-chan struct{}) {
	hc := &http.Client{Timeout: hostileCallTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}}
	defer hc.CloseIdleConnections()
	for range maxClientDraws {
		if stopped(stop) {
			return
		}
		seq, phase := pickSeq(rng), r.phase.Load()
		start := time.Now()
		v, err := r.httpNext(hc, hostileApp, hostileAppPW, seq, 1)
		c.drew(r, phase, seq, v, time.Since(start), err)
		if err != nil {
			c.backoff(stop)
		}
	}
}

// httpNext takes count values of seq over the API as user and returns
// the first.
func (r *hostileRun) httpNext(hc *http.Client, user, password, seq string, count int) (int64, error) {
	req, err := http.NewRequest("POST", "http://"+r.addrs["http"]+"/v1/sequences/public/"+seq+"/nextval", nil)
	if err != nil {
		return 0, err
	}
	if count != 1 {
		req, _ = http.NewRequest("POST", req.URL.String(), strings.NewReader(fmt.Sprintf(`{"count": "%d"}`, count)))
	}
	req.SetBasicAuth(user, password)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Values   []json.Number
		SQLState string `json:"sqlstate"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&body)
	if resp.StatusCode != http.StatusOK {
		return 0, &apiError{resp.StatusCode, body.SQLState}
	}
	if err != nil {
		return 0, err
	}
	if len(body.Values) != count {
		return 0, fmt.Errorf("%d values for %d", len(body.Values), count)
	}
	return body.Values[0].Int64()
}

// basicCreds sends HTTP Basic credentials with every gRPC call (over
// plain text: the run is on loopback).
type basicCreds struct{ header string }

func newBasicCreds(user, password string) basicCreds {
	return basicCreds{"Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))}
}

func (b basicCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": b.header}, nil
}

func (basicCreds) RequireTransportSecurity() bool { return false }

// grpcDial is a client of the gRPC service as user, reconnecting after
// 50 ms to a second (gRPC's own default waits up to two minutes).
func (r *hostileRun) grpcDial(user, password string) (*grpc.ClientConn, seqdv1.SequencesClient, error) {
	conn, err := grpc.NewClient(r.addrs["grpc"], grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(newBasicCreds(user, password)),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: hostileCallTimeout}))
	if err != nil {
		return nil, nil, err
	}
	return conn, seqdv1.NewSequencesClient(conn), nil
}

func (r *hostileRun) grpcClient(c *hostileClient, rng *rand.Rand, stop <-chan struct{}) {
	conn, cl, err := r.grpcDial(hostileApp, hostileAppPW)
	if err != nil {
		c.connected(r.phase.Load(), err)
		return
	}
	defer conn.Close()
	for range maxClientDraws {
		if stopped(stop) {
			return
		}
		seq, phase := pickSeq(rng), r.phase.Load()
		start := time.Now()
		v, err := grpcNext(cl, seq, 1)
		c.drew(r, phase, seq, v, time.Since(start), err)
		if err != nil {
			c.backoff(stop)
		}
	}
}

// grpcNext takes count values of seq and returns the first.
func grpcNext(cl seqdv1.SequencesClient, seq string, count int64) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	var trailer metadata.MD
	resp, err := cl.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: seq}, Count: count}, grpc.Trailer(&trailer))
	if err != nil {
		if s := trailer.Get("seqd-sqlstate"); len(s) == 1 {
			return 0, fmt.Errorf("%w (SQLSTATE %s)", err, s[0])
		}
		return 0, err
	}
	if int64(len(resp.Values)) != max(count, 1) {
		return 0, fmt.Errorf("%d values for %d", len(resp.Values), count)
	}
	return resp.Values[0], nil
}

// probeAfter connects anew on every protocol once the attackers are
// gone and draws a value: within 15 s each must succeed.
func (r *hostileRun) probeAfter(cs *hostileClients) {
	probes := map[string]func(seq string) (int64, error){
		"pgwire": func(seq string) (int64, error) {
			ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
			defer cancel()
			c, err := pgx.Connect(ctx, r.pgDSN(hostileApp, hostileAppPW))
			if err != nil {
				return 0, err
			}
			defer c.Close(ctx)
			var v int64
			err = c.QueryRow(ctx, "select nextval('"+seq+"')").Scan(&v)
			return v, err
		},
		"mysql": func(seq string) (int64, error) {
			db := r.mysqlConnector(hostileApp, hostileAppPW)
			defer db.Close()
			ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
			defer cancel()
			var v int64
			err := db.QueryRowContext(ctx, "SELECT NEXT VALUE FOR public."+seq).Scan(&v)
			return v, err
		},
		"http": func(seq string) (int64, error) {
			hc := &http.Client{Timeout: hostileCallTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
			return r.httpNext(hc, hostileApp, hostileAppPW, seq, 1)
		},
		"grpc": func(seq string) (int64, error) {
			conn, cl, err := r.grpcDial(hostileApp, hostileAppPW)
			if err != nil {
				return 0, err
			}
			defer conn.Close()
			return grpcNext(cl, seq, 1)
		},
	}
	for _, proto := range hostileProtocols {
		c := newHostileClient(proto, -1)
		seq := hostileSeqs[0].name
		var last error
		for range 15 {
			start := time.Now()
			v, err := probes[proto](seq)
			c.drew(r, phaseAfter, seq, v, time.Since(start), err)
			if last = err; err == nil {
				break
			}
			time.Sleep(time.Second)
		}
		if last != nil {
			r.fail(fmt.Sprintf("after the attacks, no new %s connection drew a value in 15 tries: %v", proto, last))
		}
		cs.mu.Lock()
		cs.all = append(cs.all, c)
		cs.mu.Unlock()
	}
}

// errClass is what kind of failure err is, in few enough words to count:
// the SQLSTATE, MySQL error number, HTTP status or gRPC code the server
// answered, or how the connection failed.
func errClass(err error) string {
	var pe *pgconn.PgError
	var me *gomysql.MySQLError
	var ae *apiError
	switch {
	case errors.As(err, &pe):
		return "SQLSTATE " + pe.Code
	case errors.As(err, &me):
		return fmt.Sprintf("MySQL %d", me.Number)
	case errors.As(err, &ae):
		return ae.Error()
	}
	if s, ok := status.FromError(err); ok {
		return "gRPC " + s.Code().String()
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, gomysql.ErrInvalidConn):
		return "connection closed"
	}
	return "other: " + fmt.Sprintf("%T", err)
}

// muteMySQLDriver sends go-sql-driver/mysql's log of broken
// connections, of which the attacks make many, to w.
func muteMySQLDriver(w io.Writer) {
	gomysql.SetLogger(log.New(w, "go-sql-driver: ", log.LstdFlags))
}
