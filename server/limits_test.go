package server

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestValidate: Config's limits out of their ranges are refused, named
// by their flags; zeros take their defaults.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		flag string // "": valid
	}{
		{Config{}, ""},
		{Config{MaxConns: 2, ReservedConns: 1, AuthTimeout: time.Second, IdleTimeout: time.Minute, MaxMessage: MinMessage}, ""},
		{Config{MaxConns: 2}, ""}, // the default reservation, as pgwire takes it: 1 of 2
		{Config{ReservedConns: -1}, ""},
		{Config{MaxConns: 1}, "max-connections"},
		{Config{MaxConns: -1}, "max-connections"},
		{Config{MaxConns: 5, ReservedConns: 5}, "superuser-reserved-connections"},
		{Config{ReservedConns: DefaultMaxConns}, "superuser-reserved-connections"},
		{Config{AuthTimeout: -time.Second}, "authentication-timeout"},
		{Config{IdleTimeout: -time.Second}, "idle-timeout"},
		{Config{MaxMessage: -1}, "max-statement-bytes"},
		{Config{MaxMessage: MinMessage - 1}, "max-statement-bytes"},
		{Config{MaxBulkRows: -1}, "max-bulk-rows"},
		{Config{ExhaustionHorizon: -time.Hour}, "exhaustion-horizon"},
		{Config{LeaseTTL: -time.Second}, "lease-ttl"},
		{Config{NodeID: MaxNodeID}, ""},
		{Config{NodeID: -1}, "node-id"},
		{Config{NodeID: MaxNodeID + 1}, "node-id"},
	} {
		err := tc.cfg.Validate()
		var le *LimitError
		switch {
		case tc.flag == "" && err != nil:
			t.Errorf("%+v: %v", tc.cfg, err)
		case tc.flag != "" && (!errors.As(err, &le) || le.Flag != tc.flag || le.Want == ""):
			t.Errorf("%+v: %v, want a LimitError of -%s", tc.cfg, err, tc.flag)
		}
	}
}

// TestStartValidates: Start refuses a limit out of its range before it
// opens anything: a negative idle timeout would have ended every MySQL
// read at once.
func TestStartValidates(t *testing.T) {
	dir := t.TempDir() + "/d"
	_, err := Start(context.Background(), Config{DataDir: dir, Listen: "127.0.0.1:0", MySQLListen: "127.0.0.1:0", IdleTimeout: -time.Second})
	var le *LimitError
	if !errors.As(err, &le) || le.Flag != "idle-timeout" {
		t.Fatalf("Start with a negative idle timeout: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory was made before the refusal: %v", err)
	}
}
