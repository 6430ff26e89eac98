// Pages of the sequence list, for a listing of a million sequences that
// reads only the sequences it shows (the operator console's).

package engine

// Page is one page of sequences in the order of their relation names,
// then schemas (the catalog's order, relCompare).
type Page struct {
	Infos []Info
	// Next is the key to continue after; "" when no key follows the page.
	Next string
	// Scanned is how many keys were looked at.
	Scanned int
}

// PageByName describes up to limit sequences, in order of relation name
// then schema, from the first key after after ("": from the first),
// whose key and ACL keep accepts. It looks at most at scan keys: a page
// that ends short with Next set is one whose scan ran out, to continue
// from Next. keep runs under the catalog's read lock: it must not call
// the engine, nor keep the ACL (it may not be modified).
func (e *Engine) PageByName(after string, limit, scan int, keep func(key string, acl ACL) bool) Page {
	var p Page
	var seqs []*seq
	last := after // the last key looked at
	e.catMu.RLock()
	x := e.seqs
	o := x.byRel
	if o == nil { // during a load (not reached: Open builds it after)
		o = x.sortedOrder()
	}
	for i := range o.from(after, x.keyAt) {
		key := x.keys[i]
		if key == after {
			continue
		}
		if len(seqs) == limit || p.Scanned == scan {
			p.Next = last
			break
		}
		p.Scanned++
		last = key
		if keep(key, e.aclOfLocked(x.seqs[i].id).acl) {
			seqs = append(seqs, x.seqs[i])
		}
	}
	e.catMu.RUnlock()
	p.Infos = make([]Info, 0, len(seqs))
	eachUsable(seqs, func(i Info) { p.Infos = append(p.Infos, i) })
	return p
}
