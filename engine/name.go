// Names: a sequence's schema-qualified name, which is also its key in
// the store.

package engine

import (
	"fmt"
	"strings"
)

// Name is a schema-qualified sequence name, built once by NewName and cheap
// to pass on every call.
type Name struct {
	key string // schema + "." + relation; the store's key
	rel int    // where the relation name starts in key
}

// NewName builds a name. The schema must be non-empty and contain no '.';
// the relation name may be anything non-empty.
func NewName(schema, rel string) (Name, error) {
	if schema == "" || rel == "" || strings.IndexByte(schema, '.') >= 0 {
		return Name{}, &Error{Kind: ErrInvalidName, Msg: fmt.Sprintf("invalid sequence name %q.%q", schema, rel)}
	}
	return Name{key: schema + "." + rel, rel: len(schema) + 1}, nil
}

// NameFromKey is the name whose String is key, if key is one.
func NameFromKey(key string) (Name, bool) { return nameFromKey(key) }

func nameFromKey(key string) (Name, bool) {
	i := strings.IndexByte(key, '.')
	if i <= 0 || i == len(key)-1 {
		return Name{}, false
	}
	return Name{key: key, rel: i + 1}, true
}

// Schema is the name's schema.
func (n Name) Schema() string { return n.key[:max(n.rel-1, 0)] }

// Rel is the relation name, as PostgreSQL's messages show it.
func (n Name) Rel() string { return n.key[n.rel:] }

func (n Name) String() string { return n.key }

func notFound(n Name) error {
	return &Error{Kind: ErrNotFound, Msg: fmt.Sprintf("relation \"%s\" does not exist", n.Rel())}
}
