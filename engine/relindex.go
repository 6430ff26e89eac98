package engine

import (
	"strings"

	"github.com/google/btree"
)

// The index of sequence keys ("schema.rel") in the order of their
// relation names, then of the keys: its items are the keys themselves
// (the map's strings, not copies), the relation name found again at
// each comparison, to keep it at about 20 bytes a sequence.

// splitKey is a key's schema and relation name.
func splitKey(key string) (schema, rel string) {
	i := strings.IndexByte(key, '.')
	return key[:max(i, 0)], key[i+1:]
}

func relLess(a, b string) bool {
	sa, ra := splitKey(a)
	sb, rb := splitKey(b)
	return ra < rb || ra == rb && sa < sb
}

// newRelIndex is an empty index of sequence keys by relation name.
func newRelIndex() *btree.BTreeG[string] { return btree.NewG(32, relLess) }

// keysWithRelPrefix calls f with each key of idx whose relation name
// begins with prefix, in order, while f returns true.
func keysWithRelPrefix(idx *btree.BTreeG[string], prefix string, f func(key string) bool) {
	// From "." + prefix: the empty schema sorts before every schema.
	idx.AscendGreaterOrEqual("."+prefix, func(key string) bool {
		_, rel := splitKey(key)
		return strings.HasPrefix(rel, prefix) && f(key)
	})
}
