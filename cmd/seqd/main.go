// Command seqd is the sequence-number server: PostgreSQL's sequences over
// its wire protocol, served from memory over a durable high-water mark.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/seqd/seqd/server"
)

func main() {
	var cfg server.Config
	flag.StringVar(&cfg.DataDir, "data", "seqd-data", "directory of the embedded store")
	flag.StringVar(&cfg.Listen, "listen", "127.0.0.1:6543", "address for the PostgreSQL protocol")
	flag.Int64Var(&cfg.MaxBulkRows, "max-bulk-rows", 10_000_000, "most rows of one generate_series or seqd_reserve")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("seqd listening on %s, data in %s", s.Addr(), cfg.DataDir)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case got := <-sig:
		log.Printf("%s: shutting down", got)
	case err := <-s.Done():
		log.Printf("listener failed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		log.Printf("shutdown: %v", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	log.Print("clean shutdown")
}
