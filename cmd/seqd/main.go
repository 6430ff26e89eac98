// Command seqd is the sequence-number server: PostgreSQL's sequences over
// its wire protocol, served from memory over a durable high-water mark.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgwire"
	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/storage/embedded"
)

func main() {
	if len(os.Args) > 1 {
		if cmd, ok := subcommands[os.Args[1]]; ok {
			os.Exit(cmd(os.Args[2:], os.Stdout, os.Stderr))
		}
	}
	o := parseFlags()
	var level slog.LevelVar
	cfg, conf, err := o.config(&level)
	if le, bv := (*server.LimitError)(nil), (badValue{}); errors.As(err, &le) || errors.As(err, &bv) {
		// As the flag package refuses a value it cannot parse.
		fmt.Fprintln(flag.CommandLine.Output(), err)
		os.Exit(2)
	}
	if err != nil {
		log.Fatal(err)
	}
	fitDescriptors(&cfg)
	if *o.cpuprofile != "" {
		f, err := os.Create(*o.cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	persist := o.faults.start(&cfg)
	if persist == nil {
		if err := checkDataDir(cfg.DataDir); err != nil {
			log.Fatal(err)
		}
	}
	if err := serve(cfg, conf, persist); err != nil {
		log.Printf("shutdown: %v", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	if *o.memprofile != "" {
		f, err := os.Create(*o.memprofile)
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

// subcommands are seqd's commands beside the server (commands.go).
var subcommands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"check":   check,
	"dump":    dump,
	"restore": restore,
	"import":  importSequences,
}

// options are the server's command line: the configuration, and what is
// read from files, checked or applied after parsing (config).
type options struct {
	cfg                            server.Config
	sessionDefaults                map[string]*string
	passwordFile, etcdPasswordFile *string
	etcd, logLevel, configFile     *string
	cpuprofile, memprofile         *string
	faults                         faultConfig
}

// parseFlags defines the server's flags and parses the command line.
func parseFlags() *options {
	o := &options{}
	flag.StringVar(&o.cfg.DataDir, "data", defaultDataDir(), "directory of the embedded store (default: seqd under the user's data directory, $XDG_DATA_HOME or ~/.local/share)")
	flag.BoolVar(&o.cfg.AdoptStore, "adopt-store", false, "state that -data now holds the only copy of its store (after moving, copying or restoring it): a store created in another place is opened instead of refused")
	flag.Int64Var(&o.cfg.MinFreeSpace, "min-free-space", embedded.DefaultMinFreeBytes, "bytes the store keeps free on its file system: below it, writes are refused with SQLSTATE 53100 (nothing written) and resume once space is freed, where a full disk would stop the store until a restart (negative: no reserve)")
	flag.StringVar(&o.cfg.Listen, "listen", "127.0.0.1:6543", "address for the PostgreSQL protocol")
	flag.StringVar(&o.cfg.MySQLDefaultAuth, "mysql-default-auth", "mysql_native_password", "the authentication plugin MySQL's handshake announces: mysql_native_password (MariaDB's default) or caching_sha2_password (MySQL 8's; its full authentication without TLS encrypts the password with -mysql-rsa-key); a client may ask for the other")
	flag.StringVar(&o.cfg.MySQLRSAKey, "mysql-rsa-key", "", "PEM RSA private key for caching_sha2_password without TLS, whose public half clients ask for or are given (empty: one generated when first needed, new with each start)")
	flag.StringVar(&o.cfg.APIListen, "api-listen", "", "address for the HTTP/JSON API, e.g. 127.0.0.1:8080 (empty: off); off loopback it needs -tls-cert, and the roles' passwords (HTTP Basic)")
	flag.StringVar(&o.cfg.GRPCListen, "grpc-listen", "", "address for the gRPC service seqd.v1.Sequences, e.g. 127.0.0.1:9090 (empty: off); off loopback it needs -tls-cert, and the roles' passwords")
	flag.BoolVar(&o.cfg.APIInsecure, "api-insecure", false, "let -api-listen and -grpc-listen off loopback serve without TLS (passwords in the clear)")
	flag.StringVar(&o.cfg.MySQLListen, "mysql-listen", "", "address for MySQL's protocol, e.g. 127.0.0.1:3306 (empty: off); authentication trust only where -auth is trust and this address is loopback too, else the roles' passwords")
	flag.Int64Var(&o.cfg.MaxBulkRows, "max-bulk-rows", 10_000_000, "most rows of one generate_series or seqd_reserve")
	flag.Int64Var(&o.cfg.NodeID, "node-id", 0, "this server's node part in SNOWFLAKE sequences' ids (their low NODE_BITS bits of it): give each server of a fleet its own to tell which one handed an id out (not with -etcd: each leader takes one from etcd)")
	flag.IntVar(&o.cfg.MaxTxnLocks, "max-transaction-locks", engine.DefaultMaxTxnLocks, "most sequences and names one transaction creates, alters, renames, drops, comments on or grants on (each holds a lock until it ends); the next fails with SQLSTATE 54000 (negative: no limit)")
	flag.IntVar(&o.cfg.MaxConns, "max-connections", server.DefaultMaxConns, "most client connections at once, every protocol's; more are refused with SQLSTATE 53300 (fewer are served where the descriptor limit, ulimit -n, holds fewer: the log says so at start)")
	flag.IntVar(&o.cfg.MaxMessage, "max-statement-bytes", 1<<20, "longest protocol message (and so statement); longer ends the connection with SQLSTATE 54000 (at least 1024)")
	flag.IntVar(&o.cfg.ReservedConns, "superuser-reserved-connections", server.DefaultReservedConns, "of -max-connections, how many only superusers may use (0: none)")
	flag.DurationVar(&o.cfg.AuthTimeout, "authentication-timeout", 10*time.Second, "how long a connection may take to start: TLS, startup message and authentication")
	flag.Int64Var(&o.cfg.MaxStatementMemory, "max-statement-memory", 256<<20, "bytes one statement may keep (rows held for sorts, DISTINCT, joins, groups, array_agg), with what the session's open cursors and suspended portals keep; past it the statement fails with SQLSTATE 53200 (negative: no limit)")
	flag.Int64Var(&o.cfg.MaxParseMemory, "max-parse-memory", frontend.DefaultParseRoom, "bytes the statements of 16 KiB of text and more may take at once while parsed and built (and run, sent to run at once), every connection's together, counted at 1 KiB per byte of text (a 1 MiB statement 1 GiB, run alone if more than this); one that finds no room waits for it up to 30 s, then fails with SQLSTATE 53200 (MySQL 1041) (negative: no limit)")
	o.sessionDefaults = map[string]*string{}
	for _, name := range []string{"statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout"} {
		o.sessionDefaults[name] = flag.String(strings.ReplaceAll(name, "_", "-"), "0", "every session's "+name+" (PostgreSQL's setting: milliseconds, or with a unit: 5s, 1min; 0: none); a session may SET its own")
	}
	flag.DurationVar(&o.cfg.IdleTimeout, "idle-timeout", 0, "end a connection that sends nothing, or reads none of its results, for this long (0: never)")
	flag.StringVar(&o.cfg.Auth, "auth", "", "client authentication: trust, scram-sha-256 (with TLS also SCRAM-SHA-256-PLUS, channel binding) or cert (a client certificate verified by -tls-ca whose common name is the role) (default: trust on a loopback address, scram-sha-256 on any other)")
	flag.BoolVar(&o.cfg.TLSRequired, "tls-required", false, "refuse connections that do not use TLS (as a pg_hba.conf of hostssl lines only)")
	flag.StringVar(&o.cfg.Superuser, "superuser", "seqd", "the superuser role the first start creates under scram-sha-256")
	o.passwordFile = flag.String("password-file", "", "file holding the superuser's password for its creation (or set SEQD_PASSWORD); never on the command line")
	flag.StringVar(&o.cfg.TLSCert, "tls-cert", "", "PEM certificate (chain) for TLS; with -tls-key, clients may use sslmode=require or verify-full")
	flag.StringVar(&o.cfg.TLSKey, "tls-key", "", "PEM private key of -tls-cert")
	flag.StringVar(&o.cfg.TLSClientCA, "tls-ca", "", "PEM CA that client certificates, when given, must chain to")
	flag.StringVar(&o.cfg.HTTP, "http", "", "address for HTTP: Prometheus metrics on /metrics, /healthz, /readyz (empty: none; keep it on loopback or behind a proxy)")
	o.cpuprofile = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	o.memprofile = flag.String("memprofile", "", "write an allocation profile of the whole run to this file at a clean shutdown")
	o.faults = faultFlags() // only in a build for the torture harness (faults.go)
	flag.DurationVar(&o.cfg.ExhaustionHorizon, "exhaustion-horizon", 30*24*time.Hour, "warn (once a day) of a sequence projected to reach its limit within this long")
	o.etcd = flag.String("etcd", "", "cluster mode: comma-separated etcd endpoints (e.g. http://127.0.0.1:2379); the nodes elect a leader, the others serve as read-only standbys, and -data is not used")
	o.etcdPasswordFile = etcdFlags(flag.CommandLine, &o.cfg.EtcdPrefix, &o.cfg.EtcdSecurity)
	flag.StringVar(&o.cfg.NodeName, "name", "", "cluster mode: this node's name, as the leader key shows it (default: the listen address)")
	flag.DurationVar(&o.cfg.LeaseTTL, "lease-ttl", 5*time.Second, "cluster mode: the leader's etcd lease; a dead leader is replaced within about this long")
	o.logLevel = flag.String("log-level", "info", "debug, info, warn or error (reloaded from -config on SIGHUP)")
	o.configFile = flag.String("config", "", "configuration file: one \"flag-name = value\" per line; the command line wins; SIGHUP applies auth and log-level from it again")
	flag.Parse()
	return o
}

// config completes the configuration from the parsed flags: the
// configuration file (returned, for SIGHUP), the limits (checked:
// checkLimits), the etcd endpoints, the session defaults (checked as SET
// would), the log level and handler, and the passwords from their files
// or environment variables.
func (o *options) config(level *slog.LevelVar) (server.Config, *config, error) {
	var conf *config
	if *o.configFile != "" {
		var err error
		if conf, err = loadConfig(*o.configFile, level); err != nil {
			return o.cfg, nil, fmt.Errorf("-config: %w", err)
		}
	}
	cfg := o.cfg // with what the file set
	if err := checkLimits(&cfg); err != nil {
		return cfg, nil, err
	}
	if *o.etcd != "" {
		cfg.Etcd = strings.Split(*o.etcd, ",")
	}
	for name, v := range o.sessionDefaults {
		if *v == "0" {
			continue
		}
		if err := executor.CheckSetting(name, *v); err != nil {
			return cfg, nil, fmt.Errorf("-%s: %w", strings.ReplaceAll(name, "_", "-"), err)
		}
		if cfg.SessionDefaults == nil {
			cfg.SessionDefaults = map[string]string{}
		}
		cfg.SessionDefaults[name] = *v
	}
	// One event per line, with its level and time (log/slog); the log
	// package's lines go through the same handler.
	var initial slog.Level
	if err := initial.UnmarshalText([]byte(*o.logLevel)); err != nil {
		return cfg, nil, fmt.Errorf("-log-level: %w", err)
	}
	level.Set(initial)
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	var err error
	if cfg.EtcdSecurity.Password, err = secret(*o.etcdPasswordFile, "SEQD_ETCD_PASSWORD"); err != nil {
		return cfg, nil, err
	}
	if cfg.Password, err = secret(*o.passwordFile, "SEQD_PASSWORD"); err != nil {
		return cfg, nil, err
	}
	return cfg, conf, nil
}

// etcdFlags defines the flags that reach a cluster's etcd, for the server
// and for seqd restore -etcd: its key prefix, TLS files and user; the
// user's password comes from the file the returned flag names, or from
// SEQD_ETCD_PASSWORD (secret).
func etcdFlags(fs *flag.FlagSet, prefix *string, sec *server.EtcdSecurity) (passwordFile *string) {
	fs.StringVar(prefix, "etcd-prefix", "/seqd/", "cluster mode: the cluster's key prefix in etcd")
	fs.StringVar(&sec.CA, "etcd-ca", "", "cluster mode: PEM CA that signed the etcd members' certificates (use https:// endpoints)")
	fs.StringVar(&sec.Cert, "etcd-cert", "", "cluster mode: PEM client certificate for etcd members that require one (--client-cert-auth)")
	fs.StringVar(&sec.Key, "etcd-key", "", "cluster mode: PEM private key of -etcd-cert")
	fs.StringVar(&sec.User, "etcd-user", "", "cluster mode: etcd user, when etcd's authentication is enabled")
	return fs.String("etcd-password-file", "", "cluster mode: file holding -etcd-user's password (or set SEQD_ETCD_PASSWORD); never on the command line")
}

// secret is a password from file, or else from the environment variable
// env: never from the command line, which ps shows.
func secret(file, env string) (string, error) {
	if file == "" {
		return os.Getenv(env), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// serve runs the server until SIGTERM, SIGINT or a failure, reloading on
// SIGHUP, then shuts it down (persist, under fault injection, writes the
// store out) and returns what went wrong, if anything.
func serve(cfg server.Config, conf *config, persist func() error) error {
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
	return err
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
