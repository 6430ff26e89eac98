// The clustered run's driverless clients. An HTTP client takes values of
// the ORDER sequences from one node's API, and on a refusal (a standby's
// 503 with 25006) or a node that does not answer moves on to the next,
// as a client behind a balancer retries. A gRPC client keeps ranges
// flowing over the Ranges stream with two requests in flight, and moves
// to the next node when its stream fails. Their values join every check
// of the run.

package torture

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// apiOutcome classifies an API failure by its SQLSTATE as outcome does
// pgwire's: a standby's or a deposed leader's 25006 handed nothing out;
// a shutdown, a cancelled statement, a store write of unknown outcome, a
// node starting, a transport failure leave the outcome unknown; any
// other failure is a finding.
func (r *clusterRun) apiOutcome(what, sqlstate string, err error) Outcome {
	switch sqlstate {
	case "":
		return Unknown // no answer: the connection failed or timed out
	case "25006":
		return Failed
	case "57P01", "57014", "58030", "57P03":
		return Unknown
	}
	r.violation(fmt.Sprintf("error: %s got SQLSTATE %s: %v", what, sqlstate, err))
	return Failed
}

// httpClient takes values of the ORDER sequences over the HTTP API until
// stop, from one node until it fails, then from the next.
func (r *clusterRun) httpClient(id int, seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	hc := &http.Client{Timeout: time.Second}
	defer hc.CloseIdleConnections()
	node := 0
	for !stopped(stop) {
		s := clusterSeqs[rng.IntN(len(clusterSeqs))]
		op := Op{Seq: s.Name, Kind: Nextval, Want: 1, Client: id, Epoch: int(r.epoch.Load()), Call: r.h.Now()}
		v, sqlstate, err := r.httpNext(hc, node, s.Name)
		outcome := OK
		if err != nil {
			outcome = r.apiOutcome("nextval over HTTP", sqlstate, err)
		}
		r.record(op, outcome, v, err)
		if err != nil {
			node = (node + 1) % len(r.apiAddrs)
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// httpNext takes a value of seq from node's API: the value, or the
// failure and its SQLSTATE ("" when no answer came).
func (r *clusterRun) httpNext(hc *http.Client, node int, seq string) (int64, string, error) {
	resp, err := hc.Post("http://"+r.apiAddrs[node]+"/v1/sequences/public/"+seq+"/nextval", "application/json", nil)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var body struct {
		Values   []json.Number
		SQLState string `json:"sqlstate"`
		Detail   string
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, "", err // cut off mid-answer
	}
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
			r.violation(fmt.Sprintf("error: node %d's API answered 503 without Retry-After (%s)", node, body.SQLState))
		}
		return 0, body.SQLState, fmt.Errorf("HTTP %d: %s (%s)", resp.StatusCode, body.Detail, body.SQLState)
	}
	if len(body.Values) != 1 {
		r.violation(fmt.Sprintf("error: node %d's API answered %d values for one", node, len(body.Values)))
		return 0, "", fmt.Errorf("%d values", len(body.Values))
	}
	v, err := body.Values[0].Int64()
	if err != nil {
		r.violation(fmt.Sprintf("error: node %d's API answered %q", node, body.Values[0]))
	}
	return v, "", err
}

// grpcRange is the size of the gRPC client's ranges.
const grpcRange = 4

// grpcClient keeps ranges of the ORDER sequences flowing over a gRPC
// stream until stop, two requests in flight; when the stream fails it
// opens one on the next node.
func (r *clusterRun) grpcClient(id int, seed uint64, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	node := 0
	for !stopped(stop) {
		r.grpcStream(id, rng, node, stop)
		node = (node + 1) % len(r.grpcAddrs)
		time.Sleep(20 * time.Millisecond)
	}
}

// grpcStream runs one stream on node until it fails or stop. An answer
// not come within a second ends it (a stopped node never answers).
func (r *clusterRun) grpcStream(id int, rng *rand.Rand, node int, stop <-chan struct{}) {
	conn, err := grpc.NewClient(r.grpcAddrs[node], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := time.AfterFunc(time.Second, cancel)
	defer timer.Stop()
	st, err := seqdv1.NewSequencesClient(conn).Ranges(ctx)
	if err != nil {
		return
	}
	var inflight []Op
	defer func() { // what was sent and not answered: unknown
		for _, op := range inflight {
			op.Outcome, op.Err = Unknown, "not answered before the stream ended"
			r.h.Add(op)
		}
	}()
	send := func() bool {
		s := clusterSeqs[rng.IntN(len(clusterSeqs))]
		op := Op{Seq: s.Name, Kind: Range, Want: grpcRange, Client: id, Epoch: int(r.epoch.Load()), Call: r.h.Now()}
		inflight = append(inflight, op)
		return st.Send(&seqdv1.ReserveRequest{Sequence: &seqdv1.Sequence{Schema: "public", Name: s.Name}, Count: grpcRange}) == nil
	}
	if !send() || !send() {
		return
	}
	for !stopped(stop) {
		rg, err := st.Recv()
		op := inflight[0]
		inflight = inflight[1:]
		if err != nil {
			sqlstate := ""
			if trailer := st.Trailer(); len(trailer.Get("seqd-sqlstate")) == 1 {
				sqlstate = trailer.Get("seqd-sqlstate")[0]
			}
			op.Outcome, op.Err = r.apiOutcome("a range over gRPC", sqlstate, err), err.Error()
			if op.Outcome == Failed {
				op.Return = r.h.Now()
			}
			if sqlstate == "" && status.Code(err) != 0 && !strings.Contains(err.Error(), "context canceled") {
				op.Err += fmt.Sprintf(" (%s)", status.Code(err))
			}
			r.h.Add(op)
			return
		}
		timer.Reset(time.Second)
		op.Outcome, op.Return = OK, r.h.Now()
		for v := rg.First; ; v += rg.Increment {
			op.Values = append(op.Values, v)
			if v == rg.Last || len(op.Values) > grpcRange {
				break
			}
		}
		if len(op.Values) != grpcRange {
			r.violation(fmt.Sprintf("error: node %d's gRPC range %d..%d by %d is not %d values", node, rg.First, rg.Last, rg.Increment, grpcRange))
		}
		r.h.Add(op)
		if !send() {
			return
		}
	}
}

// clientsUnavailable measures, per failover, the time from the fault to
// the first value the given clients asked for after it got, and counts
// their values.
func (r *clusterRun) clientsUnavailable(ops []Op, clients map[int]bool) (values int, waits []time.Duration) {
	r.mu.Lock()
	windows := append([]faultWindow(nil), r.windows...)
	r.mu.Unlock()
	var returns, calls []int64 // of the clients' values, called after a fault at the earliest
	for _, op := range ops {
		if clients[op.Client] && op.Outcome == OK {
			values += len(op.Values)
			returns, calls = append(returns, op.Return), append(calls, op.Call)
		}
	}
	for _, w := range windows {
		first := int64(-1)
		for i, ret := range returns {
			if calls[i] >= w.from && (first < 0 || ret < first) {
				first = ret
			}
		}
		if first >= 0 {
			waits = append(waits, time.Duration(first-w.from))
		}
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	return values, waits
}
