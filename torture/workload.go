package torture

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// expectedCodes are the errors a workload request may get under faults:
// the server is shutting down, the request was canceled, the disk is
// full (a write refused before it was made).
var expectedCodes = map[string]bool{"57P01": true, "57014": true, "53100": true}

// outcomeOf classifies a request's error. A storage failure (58030) leaves
// the outcome unknown: the write may have reached the disk before the
// error. An error answer with an unexpected SQLSTATE is a finding.
func (r *run) outcomeOf(what string, err error) (Outcome, string) {
	if err == nil {
		return OK, ""
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := pe.Code + " " + pe.Message
		if pe.Code == "58030" {
			return Unknown, msg
		}
		if !expectedCodes[pe.Code] {
			r.violation(fmt.Sprintf("error: %s got SQLSTATE %s: %s", what, pe.Code, pe.Message))
		}
		return Failed, msg
	}
	return Unknown, err.Error()
}

func connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return pgx.Connect(ctx, dsn)
}

// worker runs the value workload on one connection at a time until stop,
// reconnecting after a connection dies.
func (r *run) worker(id, epoch int, seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	for !stopped(stop) {
		c, err := connect(context.Background(), r.dsn)
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		for !stopped(stop) && !c.IsClosed() {
			if !r.step(c, id, epoch, rng) {
				break
			}
		}
		c.Close(context.Background())
	}
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// step sends one request; false when the connection should be replaced.
func (r *run) step(c *pgx.Conn, id, epoch int, rng *rand.Rand) bool {
	s := r.seqs[rng.IntN(len(r.seqs))]
	p := rng.IntN(1000)
	timeout := 5 * time.Second
	if p >= 15 && rng.IntN(10) == 0 {
		timeout = 200 * time.Millisecond // gives up during pauses: unknown outcomes
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// Drivers use both protocols: a quarter of requests go as simple
	// queries, the rest as prepared statements.
	args := func(more ...any) []any {
		if rng.IntN(4) == 0 {
			return append([]any{pgx.QueryExecModeSimpleProtocol, s.Name}, more...)
		}
		return append([]any{s.Name}, more...)
	}
	op := Op{Seq: s.Name, Client: id, Epoch: epoch}
	var err error
	switch {
	case p < 5 && s.Name == "t_c10":
		// Only one sequence changes CACHE, so that the others keep the
		// tight bound their own CACHE gives.
		return r.alterCache(ctx, c, s, rng)
	case p < 15:
		// One setval of a sequence at a time, and never given up on
		// early: the sequence only moves forward, which the scan relies on.
		mu := r.setvalMu[s.Name]
		mu.Lock()
		defer mu.Unlock()
		op.Kind = Setval
		x := r.nextSetval(s)
		op.Values = []int64{x}
		op.Call = r.h.Now()
		_, err = c.Exec(ctx, "select setval($1, $2)", s.Name, r.valueOf(s, x))
	case p < 100:
		op.Kind, op.Want = Bulk, int64(1+rng.IntN(200))
		op.Call = r.h.Now()
		var rows pgx.Rows
		rows, err = c.Query(ctx, "select nextval($1) from generate_series(1, $2)", args(op.Want)...)
		if err == nil {
			for rows.Next() {
				var v int64
				if err = rows.Scan(&v); err != nil {
					break
				}
				op.Values = append(op.Values, r.rank(s, v))
				op.Times = append(op.Times, r.h.Now())
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
	case p < 200:
		op.Kind, op.Want = Range, int64(1+rng.IntN(500))
		op.Call = r.h.Now()
		var first, last, inc int64
		err = c.QueryRow(ctx, "select first, last, increment from seqd_reserve($1, $2)", args(op.Want)...).Scan(&first, &last, &inc)
		if err == nil {
			for v := first; ; v += inc {
				if rk, ok := r.rankOfCounter(s, v); ok {
					op.Values = append(op.Values, rk)
				}
				if v == last {
					break
				}
			}
		}
	default:
		op.Kind, op.Want = Nextval, 1
		op.Call = r.h.Now()
		var v int64
		if err = c.QueryRow(ctx, "select nextval($1)", args()...).Scan(&v); err == nil {
			op.Values = []int64{r.rank(s, v)}
		}
	}
	op.Return = r.h.Now()
	op.Outcome, op.Err = r.outcomeOf(fmt.Sprintf("%s(%s)", op.Kind, s.Name), err)
	if op.Kind == Setval && op.Outcome == Failed {
		op.Values = nil // refused: it set nothing
	}
	r.h.Add(op)
	r.seen(s, op.Values)
	if op.Outcome != OK {
		time.Sleep(20 * time.Millisecond) // as a client would back off
	}
	return op.Outcome != Unknown
}

// seen raises the highest value seen of s, for choosing setval targets.
func (r *run) seen(s Seq, vs []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range vs {
		r.top[s.Name] = max(r.top[s.Name], v*s.dir())
	}
}

// nextSetval is a setval target far beyond anything the sequence can have
// handed out: the next multiple of 10^9 at least 10^8 past the highest
// value seen (CACHE and requests in flight are far smaller), in the
// increment's direction. The jump is recorded as seen at once, so
// concurrent setvals move forward too.
func (r *run) nextSetval(s Seq) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	const unit = 1_000_000_000
	x := (max(r.top[s.Name], 0)+unit/10)/unit*unit + unit
	r.top[s.Name] = x
	return x * s.dir()
}

// alterCache changes a sequence's CACHE; the gap check allows the largest
// CACHE the sequence may have had during the epoch.
func (r *run) alterCache(ctx context.Context, c *pgx.Conn, s Seq, rng *rand.Rand) bool {
	caches := []int64{1, 10, 1000, 100_000}
	n := caches[rng.IntN(len(caches))]
	r.mu.Lock()
	old := r.cache[s.Name]
	r.cache[s.Name] = max(old, n) // while unanswered, either may be in force
	r.epochCache[s.Name] = max(r.epochCache[s.Name], n)
	r.mu.Unlock()
	_, err := c.Exec(ctx, fmt.Sprintf("alter sequence %s cache %d", s.Name, n))
	out, _ := r.outcomeOf("alter sequence "+s.Name, err)
	r.mu.Lock()
	switch out {
	case OK:
		r.cache[s.Name] = n
	case Failed:
		r.cache[s.Name] = old
	}
	r.mu.Unlock()
	return out != Unknown
}

// ddlWorker creates, alters and drops the catalogue's sequences, by
// single statements and in transaction blocks committed or rolled back,
// until stop or until an outcome is unknown (a statement's or a COMMIT's:
// it is then the catalogue's pending change).
func (r *run) ddlWorker(seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, 99))
	c, err := connect(context.Background(), r.dsn)
	if err != nil {
		return
	}
	defer c.Close(context.Background())
	for !stopped(stop) {
		var ok bool
		if rng.IntN(2) == 0 {
			ok = r.ddlStatement(c, rng)
		} else {
			ok = r.ddlBlock(c, rng)
		}
		if !ok {
			return
		}
		time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
	}
}

// ddlStatement sends one DDL statement outside a block; false when its
// outcome is unknown.
func (r *run) ddlStatement(c *pgx.Conn, rng *rand.Rand) bool {
	name, q, def := ddlFor(rng, r.catalog.Acked)
	r.catalog.Send(name, def)
	out := r.ddlExec(c, q)
	if out == Unknown {
		return false
	}
	r.catalog.Answer(out == OK)
	return true
}

// ddlBlock runs BEGIN, one to four DDL statements and COMMIT or ROLLBACK;
// false when the COMMIT's outcome is unknown or the connection is lost.
// Until COMMIT is sent nothing of the block is pending: a block that
// never commits leaves no trace.
func (r *run) ddlBlock(c *pgx.Conn, rng *rand.Rand) bool {
	if out := r.ddlExec(c, "begin"); out != OK {
		return out != Unknown && r.ddlExec(c, "rollback") != Unknown
	}
	view := maps.Clone(r.catalog.Acked)
	changes := map[string]*SeqDef{}
	for range 1 + rng.IntN(4) {
		name, q, def := ddlFor(rng, view)
		switch r.ddlExec(c, q) {
		case Unknown:
			return false
		case Failed: // the block is aborted
			return r.ddlExec(c, "rollback") != Unknown
		}
		changes[name] = def
		if def == nil {
			delete(view, name)
		} else {
			view[name] = *def
		}
	}
	if rng.IntN(5) == 0 {
		return r.ddlExec(c, "rollback") != Unknown
	}
	r.catalog.SendBlock(changes)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	tag, err := c.Exec(ctx, "commit")
	cancel()
	out, msg := r.outcomeOf("commit", err)
	if out == OK && tag.String() != "COMMIT" {
		r.violation(fmt.Sprintf("ddl: COMMIT of a block whose statements all succeeded answered %q", tag))
		out = Failed
	}
	r.ddlLogf("commit %s: %s %s", changesString(changes), out, msg)
	if out == Unknown {
		return false
	}
	r.catalog.Answer(out == OK)
	if out == OK {
		r.mu.Lock()
		r.ddlCommits++
		r.mu.Unlock()
	}
	return true
}

// ddlFor picks a statement on one of the workload's names against the
// catalogue cat: the name, the statement, and what it leaves (nil: the
// sequence is dropped).
func ddlFor(rng *rand.Rand, cat map[string]SeqDef) (string, string, *SeqDef) {
	name := fmt.Sprintf("ddl_%d", rng.IntN(8))
	def := &SeqDef{Inc: int64(1 + rng.IntN(5)), Cache: []int64{1, 20, 5000}[rng.IntN(3)], Max: int64(1_000_000 + rng.IntN(1000))}
	spec := fmt.Sprintf("increment by %d cache %d maxvalue %d", def.Inc, def.Cache, def.Max)
	_, exists := cat[name]
	switch {
	case !exists:
		return name, "create sequence " + name + " " + spec, def
	case rng.IntN(2) == 0:
		return name, "alter sequence " + name + " " + spec, def
	}
	return name, "drop sequence " + name, nil
}

// ddlExec runs one statement of the DDL workload and logs its outcome.
func (r *run) ddlExec(c *pgx.Conn, q string) Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, err := c.Exec(ctx, q)
	cancel()
	out, msg := r.outcomeOf(q, err)
	r.ddlLogf("%s: %s %s", q, out, msg)
	if out != Unknown {
		r.mu.Lock()
		r.ddlOps++
		r.mu.Unlock()
	}
	return out
}

func (r *run) ddlLogf(format string, args ...any) {
	fmt.Fprintf(r.ddlLog, "%v %s\n", time.Duration(r.h.Now()), fmt.Sprintf(format, args...))
}

// catalogNow reads the DDL workload's sequences as the server lists them.
func catalogNow(ctx context.Context, c *pgx.Conn) (map[string]SeqDef, error) {
	rows, err := c.Query(ctx, "select sequencename, increment_by, cache_size, max_value from pg_sequences")
	if err != nil {
		return nil, err
	}
	got := map[string]SeqDef{}
	for rows.Next() {
		var name string
		var d SeqDef
		if err := rows.Scan(&name, &d.Inc, &d.Cache, &d.Max); err != nil {
			return nil, err
		}
		if strings.HasPrefix(name, "ddl_") {
			got[name] = d
		}
	}
	return got, rows.Err()
}

// chaos runs clients that misbehave on the protocol level until stop:
// they vanish mid-message or right after a request, or ask for many rows
// and stop reading. The server must shrug them off.
func (r *run) chaos(seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for !stopped(stop) {
		// A connection made as any client makes it (TLS and SCRAM in a
		// secure run), then taken over to misbehave on the protocol.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		pc, err := pgconn.Connect(ctx, r.dsn)
		cancel()
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		h, err := pc.Hijack()
		if err != nil {
			pc.Close(context.Background())
			continue
		}
		nc, fe := h.Conn, h.Frontend
		switch k := rng.IntN(4); k {
		case 0: // half a message, then gone
			msg, _ := (&pgproto3.Query{String: "select nextval('vanish')"}).Encode(nil)
			nc.Write(msg[:len(msg)/2])
			r.count("vanish mid-message")
		case 1: // a request, then gone without reading the answer
			fe.Send(&pgproto3.Query{String: "select nextval('vanish') from generate_series(1, 5000)"})
			fe.Flush()
			r.count("vanish after request")
		case 2: // an extended-protocol request without its Sync
			fe.Send(&pgproto3.Parse{Query: "select nextval($1)"})
			fe.Send(&pgproto3.Bind{Parameters: [][]byte{[]byte("vanish")}})
			fe.Send(&pgproto3.Execute{})
			fe.Flush()
			r.count("vanish before sync")
		case 3: // a million rows, not read for a while
			fe.Send(&pgproto3.Query{String: "select nextval('stall') from generate_series(1, 1000000)"})
			fe.Flush()
			r.count("stop reading")
			select {
			case <-stop:
			case <-time.After(time.Duration(200+rng.IntN(800)) * time.Millisecond):
			}
		}
		nc.Close()
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
	}
}

// count adds one to a fault counter.
func (r *run) count(fault string) {
	r.mu.Lock()
	r.faults[fault]++
	r.mu.Unlock()
}

// probe takes the first value of every sequence after a restart, before
// any other client runs, and verifies the DDL catalogue.
func (r *run) probe(epoch int) (map[string]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := connect(ctx, r.dsn)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background())
	got := map[string]int64{}
	for _, s := range r.seqs {
		op := Op{Seq: s.Name, Kind: Nextval, Want: 1, Client: -1, Epoch: epoch, Call: r.h.Now()}
		var v int64
		err := c.QueryRow(ctx, "select nextval($1)", s.Name).Scan(&v)
		op.Return = r.h.Now()
		if err != nil {
			return nil, fmt.Errorf("probe %s: %w", s.Name, err)
		}
		op.Values = []int64{r.rank(s, v)}
		r.h.Add(op)
		r.seen(s, op.Values)
		got[s.Name] = op.Values[0]
	}
	cat, err := catalogNow(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, v := range r.catalog.Verify(cat) {
		r.violation(v)
	}
	return got, nil
}

func (r *run) violation(v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.violations = append(r.violations, v)
}
