// Command seqd is the sequence-number server: PostgreSQL's sequences over
// its wire protocol, served from memory over a durable high-water mark.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/pgwire"
	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/storage/embedded"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "check" {
		os.Exit(check(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "dump" {
		os.Exit(dump(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "restore" {
		os.Exit(restore(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "import" {
		os.Exit(importSequences(os.Args[2:], os.Stdout, os.Stderr))
	}
	var cfg server.Config
	flag.StringVar(&cfg.DataDir, "data", defaultDataDir(), "directory of the embedded store (default: seqd under the user's data directory, $XDG_DATA_HOME or ~/.local/share)")
	flag.BoolVar(&cfg.AdoptStore, "adopt-store", false, "state that -data now holds the only copy of its store (after moving, copying or restoring it): a store created in another place is opened instead of refused")
	flag.Int64Var(&cfg.MinFreeSpace, "min-free-space", embedded.DefaultMinFreeBytes, "bytes the store keeps free on its file system: below it, writes are refused with SQLSTATE 53100 (nothing written) and resume once space is freed, where a full disk would stop the store until a restart (negative: no reserve)")
	flag.StringVar(&cfg.Listen, "listen", "127.0.0.1:6543", "address for the PostgreSQL protocol")
	flag.Int64Var(&cfg.MaxBulkRows, "max-bulk-rows", 10_000_000, "most rows of one generate_series or seqd_reserve")
	flag.IntVar(&cfg.MaxConns, "max-connections", 10_000, "most client connections at once; more are refused with SQLSTATE 53300")
	flag.IntVar(&cfg.MaxMessage, "max-statement-bytes", 1<<20, "longest protocol message (and so statement); longer ends the connection with SQLSTATE 54000")
	flag.IntVar(&cfg.ReservedConns, "superuser-reserved-connections", 3, "of -max-connections, how many only superusers may use")
	flag.DurationVar(&cfg.AuthTimeout, "authentication-timeout", 10*time.Second, "how long a connection may take to start: TLS, startup message and authentication")
	flag.Int64Var(&cfg.MaxStatementMemory, "max-statement-memory", 256<<20, "bytes one statement may keep (rows held for sorts, DISTINCT, joins, groups, array_agg); past it the statement fails with SQLSTATE 53200 (negative: no limit)")
	sessionDefaults := map[string]*string{}
	for _, name := range []string{"statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout"} {
		sessionDefaults[name] = flag.String(strings.ReplaceAll(name, "_", "-"), "0", "every session's "+name+" (PostgreSQL's setting: milliseconds, or with a unit: 5s, 1min; 0: none); a session may SET its own")
	}
	flag.DurationVar(&cfg.IdleTimeout, "idle-timeout", 0, "end a connection that sends nothing, or reads none of its results, for this long (0: never)")
	flag.StringVar(&cfg.Auth, "auth", "", "client authentication: trust, scram-sha-256 (with TLS also SCRAM-SHA-256-PLUS, channel binding) or cert (a client certificate verified by -tls-ca whose common name is the role) (default: trust on a loopback address, scram-sha-256 on any other)")
	flag.BoolVar(&cfg.TLSRequired, "tls-required", false, "refuse connections that do not use TLS (as a pg_hba.conf of hostssl lines only)")
	flag.StringVar(&cfg.Superuser, "superuser", "seqd", "the superuser role the first start creates under scram-sha-256")
	passwordFile := flag.String("password-file", "", "file holding the superuser's password for its creation (or set SEQD_PASSWORD); never on the command line")
	flag.StringVar(&cfg.TLSCert, "tls-cert", "", "PEM certificate (chain) for TLS; with -tls-key, clients may use sslmode=require or verify-full")
	flag.StringVar(&cfg.TLSKey, "tls-key", "", "PEM private key of -tls-cert")
	flag.StringVar(&cfg.TLSClientCA, "tls-ca", "", "PEM CA that client certificates, when given, must chain to")
	flag.StringVar(&cfg.HTTP, "http", "", "address for HTTP: Prometheus metrics on /metrics, /healthz, /readyz (empty: none; keep it on loopback or behind a proxy)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the whole run to this file at a clean shutdown")
	faults := faultFlags() // only in a build for the torture harness (faults.go)
	flag.DurationVar(&cfg.ExhaustionHorizon, "exhaustion-horizon", 30*24*time.Hour, "warn (once a day) of a sequence projected to reach its limit within this long")
	etcd := flag.String("etcd", "", "cluster mode: comma-separated etcd endpoints (e.g. http://127.0.0.1:2379); the nodes elect a leader, the others serve as read-only standbys, and -data is not used")
	flag.StringVar(&cfg.EtcdPrefix, "etcd-prefix", "/seqd/", "cluster mode: the cluster's key prefix in etcd")
	flag.StringVar(&cfg.EtcdSecurity.CA, "etcd-ca", "", "cluster mode: PEM CA that signed the etcd members' certificates (use https:// endpoints)")
	flag.StringVar(&cfg.EtcdSecurity.Cert, "etcd-cert", "", "cluster mode: PEM client certificate for etcd members that require one (--client-cert-auth)")
	flag.StringVar(&cfg.EtcdSecurity.Key, "etcd-key", "", "cluster mode: PEM private key of -etcd-cert")
	flag.StringVar(&cfg.EtcdSecurity.User, "etcd-user", "", "cluster mode: etcd user, when etcd's authentication is enabled")
	etcdPasswordFile := flag.String("etcd-password-file", "", "cluster mode: file holding -etcd-user's password (or set SEQD_ETCD_PASSWORD); never on the command line")
	flag.StringVar(&cfg.NodeName, "name", "", "cluster mode: this node's name, as the leader key shows it (default: the listen address)")
	flag.DurationVar(&cfg.LeaseTTL, "lease-ttl", 5*time.Second, "cluster mode: the leader's etcd lease; a dead leader is replaced within about this long")
	logLevel := flag.String("log-level", "info", "debug, info, warn or error (reloaded from -config on SIGHUP)")
	configFile := flag.String("config", "", "configuration file: one \"flag-name = value\" per line; the command line wins; SIGHUP applies auth and log-level from it again")
	flag.Parse()
	if *etcd != "" {
		cfg.Etcd = strings.Split(*etcd, ",")
	}
	var level slog.LevelVar
	var conf *config
	if *configFile != "" {
		var err error
		if conf, err = loadConfig(*configFile, &level); err != nil {
			log.Fatalf("-config: %v", err)
		}
	}
	for name, v := range sessionDefaults {
		if *v == "0" {
			continue
		}
		if err := executor.CheckSetting(name, *v); err != nil {
			log.Fatalf("-%s: %v", strings.ReplaceAll(name, "_", "-"), err)
		}
		if cfg.SessionDefaults == nil {
			cfg.SessionDefaults = map[string]string{}
		}
		cfg.SessionDefaults[name] = *v
	}
	// One event per line, with its level and time (log/slog); the log
	// package's lines go through the same handler.
	var initial slog.Level
	if err := initial.UnmarshalText([]byte(*logLevel)); err != nil {
		log.Fatalf("-log-level: %v", err)
	}
	level.Set(initial)
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: &level})))
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

	persist := faults.start(&cfg)
	if persist == nil {
		if err := checkDataDir(cfg.DataDir); err != nil {
			log.Fatal(err)
		}
	}
	cfg.EtcdSecurity.Password = os.Getenv("SEQD_ETCD_PASSWORD")
	if *etcdPasswordFile != "" {
		b, err := os.ReadFile(*etcdPasswordFile)
		if err != nil {
			log.Fatal(err)
		}
		cfg.EtcdSecurity.Password = strings.TrimRight(string(b), "\r\n")
	}
	cfg.Password = os.Getenv("SEQD_PASSWORD")
	if *passwordFile != "" {
		b, err := os.ReadFile(*passwordFile)
		if err != nil {
			log.Fatal(err)
		}
		cfg.Password = strings.TrimRight(string(b), "\r\n")
	}
	// Signals are caught before the server says it listens: a SIGTERM
	// right after that line must stop it cleanly, not kill it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
wait:
	for {
		select {
		case got := <-sig:
			if got == syscall.SIGHUP {
				// A reload request (or a closed terminal) never stops
				// seqd: the TLS files are read again.
				if err := s.Reload(); err != nil {
					log.Printf("SIGHUP: reload failed, keeping the old configuration: %v", err)
				} else {
					log.Print("SIGHUP: configuration reloaded; still serving")
				}
				if conf != nil {
					conf.reload(context.Background(), s)
				}
				continue
			}
			log.Printf("%s: shutting down", got)
			break wait
		case err := <-s.Done():
			log.Printf("stopping: %v", err)
			break wait
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = s.Shutdown(ctx)
	if persist != nil {
		if perr := persist(); perr != nil {
			log.Printf("fault injection: persist: %v", perr)
			os.Exit(1)
		}
	}
	if errors.Is(err, pgwire.ErrConnectionsCut) {
		// The store closed cleanly; only clients that stopped reading
		// missed their 57P01.
		log.Print(err)
		err = nil
	}
	if err != nil {
		log.Printf("shutdown: %v", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
		if err != nil {
			log.Printf("-memprofile: %v", err)
		}
	}
	log.Print("clean shutdown")
}

// defaultDataDir is seqd under the user's data directory: the same store
// whatever directory seqd is started from.
func defaultDataDir() string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "seqd-data"
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "seqd")
}

// checkDataDir refuses to create a new store beside an old one that the
// former default (./seqd-data) left in the working directory: a second
// store would hand out the same values again.
func checkDataDir(dir string) error {
	if hasStore(dir) {
		return nil
	}
	abs, _ := filepath.Abs(dir)
	legacy, _ := filepath.Abs("seqd-data")
	if abs == legacy {
		return nil
	}
	if hasStore("seqd-data") {
		return fmt.Errorf("seqd: ./seqd-data holds a store from an earlier seqd but -data is %s, where none is: start with -data %s to keep using it, or move it", abs, legacy)
	}
	return nil
}

// hasStore reports whether dir holds a store (Pebble's manifest).
func hasStore(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
	return len(m) > 0
}
