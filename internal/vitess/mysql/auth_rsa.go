// seqd: caching_sha2_password's full authentication without TLS, the
// password encrypted with the server's RSA key, as MySQL's server does
// it (sql/auth/sha2_password.cc): after "perform full authentication"
// the client either sends the password encrypted with a public key it
// was given, or asks for the key (a packet of the one byte 2) and is sent
// it as PEM in an AuthMoreData packet, then sends the password so. The
// plaintext is the password and a NUL, XORed with the handshake's salt,
// encrypted with RSA-OAEP (SHA-1).

package mysql

import (
	"context"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/pem"
)

// cachingSha2RequestPublicKey is the client's request for the server's
// public key.
const cachingSha2RequestPublicKey = 2

// NewSha2CachingAuthMethodRSA creates an AuthMethod that implements the
// `caching_sha2_password` handshake: the cache for the fast path, the
// plain text storage for the full authentication, which upstream's
// NewSha2CachingAuthMethod takes only over TLS or a Unix socket, and this
// also without, the password encrypted with the RSA key key returns
// (called when a client first needs it). With a nil key it is upstream's
// NewSha2CachingAuthMethod, deleted as seqd does not use it.
func NewSha2CachingAuthMethodRSA(layer1 CachingStorage, layer2 PlainTextStorage, validator UserValidator, key func() (*rsa.PrivateKey, error)) AuthMethod {
	return &mysqlCachingSha2AuthMethod{cache: layer1, storage: layer2, validator: validator, rsaKey: key}
}

// readEncryptedPassword reads the password of a full authentication
// over a connection without TLS, sending the public key if asked.
func (n *mysqlCachingSha2AuthMethod) readEncryptedPassword(c *Conn, user string, salt []byte) (string, error) {
	key, err := n.rsaKey()
	if err != nil {
		return "", err
	}
	data, err := c.ReadPacket(context.Background())
	if err != nil {
		return "", err
	}
	if len(data) == 1 && data[0] == cachingSha2RequestPublicKey {
		der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if err != nil {
			return "", err
		}
		pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		out := c.startEphemeralPacket(1 + len(pub))
		copy(out[writeByte(out, 0, AuthMoreDataPacket):], pub)
		if err := c.writeEphemeralPacket(); err != nil {
			return "", err
		}
		if data, err = c.ReadPacket(context.Background()); err != nil {
			return "", err
		}
	}
	denied := NewSQLError(ERAccessDeniedError, SSAccessDeniedError, "Access denied for user '%v' (using password: YES)", user)
	if len(data) != key.Size() || len(salt) == 0 {
		// Not encrypted with this key: a client that sent its password
		// in the clear over a connection without TLS, or garbage.
		return "", denied
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), nil, key, data, nil)
	if err != nil {
		return "", denied
	}
	for i := range plain {
		plain[i] ^= salt[i%len(salt)]
	}
	if len(plain) == 0 || plain[len(plain)-1] != 0 {
		return "", denied
	}
	return string(plain[:len(plain)-1]), nil
}
