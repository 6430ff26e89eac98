package grpcapi

import (
	"context"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/grpcapi/seqdv1"
)

// TestTypedAdversarial: an ordinary role's calls on a pooled session
// answer as its SQL statements would: a revoke, the schema's USAGE
// revoked, a sequence dropped and made again, two swapped by renames,
// and the role made read-only by default (ALTER ROLE ... SET), each seen
// by the next call.
func TestTypedAdversarial(t *testing.T) {
	c, _, eng := serve(t, Config{Config: apicore.Config{Auth: apicore.AuthTrust}})
	ctx := context.Background()
	if err := eng.PutRole(ctx, engine.Role{Name: "app", Login: true}, true); err != nil {
		t.Fatal(err)
	}
	root, err := executor.NewSession(executor.Config{Engine: eng, User: "seqd", Superuser: "seqd", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	as := metadata.AppendToOutgoingContext(ctx, "authorization", basic("app", ""))
	next := func(schema, name string) (int64, error) {
		r, err := c.Next(as, &seqdv1.NextRequest{Sequence: &seqdv1.Sequence{Schema: schema, Name: name}})
		if err != nil {
			return 0, err
		}
		return r.Values[0], nil
	}
	runSQL(t, root, "create sequence s; grant usage on sequence s to app")
	for range 3 {
		if _, err := next("public", "s"); err != nil {
			t.Fatalf("app with USAGE: %v", err)
		}
	}
	runSQL(t, root, "revoke usage on sequence s from app")
	_, err = next("public", "s")
	fails(t, "after the revoke", err, codes.PermissionDenied, "42501", nil)
	_, err = c.Reserve(as, &seqdv1.ReserveRequest{Sequence: seq("s"), Count: 2})
	fails(t, "reserve after the revoke", err, codes.PermissionDenied, "42501", nil)

	runSQL(t, root, "create schema sch; create sequence sch.a; create sequence sch.b start 1000; grant usage on schema sch to app; grant usage on sequence sch.a, sch.b to app")
	if v, err := next("sch", "a"); err != nil || v != 1 {
		t.Fatalf("sch.a: %v %v", v, err)
	}
	runSQL(t, root, "alter sequence sch.a rename to tmp; alter sequence sch.b rename to a; alter sequence sch.tmp rename to b")
	if v, err := next("sch", "a"); err != nil || v != 1000 {
		t.Errorf("sch.a after the swap: %v %v, want 1000", v, err)
	}
	runSQL(t, root, "drop sequence sch.a; create sequence sch.a start 77; grant usage on sequence sch.a to app")
	if v, err := next("sch", "a"); err != nil || v != 77 {
		t.Errorf("sch.a made again: %v %v, want 77", v, err)
	}
	runSQL(t, root, "revoke usage on schema sch from app")
	_, err = next("sch", "a")
	fails(t, "after the schema's USAGE revoked", err, codes.PermissionDenied, "42501", nil)

	runSQL(t, root, "grant usage on sequence s to app; alter role app set default_transaction_read_only = on")
	_, err = next("public", "s")
	fails(t, "read-only by default", err, codes.Unavailable, "25006", nil)
	runSQL(t, root, "alter role app nologin")
	_, err = next("public", "s")
	fails(t, "a NOLOGIN role", err, codes.Unauthenticated, "28000", nil)
}
