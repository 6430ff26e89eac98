// Command pgnoop runs the benchmarks' no-op responder (package bench/noop):
// a PostgreSQL-protocol server that answers every statement with a
// counter, the ceiling seqd is measured against.
package main

import (
	"flag"
	"log"
	"net"

	"github.com/seqd/seqd/bench/noop"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:6544", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("pgnoop listening on %s", ln.Addr())
	log.Fatal(new(noop.Server).Serve(ln))
}
