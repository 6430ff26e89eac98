//go:build faultinject

package main

import (
	"bufio"
	"flag"
	"log"
	"os"
	"time"

	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/storage/faultfs"
)

// Fault injection, for the torture harness only: built with -tags
// faultinject (the test kit's seqd binary is), never in the binary
// operators run, where -fault-injection used to keep the store in memory
// silently (a kill -9 lost everything).

type faultConfig struct {
	on   *bool
	seed *uint64
}

func faultFlags() faultConfig {
	return faultConfig{
		on:   flag.Bool("fault-injection", false, "testing only: keep the store in memory over -data, read fault commands from standard input (see package faultfs)"),
		seed: flag.Uint64("fault-seed", uint64(time.Now().UnixNano()), "testing only: seed of -fault-injection's crash clones"),
	}
}

// start puts the store on the fault-injecting file system when asked
// and returns what writes it to the real directory at a clean exit; nil
// when fault injection is off.
func (f faultConfig) start(cfg *server.Config) func() error {
	if !*f.on {
		return nil
	}
	ffs, dir, err := faultfs.Open(cfg.DataDir, *f.seed)
	if err != nil {
		log.Fatal(err)
	}
	log.Print("fault injection: the store lives in memory until a clean exit or a power loss writes it out")
	cfg.DataDir, cfg.FS = dir, ffs
	go faultCommands(ffs)
	return ffs.Persist
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
