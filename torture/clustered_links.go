// Slow and lossy links between a node and etcd, on the run's proxies.

package torture

import (
	"math/rand/v2"
	"time"
)

// impairment is what a link does to each piece of a connection it
// carries, one way. The proxies carry TCP, whose bytes are never lost
// but late: a lost segment is sent again after the retransmission
// timeout, and again after twice that if that is lost too. So loss is
// played as that lateness, which is what the node's etcd client sees
// of it; dropping bytes from a TCP stream would corrupt it instead.
type impairment struct {
	delay time.Duration // added to every piece (a slow link)
	loss  float64       // chance a piece is lost, each time it is sent
}

// rto is the first retransmission timeout (Linux's floor), and maxRTO
// where backing off stops, for a lost piece.
const (
	rto    = 200 * time.Millisecond
	maxRTO = 3200 * time.Millisecond
)

// Links the nemeses set between the leader and etcd: a one-way delay of
// 150 ms (a round trip of 300 ms, against a lease of seconds), and 20 %
// of pieces lost.
var (
	slowLink  = impairment{delay: 150 * time.Millisecond}
	lossyLink = impairment{loss: 0.2}
)

// impair holds the calling pipe as the link would hold its next piece.
func (p *proxy) impair() {
	p.mu.Lock()
	l := p.link
	p.mu.Unlock()
	wait := l.delay
	for backoff := rto; l.loss > 0 && rand.Float64() < l.loss; backoff = min(2*backoff, maxRTO) {
		wait += backoff
	}
	if wait > 0 {
		time.Sleep(wait)
	}
}

// setLink makes the proxy's link l (the zero impairment: a clean one).
func (p *proxy) setLink(l impairment) {
	p.mu.Lock()
	p.link = l
	p.mu.Unlock()
}

// retarget sends the proxy's new connections to target (an etcd member
// replaced on new ports), and closes its open ones.
func (p *proxy) retarget(target string) {
	p.mu.Lock()
	p.target = target
	p.mu.Unlock()
	p.heal()
}
