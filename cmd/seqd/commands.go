package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"strings"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/seqd/seqd/migrate"
	"github.com/seqd/seqd/server"
	"github.com/seqd/seqd/storage/embedded"
)

// The commands beside the server: seqd check, dump, import and restore,
// each its flags and a call into the package that does the work.

// check is "seqd check -data DIR": it verifies a stopped store offline
// (every checksum, the revision its identity recorded, its format and
// place) and says what it found; exit status 0 when a start would open
// it, 1 when a start would refuse it, 2 for a usage error.
func check(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("seqd check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("data", defaultDataDir(), "directory of the store to check (stopped: a running seqd holds its lock)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	r, err := embedded.Check(*dir, nil)
	fmt.Fprint(stdout, r)
	if err != nil {
		fmt.Fprintf(stdout, "REFUSED: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "OK: a start would open it")
	return 0
}

// dump is "seqd dump [-dsn DSN] [-margin N]": a running seqd's sequences
// as SQL that PostgreSQL 15 and seqd both load (migrate.Dump), on
// standard output; exit status 1 on failure, or when a sequence could
// not be dumped (named on standard error).
func dump(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("seqd dump", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dsn := fl.String("dsn", "postgres://seqd@127.0.0.1:6543/seqd", "the seqd (or PostgreSQL) to dump, as a connection string; PGPASSWORD and the other libpq variables apply")
	margin := fl.Int64("margin", 0, "move every position this many increments on, for a source still serving while it is dumped (stop it first, and 0 is exact)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, *dsn)
	if err != nil {
		fmt.Fprintf(stderr, "seqd dump: %v\n", err)
		return 1
	}
	defer conn.Close(ctx)
	rep, err := migrate.Dump(ctx, conn, stdout, migrate.DumpOptions{Margin: *margin})
	if err != nil {
		fmt.Fprintf(stderr, "seqd dump: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "seqd dump: %d sequences\n", rep.Sequences)
	for _, s := range rep.Skipped {
		fmt.Fprintf(stderr, "seqd dump: skipped %s\n", s)
	}
	if len(rep.Skipped) > 0 {
		return 1
	}
	return 0
}

// restore is "seqd restore -from BACKUP -data DIR [-bound N | -bound-time
// D]": a new store from a backup, every sequence moved past its mark in
// the backup by N increments, or by what the backup's recorded rate
// allows for (server.Restore); or "seqd restore -etcd ENDPOINTS -bound N":
// a cluster's data restored from an etcd snapshot made safe to serve
// (server.RestoreCluster).
func restore(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("seqd restore", flag.ContinueOnError)
	fl.SetOutput(stderr)
	from := fl.String("from", "", "the backup (a directory seqd_backup wrote)")
	dir := fl.String("data", "", "the new store's directory (empty or absent)")
	bound := fl.Int64("bound", 0, "how many values any sequence may have handed out after the backup (default: twice what the rate the backup recorded allows for in -bound-time; refused where that rate is unknown)")
	boundTime := fl.Duration("bound-time", 0, "how long the original may have served after the backup (default: from the backup until now: stop the original first)")
	etcd := fl.String("etcd", "", "instead, a cluster: the comma-separated endpoints of its etcd, restored from a snapshot, before any node serves it (-bound required)")
	var tgt server.EtcdTarget
	passwordFile := etcdFlags(fl, &tgt.Prefix, &tgt.Security)
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *etcd != "" {
		if *from != "" || *dir != "" {
			fmt.Fprintln(stderr, "seqd restore: -etcd restores a cluster in place: no -from or -data")
			return 2
		}
		tgt.Endpoints = strings.Split(*etcd, ",")
		var err error
		if tgt.Security.Password, err = secret(*passwordFile, "SEQD_ETCD_PASSWORD"); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if _, err := server.RestoreCluster(context.Background(), tgt, *bound, log.New(stdout, "", 0)); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	if *from == "" || *dir == "" {
		fmt.Fprintln(stderr, "seqd restore: -from and -data are required (or -etcd for a cluster)")
		return 2
	}
	_, err := server.Restore(context.Background(), *from, *dir, server.Bound{Values: *bound, Time: *boundTime}, log.New(stdout, "", 0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// importSequences is "seqd import -from DSN [-to DSN] [-margin N]": the
// sequences of a live PostgreSQL database created in a seqd, each beyond
// anything the source handed out (migrate.Import).
func importSequences(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("seqd import", flag.ContinueOnError)
	fl.SetOutput(stderr)
	from := fl.String("from", "", "the PostgreSQL database to import from, as a connection string (as the sequences' owner or a superuser)")
	fromMariaDB := fl.String("from-mariadb", "", "instead, the MariaDB 10.3+ database to import from, as a go-sql-driver/mysql DSN (user:password@tcp(host:3306)/db); its sequences go into the seqd schema of the same name")
	to := fl.String("to", "postgres://seqd@127.0.0.1:6543/seqd", "the seqd to create the sequences in")
	margin := fl.Int64("margin", 0, "start every sequence this many increments further on, for a source still handing out values (stop its applications first, and 0 is enough)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if (*from == "") == (*fromMariaDB == "") {
		fmt.Fprintln(stderr, "seqd import: one of -from and -from-mariadb is required")
		return 2
	}
	ctx := context.Background()
	dst, err := pgx.Connect(ctx, *to)
	if err != nil {
		fmt.Fprintf(stderr, "seqd import: target: %v\n", err)
		return 1
	}
	defer dst.Close(ctx)
	var rep migrate.ImportReport
	if *fromMariaDB != "" {
		db, oerr := sql.Open("mysql", *fromMariaDB)
		if oerr != nil {
			fmt.Fprintf(stderr, "seqd import: source: %v\n", oerr)
			return 1
		}
		defer db.Close()
		rep, err = migrate.ImportMariaDB(ctx, db, dst, migrate.DumpOptions{Margin: *margin})
	} else {
		src, cerr := pgx.Connect(ctx, *from)
		if cerr != nil {
			fmt.Fprintf(stderr, "seqd import: source: %v\n", cerr)
			return 1
		}
		defer src.Close(ctx)
		rep, err = migrate.Import(ctx, src, dst, migrate.DumpOptions{Margin: *margin})
	}
	if err != nil {
		fmt.Fprintf(stderr, "seqd import: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "seqd import: created %d sequences\n", rep.Sequences)
	return 0
}
