package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/internal/selfsigned"
)

// TestAPIListen: the HTTP API off loopback needs TLS unless waived, and
// its authentication follows -auth: under SCRAM a request without
// credentials is refused (401), as MySQL's front end refuses one.
func TestAPIListen(t *testing.T) {
	ctx := context.Background()
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "d"), Listen: "127.0.0.1:0", APIListen: "0.0.0.0:0", MaxConns: 10,
		Auth: "scram-sha-256", Password: "pw", Logger: log.New(io.Discard, "", 0)}
	if s, err := Start(ctx, cfg); err == nil || !strings.Contains(err.Error(), "-api-insecure") {
		if err == nil {
			s.Shutdown(ctx)
		}
		t.Fatalf("-api-listen off loopback without TLS: %v, want a refusal naming -api-insecure", err)
	}
	cfg.APIListen = "127.0.0.1:0"
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	url := "http://" + s.APIAddr().String() + "/v1/sequences/public/x"
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no credentials under SCRAM: %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest("PUT", url, nil)
	req.SetBasicAuth("seqd", "pw")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("create as the superuser: %d, want 201", resp.StatusCode)
	}
}

// TestGRPCListen: the gRPC service off loopback needs TLS unless waived;
// over TLS with the server's certificate, a role's password (Basic in
// the authorization metadata) gets values, none gets UNAUTHENTICATED.
func TestGRPCListen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{DataDir: filepath.Join(dir, "d"), Listen: "127.0.0.1:0", GRPCListen: "0.0.0.0:0", MaxConns: 10,
		Auth: "scram-sha-256", Password: "pw", Logger: log.New(io.Discard, "", 0)}
	if s, err := Start(ctx, cfg); err == nil || !strings.Contains(err.Error(), "-grpc-listen") || !strings.Contains(err.Error(), "-api-insecure") {
		if err == nil {
			s.Shutdown(ctx)
		}
		t.Fatalf("-grpc-listen off loopback without TLS: %v, want a refusal naming it and -api-insecure", err)
	}
	cert, key, err := selfsigned.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSCert, cfg.TLSKey, cfg.GRPCListen = cert, key, "127.0.0.1:0"
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(ctx)
	pem, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	conn, err := grpc.NewClient(s.GRPCAddr().String(), grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: roots})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := seqdv1.NewSequencesClient(conn)
	seq := &seqdv1.Sequence{Schema: "public", Name: "g"}
	if _, err := c.Next(ctx, &seqdv1.NextRequest{Sequence: seq}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("no credentials under SCRAM: %v, want UNAUTHENTICATED", err)
	}
	db, err := pgx.Connect(ctx, "postgres://seqd:pw@"+s.Addr().String()+"/seqd?sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, "create sequence g"); err != nil {
		t.Fatal(err)
	}
	as := metadata.AppendToOutgoingContext(ctx, "authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("seqd:pw")))
	r, err := c.Next(as, &seqdv1.NextRequest{Sequence: seq, Count: 3})
	if err != nil || len(r.Values) != 3 || r.Values[0] != 1 {
		t.Fatalf("Next over TLS as the superuser: %v %v", r, err)
	}
	var next int64
	if err := db.QueryRow(ctx, "select nextval('g')").Scan(&next); err != nil || next != 4 {
		t.Errorf("nextval over PostgreSQL's protocol after gRPC's three: %d %v", next, err)
	}
}
