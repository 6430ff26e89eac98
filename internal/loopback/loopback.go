// Package loopback finds free addresses on the loopback interface, for
// servers started a moment later (seqbench's and the torture harness's
// nodes, tests).
package loopback

import "net"

// FreeAddr is a loopback address nobody listens on now. Another process
// may take it before the caller binds it; callers that can listen on
// port 0 instead should.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
