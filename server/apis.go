// The driverless APIs' listeners: the HTTP/JSON API and gRPC, their
// calls served by apicore on the same engine, budget and roles as the
// SQL front ends.

package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/grpcapi"
	"github.com/seqd/seqd/httpapi"
	"github.com/seqd/seqd/pgwire"
)

// listenAPIs starts the driverless APIs asked for: the HTTP/JSON API
// and the gRPC service, each with TLS (the server's certificate) when it
// has one, required off loopback unless waived; authentication trust
// only where -auth is trust and the API's address is loopback too, else
// the roles' passwords.
func (s *Server) listenAPIs(cfg Config, pc pgwire.Config) error {
	listen := func(flag, addr string) (net.Listener, error) {
		if pc.TLS == nil && AuthFor(addr) != pgwire.AuthTrust && !cfg.APIInsecure {
			return nil, fmt.Errorf("seqd: -%s %s is not loopback: it needs TLS (-tls-cert, -tls-key), or -api-insecure to send passwords in the clear", flag, addr)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("seqd: %s: %w", flag, err)
		}
		return l, nil
	}
	secure := ""
	if pc.TLS != nil {
		secure = "s"
	}
	if cfg.APIListen != "" {
		al, err := listen("api-listen", cfg.APIListen)
		if err != nil {
			return err
		}
		s.apiLn = al
		// Each its own copy: net/http adds HTTP/2 to the one it serves.
		hc := httpapi.Config{Config: s.apiCore(cfg, pc, cfg.APIListen), TLS: pc.TLS.Clone(), OnStatement: s.metrics.onStatement, Logger: cfg.Logger}
		if n := s.node; n != nil {
			hc.Forward = func() (string, bool) {
				a, ok := n.leaderAPIs()
				return a.HTTP, ok && a.HTTP != ""
			}
			hc.ForwardTLS = s.peerTLS()
		}
		api := httpapi.NewServer(hc)
		s.api = api
		s.others = append(s.others, door{
			setAuth: func(method string) { api.SetAuth(apiAuth(method, cfg.APIListen)) },
			stop:    func(ctx context.Context) { api.Shutdown(ctx) },
		})
		go api.Serve(al)
		cfg.Logger.Printf("HTTP API on http%s://%s, authentication %s", secure, al.Addr(), apiAuth(cfg.Auth, cfg.APIListen))
	}
	if cfg.GRPCListen != "" {
		gl, err := listen("grpc-listen", cfg.GRPCListen)
		if err != nil {
			return err
		}
		s.grpcLn = gl
		gc := grpcapi.Config{Config: s.apiCore(cfg, pc, cfg.GRPCListen), TLS: pc.TLS.Clone(), OnStatement: s.metrics.onStatement,
			Logger: cfg.Logger}
		if n := s.node; n != nil {
			gc.Forward = func() (string, bool) {
				a, ok := n.leaderAPIs()
				return a.GRPC, ok && a.GRPC != ""
			}
			gc.ForwardTLS = s.peerTLS()
		}
		gs := grpcapi.NewServer(gc)
		s.grpc = gs
		s.others = append(s.others, door{
			setAuth: func(method string) { gs.SetAuth(apiAuth(method, cfg.GRPCListen)) },
			stop:    func(ctx context.Context) { gs.Shutdown(ctx) },
		})
		go gs.Serve(gl)
		tls := "plaintext"
		if pc.TLS != nil {
			tls = "TLS"
		}
		cfg.Logger.Printf("gRPC service on %s (%s), authentication %s", gl.Addr(), tls, apiAuth(cfg.Auth, cfg.GRPCListen))
	}
	return nil
}

// apiCore is what the driverless APIs listening on listen share with
// the SQL front ends: the engine or node, the connection budget, the
// roles' authentication under -auth, limits and session defaults.
func (s *Server) apiCore(cfg Config, pc pgwire.Config, listen string) apicore.Config {
	return apicore.Config{Engine: pc.Engine, Node: pc.Node, Registry: s.pg.Registry(), Auth: apiAuth(cfg.Auth, listen), Superuser: cfg.Superuser,
		MaxBulkRows: cfg.MaxBulkRows, MaxStatementMemory: cfg.MaxStatementMemory, SessionDefaults: cfg.SessionDefaults, AuthTimeout: cfg.AuthTimeout}
}

// peerTLS is how a follower reaches the leader's APIs when they serve
// TLS: verifying the leader's certificate against -tls-ca when given,
// else the system's roots; nil without TLS.
func (s *Server) peerTLS() *tls.Config {
	if s.tls == nil {
		return nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.cfg.TLSClientCA != "" {
		if pem, err := os.ReadFile(s.cfg.TLSClientCA); err == nil {
			c.RootCAs = x509.NewCertPool()
			c.RootCAs.AppendCertsFromPEM(pem)
		}
	}
	return c
}

// apiAuth is the driverless APIs' authentication under -auth method, as
// mysqlAuth.
func apiAuth(method, listen string) string {
	if trusted(method, listen) {
		return httpapi.AuthTrust
	}
	return httpapi.AuthPassword
}
