package torture

import "github.com/seqd/seqd/internal/selfsigned"

// secure is how a secure run reaches seqd: over TLS, as its superuser
// with a password (SCRAM-SHA-256).
type secure struct {
	cert, key string
	password  string
}

const torturePassword = "torture-pw"

// newSecure writes a self-signed certificate for 127.0.0.1 into dir.
func newSecure(dir string) (*secure, error) {
	cert, key, err := selfsigned.Write(dir)
	if err != nil {
		return nil, err
	}
	return &secure{cert: cert, key: key, password: torturePassword}, nil
}

// dsnFor is the connection string of a run's clients.
func dsnFor(addr string, s *secure) string {
	if s == nil {
		return "postgres://torture@" + addr + "/seqd?sslmode=disable"
	}
	return "postgres://seqd:" + s.password + "@" + addr + "/seqd?sslmode=require"
}
