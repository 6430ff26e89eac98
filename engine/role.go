package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/seqd/seqd/storage"
)

// Roles are catalog records: who may connect, and with what SCRAM-SHA-256
// verifier. A role's key is catalogPrefix + "role:" + its name; the value
// is, as part of the on-disk format:
//
//	ver=1 or 2 | flags (bit 0 superuser, bit 1 login, bit 2 has a verifier,
//	bit 3 createrole, bit 4 has memberships, bit 5 has settings,
//	bit 6 (ver 2 only) the verifier has a mysql_native_password hash) |
//	[iterations (u32 BE) | salt length (u8) | salt | StoredKey (32) | ServerKey (32) |
//	 [native hash (20)]] |
//	[count (u16 BE) | count x (admin option (u8) | name length (u8) | name)] |
//	[count (u16 BE) | count x (name length (u8) | name | value length (u16 BE) | value)] |
//	[count (u16 BE) | count x (id (16) | SHA-256 of the secret (32) |
//	 created, expires (unix microseconds, i64 BE each) | label length (u8) | label)]
//
// The last part (flags bit 7, ver 3 only) is the role's bearer tokens.
// The memberships (GRANT role TO this role) live in the member's record,
// so that they change with it, transactionally.
// The password itself is never stored.
const (
	roleKey     = catalogPrefix + "role:"
	roleVersion = 3 // 1 for records without a native hash, 2 without tokens, as before them
)

// Sentinel errors of roles.
var (
	ErrNoRole     = errors.New("seqd: role not found")
	ErrRoleExists = errors.New("seqd: role already exists")
)

// Verifier is what checks a role's password without it: a SCRAM-SHA-256
// verifier (RFC 7677), as PostgreSQL keeps in pg_authid.rolpassword, and
// mysql_native_password's hash, as MySQL keeps in mysql.user.
type Verifier struct {
	Salt                 []byte
	Iterations           int
	StoredKey, ServerKey []byte
	// Native is SHA1(SHA1(password)); nil for a password set before seqd
	// spoke MySQL's protocol (it must be set again to log in there).
	Native []byte
}

// Setting is one configuration parameter's value.
type Setting struct{ Name, Value string }

// Membership is one role granted to another, WITH ADMIN OPTION or not.
type Membership struct {
	Role  string
	Admin bool
}

// Role is a role's attributes.
type Role struct {
	Name      string
	Superuser bool
	Login     bool
	// CreateRole is PostgreSQL's CREATEROLE: the role may create, alter
	// and drop roles that are not superusers.
	CreateRole bool
	// MemberOf are the roles granted to this one (pg_auth_members), in the
	// order granted.
	MemberOf []Membership
	// Settings are the role's defaults for its sessions (ALTER ROLE ...
	// SET; pg_roles.rolconfig), in the order set.
	Settings []Setting
	Verifier *Verifier // nil: no password, so no password login
	// Tokens are the bearer tokens the role made for the driverless APIs,
	// in the order made (at most MaxTokens).
	Tokens []Token
	rev    storage.Rev
}

// Token is a bearer token: its ID, the SHA-256 of its secret (the secret
// is shown once, when made, and never stored), a label, and when it was
// made and expires.
type Token struct {
	ID               [16]byte
	Hash             [32]byte
	Label            string
	Created, Expires time.Time
}

// MaxTokens bounds a role's tokens (its record's size); MaxTokenLabel a
// token's label, in bytes.
const (
	MaxTokens     = 100
	MaxTokenLabel = 255
)

func (r Role) encode() []byte {
	b := []byte{1, 0}
	if r.Superuser {
		b[1] |= 1
	}
	if r.Login {
		b[1] |= 2
	}
	if r.CreateRole {
		b[1] |= 8
	}
	if v := r.Verifier; v != nil {
		b[1] |= 4
		b = binary.BigEndian.AppendUint32(b, uint32(v.Iterations))
		b = append(b, byte(len(v.Salt)))
		b = append(b, v.Salt...)
		b = append(b, v.StoredKey...)
		b = append(b, v.ServerKey...)
		if len(v.Native) == 20 {
			b[0], b[1] = 2, b[1]|64
			b = append(b, v.Native...)
		}
	}
	if len(r.MemberOf) > 0 {
		b[1] |= 16
		b = binary.BigEndian.AppendUint16(b, uint16(len(r.MemberOf)))
		for _, m := range r.MemberOf {
			admin := byte(0)
			if m.Admin {
				admin = 1
			}
			b = append(b, admin, byte(len(m.Role)))
			b = append(b, m.Role...)
		}
	}
	if len(r.Settings) > 0 {
		b[1] |= 32
		b = binary.BigEndian.AppendUint16(b, uint16(len(r.Settings)))
		for _, st := range r.Settings {
			b = append(b, byte(len(st.Name)))
			b = append(b, st.Name...)
			b = binary.BigEndian.AppendUint16(b, uint16(len(st.Value)))
			b = append(b, st.Value...)
		}
	}
	if len(r.Tokens) > 0 {
		b[0], b[1] = 3, b[1]|128
		b = binary.BigEndian.AppendUint16(b, uint16(len(r.Tokens)))
		for _, t := range r.Tokens {
			b = append(b, t.ID[:]...)
			b = append(b, t.Hash[:]...)
			b = binary.BigEndian.AppendUint64(b, uint64(t.Created.UnixMicro()))
			b = binary.BigEndian.AppendUint64(b, uint64(t.Expires.UnixMicro()))
			b = append(b, byte(len(t.Label)))
			b = append(b, t.Label...)
		}
	}
	return b
}

func decodeRole(name string, b []byte) (Role, error) {
	if len(b) > 0 && b[0] > roleVersion {
		return Role{}, newerRecord("role", b[0], roleVersion)
	}
	bad := fmt.Errorf("seqd: corrupt role record %q", name)
	if len(b) < 2 || b[0] < 1 || b[1]&128 != 0 && b[0] < 3 || b[1]&64 != 0 && (b[0] < 2 || b[1]&4 == 0) {
		return Role{}, bad
	}
	r := Role{Name: name, Superuser: b[1]&1 != 0, Login: b[1]&2 != 0, CreateRole: b[1]&8 != 0}
	rest := b[2:]
	if b[1]&4 != 0 {
		if len(rest) < 5 {
			return Role{}, bad
		}
		n := int(rest[4])
		if len(rest) < 5+n+64 {
			return Role{}, bad
		}
		r.Verifier = &Verifier{Iterations: int(binary.BigEndian.Uint32(rest)), Salt: rest[5 : 5+n], StoredKey: rest[5+n : 5+n+32], ServerKey: rest[5+n+32 : 5+n+64]}
		rest = rest[5+n+64:]
		if b[1]&64 != 0 {
			if len(rest) < 20 {
				return Role{}, bad
			}
			r.Verifier.Native, rest = rest[:20], rest[20:]
		}
	}
	if b[1]&16 != 0 {
		if len(rest) < 2 {
			return Role{}, bad
		}
		count := int(binary.BigEndian.Uint16(rest))
		rest = rest[2:]
		for range count {
			if len(rest) < 2 || len(rest) < 2+int(rest[1]) {
				return Role{}, bad
			}
			r.MemberOf = append(r.MemberOf, Membership{Admin: rest[0] != 0, Role: string(rest[2 : 2+int(rest[1])])})
			rest = rest[2+int(rest[1]):]
		}
	}
	if b[1]&32 != 0 {
		if len(rest) < 2 {
			return Role{}, bad
		}
		count := int(binary.BigEndian.Uint16(rest))
		rest = rest[2:]
		for range count {
			if len(rest) < 1 || len(rest) < 1+int(rest[0])+2 {
				return Role{}, bad
			}
			name := string(rest[1 : 1+int(rest[0])])
			rest = rest[1+int(rest[0]):]
			n := int(binary.BigEndian.Uint16(rest))
			if len(rest) < 2+n {
				return Role{}, bad
			}
			r.Settings = append(r.Settings, Setting{Name: name, Value: string(rest[2 : 2+n])})
			rest = rest[2+n:]
		}
	}
	if b[1]&128 != 0 {
		if len(rest) < 2 {
			return Role{}, bad
		}
		count := int(binary.BigEndian.Uint16(rest))
		rest = rest[2:]
		for range count {
			const fixed = 16 + 32 + 8 + 8 + 1
			if len(rest) < fixed || len(rest) < fixed+int(rest[fixed-1]) {
				return Role{}, bad
			}
			var t Token
			copy(t.ID[:], rest[:16])
			copy(t.Hash[:], rest[16:48])
			t.Created = time.UnixMicro(int64(binary.BigEndian.Uint64(rest[48:])))
			t.Expires = time.UnixMicro(int64(binary.BigEndian.Uint64(rest[56:])))
			t.Label = string(rest[fixed : fixed+int(rest[fixed-1])])
			r.Tokens = append(r.Tokens, t)
			rest = rest[fixed+int(rest[fixed-1]):]
		}
	}
	if len(rest) != 0 {
		return Role{}, bad
	}
	return r, nil
}

func (e *Engine) loadRole(kv storage.KV) error {
	name := strings.TrimPrefix(kv.Key, roleKey)
	r, err := decodeRole(name, kv.Value)
	if err != nil {
		return err
	}
	r.rev = kv.Rev
	e.roles[name] = r
	return nil
}

// Role returns a role by name.
func (e *Engine) Role(name string) (Role, bool) {
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	r, ok := e.roles[name]
	return r, ok
}

// Roles lists the roles by name.
func (e *Engine) Roles() []Role {
	e.catMu.RLock()
	out := make([]Role, 0, len(e.roles))
	for _, r := range e.roles {
		out = append(out, r)
	}
	e.catMu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PutRole creates a role (create) or replaces an existing one's
// attributes, durably.
func (e *Engine) PutRole(ctx context.Context, r Role, create bool) error {
	if r.Name == "" || strings.ContainsRune(r.Name, 0) {
		return &Error{Kind: ErrInvalidName, Msg: fmt.Sprintf("invalid role name %q", r.Name)}
	}
	e.roleMu.Lock() // invariant 8
	defer e.roleMu.Unlock()
	old, exists := e.Role(r.Name)
	switch {
	case create && exists:
		return &Error{Kind: ErrRoleExists, Msg: fmt.Sprintf("role \"%s\" already exists", r.Name)}
	case !create && !exists:
		return &Error{Kind: ErrNoRole, Msg: fmt.Sprintf("role \"%s\" does not exist", r.Name)}
	}
	rev, err := e.writeCatalog(storage.Op{Key: roleKey + r.Name, Value: r.encode(), Expect: old.rev})
	if err != nil {
		return err
	}
	r.rev = rev
	e.catMu.Lock()
	e.roles[r.Name] = r
	e.catMu.Unlock()
	e.authVersion.Add(1)
	return nil
}

// DropRole removes a role durably.
func (e *Engine) DropRole(ctx context.Context, name string) error {
	e.roleMu.Lock() // invariant 8
	defer e.roleMu.Unlock()
	old, exists := e.Role(name)
	if !exists {
		return &Error{Kind: ErrNoRole, Msg: fmt.Sprintf("role \"%s\" does not exist", name)}
	}
	if _, err := e.writeCatalog(storage.Op{Key: roleKey + name, Expect: old.rev}); err != nil {
		return err
	}
	e.catMu.Lock()
	delete(e.roles, name)
	e.catMu.Unlock()
	e.authVersion.Add(1)
	return nil
}

// RenameRole renames a role, and every record naming it, as a
// transaction of its own (Txn.RenameRole).
func (e *Engine) RenameRole(ctx context.Context, from, to string) error {
	t := e.Begin()
	defer t.Rollback()
	if err := t.RenameRole(ctx, from, to); err != nil {
		return err
	}
	return t.Commit(ctx)
}

// RoleRename is a role renamed from one name to another, committed when
// AuthVersion became Version.
type RoleRename struct {
	From, To string
	Version  uint64
}

// maxRenames bounds the renames kept for sessions to follow: one that
// misses a rename of its own role (more than this many renames since its
// last statement) finds its role gone, and with it its privileges.
const maxRenames = 1024

// bumpAuth advances AuthVersion for a commit, noting its renames.
func (e *Engine) bumpAuth(renames []RoleRename) {
	if len(renames) == 0 {
		e.authVersion.Add(1)
		return
	}
	e.renameMu.Lock() // invariant 16: the renames with their version
	defer e.renameMu.Unlock()
	v := e.authVersion.Add(1)
	for _, r := range renames {
		r.Version = v
		e.renames = append(e.renames, r)
	}
	if over := len(e.renames) - maxRenames; over > 0 {
		e.renames = append(e.renames[:0:0], e.renames[over:]...)
	}
}

// RoleRenamesSince lists the roles renamed after AuthVersion was since,
// in order, and the AuthVersion they bring the caller to: sessions follow
// their roles through renames by the names they hold.
func (e *Engine) RoleRenamesSince(since uint64) ([]RoleRename, uint64) {
	e.renameMu.Lock()
	defer e.renameMu.Unlock()
	var out []RoleRename
	for _, r := range e.renames {
		if r.Version > since {
			out = append(out, r)
		}
	}
	return out, e.authVersion.Load()
}
