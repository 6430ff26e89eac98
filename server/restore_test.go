package server

import (
	"context"
	"errors"
	"io"
	"log"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqd/seqd/storage/embedded"
)

// TestBackupRestore: an online backup (seqd_backup, superusers only),
// values handed out after it, the original stopped; a restore with a
// bound serves every sequence beyond every value the original ever
// handed out, roles and privileges kept, under a new store identity. A
// restore without a bound, onto a store, or from a directory that is no
// backup is refused, and the backup itself does not open as a store.
func TestBackupRestore(t *testing.T) {
	ctx := context.Background()
	quiet := log.New(io.Discard, "", 0)
	dir := t.TempDir()
	orig, backup, restored := filepath.Join(dir, "orig"), filepath.Join(dir, "backup"), filepath.Join(dir, "restored")
	seen, counter := backupWhileServing(t, orig, backup)

	// The backup is no store.
	if _, err := embedded.Open(backup, embedded.Options{}); !errors.Is(err, embedded.ErrMoved) || !strings.Contains(err.Error(), "is a backup") {
		t.Fatalf("opening the backup as a store: %v", err)
	}
	// Taken within a second of the server's start, the backup knows no
	// rate: without a bound, no restore.
	if _, err := Restore(ctx, backup, restored, Bound{}, quiet); err == nil || !strings.Contains(err.Error(), "the advance rate is unknown") || !strings.Contains(err.Error(), "give -bound") {
		t.Fatalf("restore without a bound: %v", err)
	}
	if _, err := Restore(ctx, orig, restored, Bound{Values: 1000}, quiet); err == nil || !strings.Contains(err.Error(), "not a finished backup") {
		t.Fatalf("restore from a store: %v", err)
	}
	if _, err := Restore(ctx, backup, orig, Bound{Values: 1000}, quiet); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("restore onto the original: %v", err)
	}
	rep, err := Restore(ctx, backup, restored, Bound{Values: 1000}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sequences != 3 || rep.StoreID == "" {
		t.Fatalf("restore: %+v", rep)
	}
	s2 := startQuiet(t, restored)
	c2 := connectAs(t, s2, "app")
	var up int64
	if err := c2.QueryRow(ctx, "select nextval('up')").Scan(&up); err != nil {
		t.Fatalf("app's grant after the restore: %v", err)
	}
	if up <= seen["up"] {
		t.Fatalf("the restored up gave %d, the original had handed out %d", up, seen["up"])
	}
	su := connectAs(t, s2, "seqd")
	var down, shapedCounter int64
	if err := su.QueryRow(ctx, "select nextval('down')").Scan(&down); err != nil {
		t.Fatal(err)
	}
	if down >= seen["down"] {
		t.Fatalf("the restored down gave %d, the original had handed out %d", down, seen["down"])
	}
	if err := su.QueryRow(ctx, "select nextval('shaped'), (select last_counter from seqd_stat_sequences where sequencename = 'shaped')").Scan(new(int64), &shapedCounter); err != nil {
		t.Fatal(err)
	}
	if shapedCounter <= counter {
		t.Fatalf("the restored shaped sequence's counter %d, the original's %d", shapedCounter, counter)
	}

	// The bound is what protects: one too small for what was handed out
	// after the backup repeats values.
	small := filepath.Join(dir, "small")
	if _, err := Restore(ctx, backup, small, Bound{Values: 1}, quiet); err != nil {
		t.Fatal(err)
	}
	c3 := connectAs(t, startQuiet(t, small), "seqd")
	var again int64
	if err := c3.QueryRow(ctx, "select nextval('up')").Scan(&again); err != nil {
		t.Fatal(err)
	}
	if again > seen["up"] {
		t.Fatalf("with a bound of 1 the restore resumed at %d, beyond the original's %d: the test shows no protection", again, seen["up"])
	}
}

// backupWhileServing starts a server on orig with sequences up, down and
// shaped, a role app and its grant; takes values, a backup into backup
// (refused to a role that is not a superuser), and values after it; and
// stops the server. It returns the furthest value of up and down handed
// out, and shaped's last counter.
func backupWhileServing(t *testing.T, orig, backup string) (map[string]int64, int64) {
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: orig, Listen: "127.0.0.1:0", Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	c := connectAs(t, s, "seqd")
	for _, q := range []string{"create sequence up cache 100", "create sequence down increment by -2", "create sequence shaped bit_reversed_positive",
		"create role app login", "grant usage on sequence up to app"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	seen := map[string]int64{}
	take := func(n int) {
		for range n {
			for _, name := range []string{"up", "down", "shaped"} {
				var v int64
				if err := c.QueryRow(ctx, "select nextval($1)", name).Scan(&v); err != nil {
					t.Fatal(err)
				}
				if name == "shaped" {
					continue // its values are not ordered: compared by counter
				}
				if cur, ok := seen[name]; !ok || name == "down" && v < cur || name == "up" && v > cur {
					seen[name] = v
				}
			}
		}
	}
	take(150)
	// A role that is not a superuser may not take backups.
	if _, err := c.Exec(ctx, "create role plain login"); err != nil {
		t.Fatal(err)
	}
	pc := connectAs(t, s, "plain")
	_, err = pc.Exec(ctx, "select seqd_backup($1)", backup)
	pc.Close(ctx)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42501" {
		t.Fatalf("seqd_backup by a plain role: %v", err)
	}
	if _, err := c.Exec(ctx, "select seqd_backup($1)", backup); err != nil {
		t.Fatal(err)
	}
	take(400) // handed out after the backup: the restore must not repeat them
	var counter int64
	if err := c.QueryRow(ctx, "select last_counter from seqd_stat_sequences where sequencename = 'shaped'").Scan(&counter); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	s.Shutdown(ctx)
	return seen, counter
}

// startQuiet starts a server on dir, shut down when the test ends.
func startQuiet(t *testing.T, dir string) *Server {
	t.Helper()
	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: dir, Listen: "127.0.0.1:0", Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatalf("starting on %s: %v", dir, err)
	}
	t.Cleanup(func() { s.Shutdown(ctx) })
	return s
}

// connectAs connects to s as user, closed when the test ends.
func connectAs(t *testing.T, s *Server, user string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, "postgres://"+user+"@"+s.Addr().String()+"/seqd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

// TestRestoreBound: the bound a restore derives from the rate a backup
// recorded, and its refusals where that rate is unknown.
func TestRestoreBound(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	backup := func(age time.Duration, notes ...string) embedded.Backup {
		return embedded.Backup{Store: "s", Revision: 1, Taken: now.Add(-age), Notes: notes}
	}
	for _, tc := range []struct {
		name  string
		b     Bound
		bk    embedded.Backup
		want  int64
		error string
	}{
		{"given", Bound{Values: 77}, backup(time.Hour), 77, ""},
		{"no rate recorded", Bound{}, backup(time.Minute), 0, "records no advance rate"},
		{"watched too briefly", Bound{}, backup(time.Minute, "rate 500 per 10s observed 4s"), 0, "had run for 4s"},
		{"nothing advanced", Bound{}, backup(time.Minute, "rate 0 per 10s observed 1h0m0s"), 0, "no sequence advanced"},
		// 25 s since the backup: three windows of 10 s, twice the peak each.
		{"derived", Bound{}, backup(25*time.Second, "rate 1000 per 10s observed 5m0s"), 2 * 1000 * 3, ""},
		{"just taken", Bound{}, backup(0, "rate 1000 per 10s observed 5m0s"), 2 * 1000, ""},
		{"a clock behind the backup's", Bound{}, backup(-time.Hour, "rate 1000 per 10s observed 5m0s"), 2 * 1000, ""},
		{"the operator's time", Bound{Time: time.Minute}, backup(24*time.Hour, "rate 1000 per 10s observed 5m0s"), 2 * 1000 * 7, ""},
		{"too large to count", Bound{}, backup(24*time.Hour, "rate 4611686018427387903 per 10s observed 5m0s"), math.MaxInt64, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, how, err := boundOf(tc.b, tc.bk, now)
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) || !strings.Contains(err.Error(), "give -bound") {
					t.Fatalf("got %d (%s), %v; want an error saying %q and what to give", got, how, err, tc.error)
				}
				return
			}
			if err != nil || got != tc.want || how == "" {
				t.Fatalf("got %d (%s), %v; want %d", got, how, err, tc.want)
			}
		})
	}
}
