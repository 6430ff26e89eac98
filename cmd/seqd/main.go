// Command seqd is the sequence-number server: PostgreSQL's sequences over
// its wire protocol, served from memory over a durable high-water mark.
package main

import (
	"bufio"
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/storage/faultfs"
)

func main() {
	var cfg server.Config
	flag.StringVar(&cfg.DataDir, "data", "seqd-data", "directory of the embedded store")
	flag.StringVar(&cfg.Listen, "listen", "127.0.0.1:6543", "address for the PostgreSQL protocol")
	flag.Int64Var(&cfg.MaxBulkRows, "max-bulk-rows", 10_000_000, "most rows of one generate_series or seqd_reserve")
	flag.IntVar(&cfg.MaxConns, "max-connections", 10_000, "most client connections at once; more are refused with SQLSTATE 53300")
	flag.IntVar(&cfg.MaxMessage, "max-statement-bytes", 1<<20, "longest protocol message (and so statement); longer ends the connection with SQLSTATE 54000")
	flag.DurationVar(&cfg.IdleTimeout, "idle-timeout", 0, "end a connection that sends nothing, or reads none of its results, for this long (0: never)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	faults := flag.Bool("fault-injection", false, "testing only: keep the store in memory over -data, read fault commands from standard input (see package faultfs)")
	faultSeed := flag.Uint64("fault-seed", uint64(time.Now().UnixNano()), "testing only: seed of -fault-injection's crash clones")
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

	var ffs *faultfs.FS
	if *faults {
		var err error
		if ffs, cfg.DataDir, err = faultfs.Open(cfg.DataDir, *faultSeed); err != nil {
			log.Fatal(err)
		}
		cfg.FS = ffs
		go faultCommands(ffs)
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
	err = s.Shutdown(ctx)
	if ffs != nil {
		if perr := ffs.Persist(); perr != nil {
			log.Printf("fault injection: persist: %v", perr)
			os.Exit(1)
		}
	}
	if err != nil {
		log.Printf("shutdown: %v", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	log.Print("clean shutdown")
}

// faultCommands carries out the fault commands read from standard input,
// one a line; a power loss ends the process at once with status 3.
func faultCommands(fs *faultfs.FS) {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		lost, err := fs.Command(in.Text())
		if lost {
			if err != nil {
				log.Printf("fault injection: power loss: %v", err)
			}
			os.Exit(3)
		}
		if err != nil {
			log.Print(err)
		}
	}
}
