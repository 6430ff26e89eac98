package server

import (
	"log"
	"time"

	"github.com/seqd/seqd/timeid"
)

// logClockBehind is the engine's OnClockBehind: the log line of SNOWFLAKE
// ids running a second or more ahead of this server's clock (at most
// every 10 s), beside the metric seqd_time_ids_clock_behind_seconds.
func logClockBehind(logger *log.Logger) func(time.Duration) {
	return func(d time.Duration) {
		logger.Printf("time-ordered ids: SNOWFLAKE ids run %v ahead of this server's clock (the clock stepped back, or calls at a rate above a layout's borrowed ahead): ids go on increasing up to %v ahead, then calls are refused (55000) until the clock catches up",
			d.Round(time.Millisecond), timeid.DefaultMaxBehind)
	}
}
