package grpcapi

import (
	"context"
	"testing"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/grpcapi/seqdv1"
	"github.com/seqd/seqd/seqmath"
)

// BenchmarkNext is one client's Next of one value after another over a
// loopback connection: the whole call, grpc-go's and the network's share
// included, so compare it only within one run.
func BenchmarkNext(b *testing.B) {
	c, _, eng := serve(b, Config{Config: apicore.Config{Auth: apicore.AuthTrust}})
	cache := int64(1000)
	create(b, eng, "b", seqmath.Spec{Cache: &cache})
	ctx := context.Background()
	req := &seqdv1.NextRequest{Sequence: seq("b")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Next(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNextCount is one client's Next of 100 values after another.
func BenchmarkNextCount(b *testing.B) {
	c, _, eng := serve(b, Config{Config: apicore.Config{Auth: apicore.AuthTrust}})
	cache := int64(1000)
	create(b, eng, "b", seqmath.Spec{Cache: &cache})
	ctx := context.Background()
	req := &seqdv1.NextRequest{Sequence: seq("b"), Count: 100}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Next(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReserve is one client's Reserve of 100 values after another.
func BenchmarkReserve(b *testing.B) {
	c, _, eng := serve(b, Config{Config: apicore.Config{Auth: apicore.AuthTrust}})
	cache := int64(1000)
	create(b, eng, "b", seqmath.Spec{Cache: &cache})
	ctx := context.Background()
	req := &seqdv1.ReserveRequest{Sequence: seq("b"), Count: 100}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Reserve(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
