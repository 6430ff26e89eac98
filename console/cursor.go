package console

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
)

// cursors seals the keys a listing by name continues after, so that the
// cursor a page hands out tells nothing: a page whose scan ran out
// before its limit continues after the last key it looked at, which may
// be a sequence the viewer holds no privilege on (its name is not to be
// shown), and a cursor made up by the client could ask where such names
// lie. A cursor is the key under AES-GCM with a key made at New: it
// opens only on the console that sealed it. It is safe for concurrent
// use.
type cursors struct{ aead cipher.AEAD }

func newCursors() *cursors {
	key := make([]byte, 32)
	rand.Read(key)
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // unreachable: the key is 32 bytes
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err) // unreachable: AES has GCM's block size
	}
	return &cursors{aead: aead}
}

// errCursor is a cursor this console did not seal.
var errCursor = errors.New("after must be the next of a page this server listed")

// cursorPad: a key is sealed padded with NULs (which no name holds) to a
// multiple of this, so that a cursor's length does not tell its name's.
const cursorPad = 256

// seal is key as a cursor; "" (no next page) stays "".
func (c *cursors) seal(key string) string {
	if key == "" {
		return ""
	}
	plain := make([]byte, (len(key)/cursorPad+1)*cursorPad)
	copy(plain, key)
	nonce := make([]byte, c.aead.NonceSize(), c.aead.NonceSize()+len(plain)+c.aead.Overhead())
	rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(c.aead.Seal(nonce, nonce, plain, nil))
}

// open is the key cursor seals; "" (the first page) stays "".
func (c *cursors) open(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) < c.aead.NonceSize() {
		return "", errCursor
	}
	plain, err := c.aead.Open(nil, b[:c.aead.NonceSize()], b[c.aead.NonceSize():], nil)
	key := strings.TrimRight(string(plain), "\x00")
	if err != nil || key == "" {
		return "", errCursor
	}
	return key, nil
}
