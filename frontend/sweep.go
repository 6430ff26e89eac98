package frontend

import (
	"sync"
	"time"
)

// Sweep calls visit with each member of set every period, until quit is
// closed: the sweepers that look at every session or connection (a
// departed client's statement, an idle session's deadline). The members
// are copied under mu and visited without it, so that visit may take
// the member's own locks and set may change meanwhile.
func Sweep[K comparable, V any](period time.Duration, quit <-chan struct{}, mu sync.Locker, set map[K]V, visit func(K)) {
	t := time.NewTicker(period)
	defer t.Stop()
	var members []K
	for {
		select {
		case <-quit:
			return
		case <-t.C:
		}
		mu.Lock()
		members = members[:0]
		for k := range set {
			members = append(members, k)
		}
		mu.Unlock()
		for _, k := range members {
			visit(k)
		}
		clear(members)
	}
}
