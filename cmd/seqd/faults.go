//go:build faultinject

package main

import (
	"bufio"
	"flag"
	"log"
	"os"
	"time"

	"github.com/seqd/seqd/internal/faultclock"
	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/storage/faultfs"
)

// Fault injection, for the torture harness only: built with -tags
// faultinject (the test kit's seqd binary is), never in the binary
// operators run, where -fault-injection used to keep the store in memory
// silently (a kill -9 lost everything).

type faultConfig struct {
	on     *bool
	clock  *bool
	offset *time.Duration
	seed   *uint64
}

func faultFlags() faultConfig {
	return faultConfig{
		on:     flag.Bool("fault-injection", false, "testing only: keep the store in memory over -data, read fault commands from standard input (see packages faultfs and faultclock)"),
		clock:  flag.Bool("fault-clock", false, "testing only: read clock commands from standard input (see package faultclock); -fault-injection implies it"),
		offset: flag.Duration("fault-clock-offset", 0, "testing only: the wall clock's offset from the system's at start (a restart into a clock that moved)"),
		seed:   flag.Uint64("fault-seed", uint64(time.Now().UnixNano()), "testing only: seed of -fault-injection's crash clones"),
	}
}

// start puts the store on the fault-injecting file system when asked
// (-fault-injection; a cluster node has no store of its own: -fault-clock
// alone) and the wall clock on a clock the commands step, and returns
// what writes the store to the real directory at a clean exit; nil when
// fault injection is off.
func (f faultConfig) start(cfg *server.Config) func() error {
	if !*f.on && !*f.clock {
		return nil
	}
	clock := faultclock.New(nil)
	clock.Step(*f.offset)
	cfg.WallClock = clock.Now
	var ffs *faultfs.FS
	if *f.on {
		var dir string
		var err error
		ffs, dir, err = faultfs.Open(cfg.DataDir, *f.seed)
		if err != nil {
			log.Fatal(err)
		}
		log.Print("fault injection: the store lives in memory until a clean exit or a power loss writes it out")
		cfg.DataDir, cfg.FS = dir, ffs
	}
	go faultCommands(ffs, clock)
	if ffs == nil {
		return nil
	}
	return ffs.Persist
}

// faultCommands carries out the fault commands read from standard input,
// one a line: the clock's ("clock step -5s", package faultclock), and
// the store's (package faultfs); a power loss ends the process at once
// with status 3.
func faultCommands(fs *faultfs.FS, clock *faultclock.Clock) {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if ok, err := clock.Command(in.Text()); ok {
			if err != nil {
				log.Print(err)
			} else {
				log.Printf("fault injection: %s: the clock is %v off", in.Text(), clock.Offset())
			}
			continue
		}
		if fs == nil {
			log.Printf("fault injection: %q: not a clock command, and the store is not in memory (-fault-injection)", in.Text())
			continue
		}
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
