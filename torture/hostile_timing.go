package torture

// The hostile soak's login timing: once the attackers and the ordinary
// clients have stopped, so that the machine is as quiet as it gets, each
// authentication method the run's seqd offers (no TLS: SCRAM-SHA-256,
// mysql_native_password, caching_sha2_password's full authentication
// with RSA, HTTP Basic and gRPC's, bearer tokens over both) is tried
// with credentials that must fail, in each way they can fail (a role
// that does not exist, one without LOGIN given its own password, one
// without a password, a login role given a wrong password; a token of
// no role, of an ID its role does not hold, revoked, with a wrong
// secret, of a role without LOGIN), the kinds interleaved in random
// order and one attempt at a time; the time seqd takes to refuse each
// is compared across the kinds, which must be as indistinguishable in
// timing as they are on the wire. What is timed is the waits for seqd
// alone (from a message sent to its answer read, summed over the round
// trips of one login), not the connection's set-up nor the client's own
// work (SCRAM's key derivation, the RSA encryption).

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/xdg-go/scram"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// The login timing's roles: one without LOGIN that has a password (and
// a token made while it could log in), a login role without a password,
// and one holding the tokens.
const (
	timingNoLogin    = "h_nologin"
	timingNoLoginPW  = "hostile-nologin-pw"
	timingNoPassword = "h_nopassword"
	timingTokens     = "h_tokens"
	timingTokensPW   = "hostile-tokens-pw"
)

// loggedIn is the answer of an attempt that was let in.
const loggedIn = "LOGGED IN"

// HostileLoginTiming is one authentication method's failed logins, by
// the way they failed.
type HostileLoginTiming struct {
	Protocol, Method string
	Refusal          string // the answer every attempt must get
	Kinds            []HostileLoginKind
}

// HostileLoginKind is one way of failing to log in: how many attempts
// were made, what they were answered, and the time to the refusal of
// those refused as they must be.
type HostileLoginKind struct {
	Kind          string
	Attempts      int
	Answers       map[string]int
	P50, P90, Min time.Duration
}

// loginCreds are one attempt's credentials: a role and a password, or a
// bearer token.
type loginCreds struct{ user, password, token string }

// loginKind is one way of failing; creds makes an attempt's credentials
// (an unknown name, a new one each time).
type loginKind struct {
	name  string
	creds func(rng *mrand.Rand) loginCreds
}

// loginMethod is an authentication method of one listener: try makes
// one attempt on a new connection and returns the time seqd took to
// answer it and the answer ("SQLSTATE 28P01", "MySQL 1045", "HTTP 401",
// "gRPC Unauthenticated", or loggedIn).
type loginMethod struct {
	proto, name, refusal string
	kinds                []loginKind
	try                  func(loginCreds) (time.Duration, string, error)
}

// timingTokenSet are the tokens the bearer kinds present.
type timingTokenSet struct{ live, revoked, noLogin string }

// loginTiming is the run's login timing phase. REQUIRES: the attackers
// and the ordinary clients have stopped.
func (r *hostileRun) loginTiming(seed uint64) []HostileLoginTiming {
	tokens, err := r.timingSetup()
	if err != nil {
		r.fail(fmt.Sprintf("harness: the login timing's roles and tokens: %v", err))
		return nil
	}
	rng := mrand.New(mrand.NewPCG(seed, 37))
	var out []HostileLoginTiming
	for _, m := range r.loginMethods(tokens) {
		out = append(out, r.timeMethod(m, rng))
	}
	return out
}

// timingSetup makes the roles the attempts name: h_tokens holds a live
// token and a revoked one; h_nologin, a password and a token made
// before it lost LOGIN; h_nopassword may log in but has no password.
func (r *hostileRun) timingSetup() (timingTokenSet, error) {
	var ts timingTokenSet
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	su, err := pgx.Connect(ctx, r.pgDSN(hostileSuperuser, hostileSuperPW))
	if err != nil {
		return ts, err
	}
	defer su.Close(ctx)
	exec := func(c *pgx.Conn, q string) error {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		return nil
	}
	for _, q := range []string{
		fmt.Sprintf("create role %s login password '%s'", timingNoLogin, timingNoLoginPW),
		fmt.Sprintf("create role %s login password '%s'", timingTokens, timingTokensPW),
		"create role " + timingNoPassword + " login",
	} {
		if err := exec(su, q); err != nil {
			return ts, err
		}
	}
	token := func(c *pgx.Conn, label string) (string, error) {
		var t string
		err := c.QueryRow(ctx, "select seqd_create_token('"+label+"')").Scan(&t)
		return t, err
	}
	tc, err := pgx.Connect(ctx, r.pgDSN(timingTokens, timingTokensPW))
	if err != nil {
		return ts, err
	}
	defer tc.Close(ctx)
	if ts.live, err = token(tc, "timing live"); err != nil {
		return ts, err
	}
	if ts.revoked, err = token(tc, "timing revoked"); err != nil {
		return ts, err
	}
	if err := exec(tc, "select seqd_revoke_token('"+strings.Split(ts.revoked, ".")[2]+"')"); err != nil {
		return ts, err
	}
	nc, err := pgx.Connect(ctx, r.pgDSN(timingNoLogin, timingNoLoginPW))
	if err != nil {
		return ts, err
	}
	defer nc.Close(ctx)
	if ts.noLogin, err = token(nc, "timing nologin"); err != nil {
		return ts, err
	}
	return ts, exec(su, "alter role "+timingNoLogin+" nologin")
}

// ghostName is a role name no role has.
func ghostName(rng *mrand.Rand) string { return fmt.Sprintf("ghost%06d", rng.IntN(1_000_000)) }

// madeUpToken is a well-formed token of role with a random ID and
// secret.
func madeUpToken(rng *mrand.Rand, role string) string {
	return "seqd." + base64.RawURLEncoding.EncodeToString([]byte(role)) + "." + hex.EncodeToString(randomBytes(rng, 16)) + "." +
		base64.RawURLEncoding.EncodeToString(randomBytes(rng, 32))
}

// passwordKinds are the ways a role and password fail: no such role, a
// role without LOGIN given its own password, a login role without a
// password, a wrong password of a login role.
func passwordKinds() []loginKind {
	guess := func(rng *mrand.Rand) string { return fmt.Sprintf("guess%016x", rng.Uint64()) }
	return []loginKind{
		{"unknown role", func(rng *mrand.Rand) loginCreds { return loginCreds{user: ghostName(rng), password: guess(rng)} }},
		{"role NOLOGIN", func(*mrand.Rand) loginCreds { return loginCreds{user: timingNoLogin, password: timingNoLoginPW} }},
		{"no password", func(rng *mrand.Rand) loginCreds { return loginCreds{user: timingNoPassword, password: guess(rng)} }},
		{"wrong password", func(rng *mrand.Rand) loginCreds { return loginCreds{user: hostileApp, password: guess(rng)} }},
	}
}

// tokenKinds are the ways a bearer token fails.
func tokenKinds(ts timingTokenSet) []loginKind {
	live := strings.Split(ts.live, ".")
	return []loginKind{
		{"unknown role", func(rng *mrand.Rand) loginCreds { return loginCreds{token: madeUpToken(rng, ghostName(rng))} }},
		{"unknown ID", func(rng *mrand.Rand) loginCreds { return loginCreds{token: madeUpToken(rng, timingTokens)} }},
		{"revoked", func(*mrand.Rand) loginCreds { return loginCreds{token: ts.revoked} }},
		{"wrong secret", func(rng *mrand.Rand) loginCreds {
			return loginCreds{token: strings.Join(live[:3], ".") + "." + base64.RawURLEncoding.EncodeToString(randomBytes(rng, 32))}
		}},
		{"role NOLOGIN", func(*mrand.Rand) loginCreds { return loginCreds{token: ts.noLogin} }},
	}
}

// authorization is the Authorization header of c: Bearer or Basic.
func (c loginCreds) authorization() string {
	if c.token != "" {
		return "Bearer " + c.token
	}
	return basicHeader(c.user, c.password)
}

func (r *hostileRun) loginMethods(ts timingTokenSet) []loginMethod {
	pw, tok := passwordKinds(), tokenKinds(ts)
	return []loginMethod{
		{"pgwire", "SCRAM-SHA-256", "SQLSTATE 28P01", pw, r.pgLoginTimed},
		{"mysql", myNativePlugin, "MySQL 1045", pw, func(c loginCreds) (time.Duration, string, error) {
			return r.myLoginTimed(c, myNativePlugin)
		}},
		{"mysql", mySha2Plugin, "MySQL 1045", pw, func(c loginCreds) (time.Duration, string, error) {
			return r.myLoginTimed(c, mySha2Plugin)
		}},
		{"http", "Basic", "HTTP 401", pw, r.httpLoginTimed},
		{"http", "bearer token", "HTTP 401", tok, r.httpLoginTimed},
		{"grpc", "Basic", "gRPC Unauthenticated", pw, r.grpcLoginTimed},
		{"grpc", "bearer token", "gRPC Unauthenticated", tok, r.grpcLoginTimed},
	}
}

// timeMethod makes cfg.LoginAttempts attempts of each of m's kinds,
// interleaved in random order and one at a time (after two of each not
// counted: the first of a kind may pay for what is made once), and holds
// the kinds' median times to the refusal to cfg.LoginFactor and
// cfg.LoginFloor of each other.
func (r *hostileRun) timeMethod(m loginMethod, rng *mrand.Rand) HostileLoginTiming {
	out := HostileLoginTiming{Protocol: m.proto, Method: m.name, Refusal: m.refusal}
	order := make([]int, 0, len(m.kinds)*r.cfg.LoginAttempts)
	for k := range m.kinds {
		for range r.cfg.LoginAttempts {
			order = append(order, k)
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	attempt := func(k int) (time.Duration, string) {
		d, answer, err := m.try(m.kinds[k].creds(rng))
		if err != nil {
			answer = errClass(err)
		}
		if answer == loggedIn {
			r.fail(fmt.Sprintf("login timing: %s %s: an attempt of %q logged in", m.proto, m.name, m.kinds[k].name))
		}
		return d, answer
	}
	for range 2 {
		for k := range m.kinds {
			attempt(k)
		}
	}
	took := make([][]time.Duration, len(m.kinds))
	answers := make([]map[string]int, len(m.kinds))
	for k := range answers {
		answers[k] = map[string]int{}
	}
	for _, k := range order {
		if !r.proc.running() {
			break
		}
		d, answer := attempt(k)
		answers[k][answer]++
		if answer == m.refusal {
			took[k] = append(took[k], d)
		}
	}
	for k, kind := range m.kinds {
		hk := HostileLoginKind{Kind: kind.name, Answers: answers[k]}
		for _, n := range answers[k] {
			hk.Attempts += n
		}
		if ds := took[k]; len(ds) > 0 {
			slices.Sort(ds)
			hk.Min, hk.P50, hk.P90 = ds[0], ds[len(ds)/2], ds[len(ds)*9/10]
		}
		if len(took[k]) < hk.Attempts/2 || len(took[k]) == 0 {
			r.fail(fmt.Sprintf("login timing: %s %s: %d of %d attempts of %q were refused with %s (%s)",
				m.proto, m.name, len(took[k]), hk.Attempts, kind.name, m.refusal, mapString(answers[k])))
		}
		out.Kinds = append(out.Kinds, hk)
	}
	r.checkTiming(out)
	return out
}

// checkTiming fails the run when the slowest kind's median is over
// cfg.LoginFactor times the fastest's and over cfg.LoginFloor more.
func (r *hostileRun) checkTiming(t HostileLoginTiming) {
	floor := r.cfg.LoginFloor
	lo, hi := t.spread()
	if lo == nil || lo.P50 <= 0 {
		return
	}
	if hi.P50-lo.P50 > floor && float64(hi.P50) > r.cfg.LoginFactor*float64(lo.P50) {
		r.fail(fmt.Sprintf("login timing: %s %s: %s refused in %s (median), %.2fx and %s more than %s (%s): over %gx and %s",
			t.Protocol, t.Method, hi.Kind, ms(hi.P50), float64(hi.P50)/float64(lo.P50), ms(hi.P50-lo.P50), lo.Kind, ms(lo.P50),
			r.cfg.LoginFactor, ms(floor)))
	}
}

// spread is the kinds with the lowest and the highest median, of those
// that have one.
func (t HostileLoginTiming) spread() (lo, hi *HostileLoginKind) {
	for i := range t.Kinds {
		k := &t.Kinds[i]
		if k.P50 == 0 {
			continue
		}
		if lo == nil || k.P50 < lo.P50 {
			lo = k
		}
		if hi == nil || k.P50 > hi.P50 {
			hi = k
		}
	}
	return lo, hi
}

// pgLoginTimed logs in over PostgreSQL's protocol with SCRAM-SHA-256,
// by hand, timing the three round trips (the startup message, the
// client's first message, its proof) and not the client's key
// derivation between them.
func (r *hostileRun) pgLoginTimed(c loginCreds) (time.Duration, string, error) {
	nc, err := r.dial("pgwire")
	if err != nil {
		return 0, "", err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(hostileCallTimeout))
	fe := pgproto3.NewFrontend(nc, nc)
	var took time.Duration
	exchange := func(m pgproto3.FrontendMessage) (pgproto3.BackendMessage, error) {
		fe.Send(m)
		start := time.Now()
		if err := fe.Flush(); err != nil {
			return nil, err
		}
		msg, err := fe.Receive()
		took += time.Since(start)
		return msg, err
	}
	client, err := scram.SHA256.NewClient("", c.password, "")
	if err != nil {
		return 0, "", err
	}
	conv := client.NewConversation()
	var send pgproto3.FrontendMessage = pgStartup(c.user, 0)
	for step := range 3 {
		msg, err := exchange(send)
		if err != nil {
			return 0, "", err
		}
		var data string
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return took, "SQLSTATE " + m.Code, nil
		case *pgproto3.AuthenticationOk, *pgproto3.AuthenticationSASLFinal:
			return took, loggedIn, nil
		case *pgproto3.AuthenticationSASL:
		case *pgproto3.AuthenticationSASLContinue:
			data = string(m.Data)
		default:
			return 0, "", fmt.Errorf("pgwire: %T at step %d of SCRAM", msg, step)
		}
		resp, err := conv.Step(data)
		if err != nil {
			return 0, "", err
		}
		if step == 0 {
			send = &pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte(resp)}
		} else {
			send = &pgproto3.SASLResponse{Data: []byte(resp)}
		}
	}
	return 0, "", errors.New("pgwire: no answer to the client's proof")
}

// sha2Scramble is caching_sha2_password's answer to salt:
// SHA256(password) XOR SHA256(SHA256(SHA256(password)), salt).
func sha2Scramble(salt []byte, password string) []byte {
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	h := sha256.New()
	h.Write(h2[:])
	h.Write(salt)
	out := h.Sum(nil)
	for i := range out {
		out[i] ^= h1[i]
	}
	return out
}

// myLoginTimed logs in over MySQL's protocol with plugin, by hand,
// timing the round trips from the handshake response on (the greeting
// comes before the role is named). caching_sha2_password goes through
// its full authentication without TLS, as go-sql-driver/mysql does: the
// server's public key asked for, the password sent encrypted with it.
func (r *hostileRun) myLoginTimed(c loginCreds, plugin string) (time.Duration, string, error) {
	nc, err := r.dial("mysql")
	if err != nil {
		return 0, "", err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(hostileCallTimeout))
	p, err := readMyPacket(nc)
	if err != nil {
		return 0, "", err
	}
	salt, err := greetingSalt(p)
	if err != nil {
		return 0, "", err
	}
	var took time.Duration
	exchange := func(seq byte, payload []byte) ([]byte, error) {
		start := time.Now()
		if _, err := nc.Write(myPacket(seq, payload)); err != nil {
			return nil, err
		}
		p, err := readMyPacket(nc)
		took += time.Since(start)
		return p, err
	}
	answer := func(p []byte) string {
		switch {
		case myError(p) != 0:
			return fmt.Sprintf("MySQL %d", myError(p))
		case len(p) > 0 && p[0] == 0:
			return loggedIn
		}
		return fmt.Sprintf("packet % x", p[:min(len(p), 8)])
	}
	if plugin == myNativePlugin {
		p, err := exchange(1, myHandshakePlugin(c.user, plugin, nativeScramble(salt, c.password), 0))
		if err != nil {
			return 0, "", err
		}
		return took, answer(p), nil
	}
	p, err = exchange(1, myHandshakePlugin(c.user, plugin, sha2Scramble(salt, c.password), 0))
	if err != nil {
		return 0, "", err
	}
	if !slices.Equal(p, []byte{1, 4}) { // not "perform the full authentication"
		return took, answer(p), nil
	}
	p, err = exchange(3, []byte{2}) // the public key, please
	if err != nil {
		return 0, "", err
	}
	block, _ := pem.Decode(p[min(len(p), 1):])
	if len(p) == 0 || p[0] != 1 || block == nil {
		return took, answer(p), nil
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	pub, ok := key.(*rsa.PublicKey)
	if err != nil || !ok {
		return 0, "", fmt.Errorf("mysql: the server's public key: %v", err)
	}
	plain := append([]byte(c.password), 0)
	for i := range plain {
		plain[i] ^= salt[i%len(salt)]
	}
	enc, err := rsa.EncryptOAEP(sha1.New(), rand.Reader, pub, plain, nil)
	if err != nil {
		return 0, "", err
	}
	if p, err = exchange(5, enc); err != nil {
		return 0, "", err
	}
	return took, answer(p), nil
}

// httpLoginTimed asks the HTTP API for a value with c, on a new
// connection, timing the request from written to the answer's first
// byte.
func (r *hostileRun) httpLoginTimed(c loginCreds) (time.Duration, string, error) {
	base := time.Now()
	var wrote, first atomic.Int64 // since base; the transport's goroutines write them
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		WroteHeaders:         func() { wrote.Store(int64(time.Since(base))) },
		GotFirstResponseByte: func() { first.Store(int64(time.Since(base))) },
	})
	req, err := http.NewRequestWithContext(ctx, "POST", "http://"+r.addrs["http"]+"/v1/sequences/public/h_nocache/nextval", nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", c.authorization())
	hc := &http.Client{Timeout: hostileCallTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return 0, loggedIn, nil
	}
	if wrote.Load() == 0 || first.Load() < wrote.Load() {
		return 0, "", errors.New("http: the request's timing was not traced")
	}
	return time.Duration(first.Load() - wrote.Load()), fmt.Sprintf("HTTP %d", resp.StatusCode), nil
}

// grpcLoginTimed calls Next with c on a new connection, once it is
// ready, timing the call.
func (r *hostileRun) grpcLoginTimed(c loginCreds) (time.Duration, string, error) {
	conn, err := grpc.NewClient(r.addrs["grpc"], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return 0, "", err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	conn.Connect()
	for s := conn.GetState(); s != connectivity.Ready; s = conn.GetState() {
		if !conn.WaitForStateChange(ctx, s) {
			return 0, "", fmt.Errorf("grpc: the connection is %v", s)
		}
	}
	cl := seqdv1.NewSequencesClient(conn)
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", c.authorization())
	start := time.Now()
	_, err = cl.Next(ctx, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: "h_nocache"}})
	took := time.Since(start)
	if err == nil {
		return took, loggedIn, nil
	}
	if s, ok := status.FromError(err); ok {
		return took, "gRPC " + s.Code().String(), nil
	}
	return 0, "", err
}

// loginTimingString is the report's lines of the login timing.
func loginTimingString(b *strings.Builder, rep *HostileReport) {
	fmt.Fprintf(b, "failed logins, time to the refusal, median / p90 / min (refused of attempts); bound: medians within %gx or %s of each other\n",
		rep.LoginFactor, ms(rep.LoginFloor))
	for _, t := range rep.Logins {
		spread := "-"
		if lo, hi := t.spread(); lo != nil {
			spread = fmt.Sprintf("%.2fx, %s", float64(hi.P50)/float64(lo.P50), ms(hi.P50-lo.P50))
		}
		fmt.Fprintf(b, "  %-6s %-21s slowest/fastest median %s; refusal %s\n", t.Protocol, t.Method, spread, t.Refusal)
		for _, k := range t.Kinds {
			fmt.Fprintf(b, "      %-15s %8s / %8s / %8s (%d of %d)", k.Kind, ms(k.P50), ms(k.P90), ms(k.Min), k.Answers[t.Refusal], k.Attempts)
			if k.Answers[t.Refusal] < k.Attempts {
				fmt.Fprintf(b, " answers: %s", mapString(k.Answers))
			}
			b.WriteString("\n")
		}
	}
}
