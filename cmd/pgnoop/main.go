// Command pgnoop runs the benchmarks' no-op responder (package bench/noop):
// a PostgreSQL-protocol server that answers every statement with a
// counter, the ceiling seqd is measured against; with -mysql, -http and
// -grpc, the same over MySQL's protocol, the HTTP API's route and the
// gRPC service too.
package main

import (
	"flag"
	"log"
	"net"

	"github.com/seqd/seqd/bench/noop"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:6544", "address to listen on")
	my := flag.String("mysql", "", "address to answer MySQL's protocol on too (empty: none), e.g. 127.0.0.1:3307")
	httpAddr := flag.String("http", "", "address to answer the HTTP API's nextval on too (empty: none), e.g. 127.0.0.1:8081")
	grpcAddr := flag.String("grpc", "", "address to answer the gRPC service on too (empty: none), e.g. 127.0.0.1:9091")
	flag.Parse()
	for _, a := range []struct {
		addr, what string
		serve      func(net.Listener) error
	}{{*httpAddr, "the HTTP API", new(noop.HTTPServer).Serve}, {*grpcAddr, "the gRPC service", new(noop.GRPCServer).Serve}} {
		if a.addr == "" {
			continue
		}
		l, err := net.Listen("tcp", a.addr)
		if err != nil {
			log.Fatal(err)
		}
		log.Printf("pgnoop answering %s on %s", a.what, l.Addr())
		go func() { log.Fatal(a.serve(l)) }()
	}
	if *my != "" {
		ml, err := net.Listen("tcp", *my)
		if err != nil {
			log.Fatal(err)
		}
		log.Printf("pgnoop answering MySQL's protocol on %s", ml.Addr())
		go func() { log.Fatal(new(noop.MySQLServer).Serve(ml)) }()
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("pgnoop listening on %s", ln.Addr())
	log.Fatal(new(noop.Server).Serve(ln))
}
