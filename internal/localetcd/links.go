package localetcd

import "sync"

// cuts are the partitions of a cluster's peer traffic: the members
// isolated from all their peers, the links cut between two members, and
// the links impaired (slow or lossy).
// Each member's peer proxy is set from them as a whole (apply), so that
// the cuts compose: a member rejoined keeps its links that are cut, and a
// link healed stays cut while either end is isolated. Safe for concurrent
// use.
type cuts struct {
	mu       sync.Mutex
	isolated map[int]bool
	links    map[link]bool
	impaired map[link]Impairment
	unnamed  map[int]Impairment // of the requests into a member that name no sender
}

// link is a pair of members, the lower index first.
type link [2]int

func newLink(i, j int) link { return link{min(i, j), max(i, j)} }

// Isolate cuts member i off from its peers, both ways, as a network
// partition would; its clients still reach it, and it still accepts
// their requests. It needs Options.PeerProxies.
func (c *Cluster) Isolate(i int) { c.change(func(k *cuts) { k.isolated[i] = true }) }

// Rejoin ends Isolate(i); the links CutLink cut stay cut.
func (c *Cluster) Rejoin(i int) { c.change(func(k *cuts) { delete(k.isolated, i) }) }

// CutLink cuts the peer traffic between members i and j, both ways,
// leaving each one's other links as they are: the partial partitions of
// Jepsen's nemeses (a ring in which each member sees only its
// neighbours, a bridge whose middle member sees both halves) are drawn
// from such cuts. It needs Options.PeerProxies.
//
// Only the peer requests that name their sender (etcd's raft traffic:
// X-Server-From) are told apart; the few that do not (a lease renewal a
// follower forwards to the leader, a version check) still pass a cut
// link, though not into a member Isolate cut off.
func (c *Cluster) CutLink(i, j int) {
	c.change(func(k *cuts) { k.links[newLink(i, j)] = true })
}

// HealLink ends CutLink(i, j).
func (c *Cluster) HealLink(i, j int) { c.change(func(k *cuts) { delete(k.links, newLink(i, j)) }) }

// ImpairLink makes the peer traffic between members i and j slow or
// lossy (imp), both ways; the zero Impairment ends it. Like CutLink it
// tells apart only the peer requests that name their sender, and needs
// Options.PeerProxies.
func (c *Cluster) ImpairLink(i, j int, imp Impairment) {
	c.change(func(k *cuts) {
		if imp == (Impairment{}) {
			delete(k.impaired, newLink(i, j))
		} else {
			k.impaired[newLink(i, j)] = imp
		}
	})
}

// ImpairUnnamed makes the peer requests into member i that name no
// sender (a lease renewal a follower forwards to its leader, a version
// check) slow or lossy (imp), both ways; the zero Impairment ends it.
// ImpairLink cannot tell whose they are: with every link of member i
// impaired, they come over one of them. It needs Options.PeerProxies.
func (c *Cluster) ImpairUnnamed(i int, imp Impairment) {
	c.change(func(k *cuts) {
		if imp == (Impairment{}) {
			delete(k.unnamed, i)
		} else {
			k.unnamed[i] = imp
		}
	})
}

// HealAll ends every Isolate, CutLink, ImpairLink and ImpairUnnamed.
func (c *Cluster) HealAll() {
	c.change(func(k *cuts) {
		k.isolated, k.links, k.impaired, k.unnamed = map[int]bool{}, map[link]bool{}, map[link]Impairment{}, map[int]Impairment{}
	})
}

// change applies edit to the cuts and sets every peer proxy from them.
func (c *Cluster) change(edit func(*cuts)) {
	if c.peers == nil {
		panic("localetcd: cutting peer traffic needs a cluster started with Options.PeerProxies")
	}
	k := &c.cuts
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.isolated == nil {
		k.isolated, k.links, k.impaired, k.unnamed = map[int]bool{}, map[link]bool{}, map[link]Impairment{}, map[int]Impairment{}
	}
	edit(k)
	c.applyLocked()
}

// applyLocked sets every peer proxy from the cuts. REQUIRES: c.cuts.mu
// held.
func (c *Cluster) applyLocked() {
	ids := make([]string, len(c.ids))
	for i, id := range c.ids {
		ids[i] = id.String()
	}
	for j, p := range c.peers {
		all, from := c.cuts.proxyCuts(j, ids)
		p.setCuts(all, from, c.cuts.proxyImpairs(j, ids), c.cuts.unnamed[j])
	}
}

// proxyImpairs is how member j's peer proxy impairs the connections from
// each member whose link to j is impaired.
func (k *cuts) proxyImpairs(j int, ids []string) map[string]Impairment {
	imp := map[string]Impairment{}
	for i, id := range ids {
		if l, ok := k.impaired[newLink(i, j)]; ok && i != j {
			imp[id] = l
		}
	}
	return imp
}

// proxyCuts is what member j's peer proxy cuts, ids being the members'
// IDs: every connection if j is isolated (what anyone sends it), else
// the connections from each member isolated or whose link to j is cut.
func (k *cuts) proxyCuts(j int, ids []string) (bool, map[string]bool) {
	from := map[string]bool{}
	for i, id := range ids {
		if i != j && (k.isolated[i] || k.links[newLink(i, j)]) {
			from[id] = true
		}
	}
	return k.isolated[j], from
}
