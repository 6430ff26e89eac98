package torture

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// hostileMonitor samples seqd once a second: its resident memory, its
// /healthz and the seqd_connections gauge of its /metrics. Safe for
// concurrent use.
type hostileMonitor struct {
	r     *hostileRun
	stopc chan struct{}
	wg    sync.WaitGroup
	rss   atomic.Int64 // latest sample
	conns atomic.Int64 // latest sample, -1 when the scrape failed

	mu        sync.Mutex
	rssMax    [phases]int64
	rssLast   [phases]int64
	connsMax  [phases]int64
	polls     [phases]int
	pollFails [phases]int
	pollErrs  []string // the first few failed polls, with when
	rssErrs   int
	exitedAt  time.Duration // since the monitor started; 0 while running
	started   time.Time
}

func (r *hostileRun) monitor() *hostileMonitor {
	m := &hostileMonitor{r: r, stopc: make(chan struct{}), started: time.Now()}
	m.conns.Store(-1)
	m.wg.Add(2)
	go m.sampleRSS()
	go m.poll()
	return m
}

func (m *hostileMonitor) stop() {
	close(m.stopc)
	m.wg.Wait()
}

func (m *hostileMonitor) rssNow() int64   { return m.rss.Load() }
func (m *hostileMonitor) connsNow() int64 { return m.conns.Load() }

// sampleRSS reads VmRSS each second and notes when the process exited.
func (m *hostileMonitor) sampleRSS() {
	defer m.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		if !m.r.proc.running() {
			m.mu.Lock()
			if m.exitedAt == 0 {
				m.exitedAt = time.Since(m.started)
			}
			m.mu.Unlock()
		} else if v, err := m.r.proc.rss(); err != nil || v <= 0 {
			m.mu.Lock()
			m.rssErrs++
			m.mu.Unlock()
		} else {
			m.rss.Store(v)
			phase := m.r.phase.Load() // after the sample: an attack just begun counts as hostile
			m.mu.Lock()
			m.rssMax[phase] = max(m.rssMax[phase], v)
			m.rssLast[phase] = v
			m.mu.Unlock()
		}
		select {
		case <-m.stopc:
			return
		case <-t.C:
		}
	}
}

// poll asks /healthz each second (an answer within 2 s, on a new
// connection) and reads the connection gauge.
func (m *hostileMonitor) poll() {
	defer m.wg.Done()
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	base := "http://" + m.r.addrs[hostileMetrics]
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		err := healthz(hc, base)
		phase := m.r.phase.Load()
		m.mu.Lock()
		m.polls[phase]++
		if err != nil {
			m.pollFails[phase]++
			if len(m.pollErrs) < 5 {
				m.pollErrs = append(m.pollErrs, fmt.Sprintf("at %v (%s run): %v", time.Since(m.started).Round(time.Second), phaseNames[phase], err))
			}
		}
		m.mu.Unlock()
		if n, err := scrapeConnections(hc, base); err == nil {
			m.conns.Store(n)
			phase := m.r.phase.Load()
			m.mu.Lock()
			m.connsMax[phase] = max(m.connsMax[phase], n)
			m.mu.Unlock()
		} else {
			m.conns.Store(-1)
		}
		select {
		case <-m.stopc:
			return
		case <-t.C:
		}
	}
}

func healthz(hc *http.Client, base string) error {
	resp, err := hc.Get(base + "/healthz")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz answered %s", resp.Status)
	}
	return nil
}

// scrapeConnections reads seqd_connections from /metrics.
func scrapeConnections(hc *http.Client, base string) (int64, error) {
	resp, err := hc.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "seqd_connections "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("no seqd_connections in /metrics (%v)", sc.Err())
}
