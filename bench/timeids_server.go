package bench

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqd/seqd/client"
	"github.com/seqd/seqd/server"
)

// The timeids workload's generators over a server: a seqd in this
// process serving a SNOWFLAKE sequence of Twitter's layout, by nextval
// (a round trip an id) and by the client's AsyncBatch (ids made locally
// from ranges of 1<<16 counters), a life being a server on the same data
// directory with its clock skew behind (a clean restart); and, given
// its address, PostgreSQL's sequence by nextval, for which a restart is
// a new connection and the clock nothing.

// seqdServerMakers are the generators over seqd servers on dir.
func seqdServerMakers(dir string) []idMaker {
	return []idMaker{
		{"seqd SNOWFLAKE nextval", func(skew time.Duration) (*idGen, error) { return seqdSnowflake(dir+"/nextval", skew, false) }},
		{"seqd SNOWFLAKE batch", func(skew time.Duration) (*idGen, error) { return seqdSnowflake(dir+"/batch", skew, true) }},
	}
}

// seqdSnowflake starts a seqd on dir whose clock reads skew behind, and
// takes ids of its SNOWFLAKE sequence (made on the first life).
func seqdSnowflake(dir string, skew time.Duration, batch bool) (*idGen, error) {
	ctx := context.Background()
	srv, err := server.Start(ctx, server.Config{DataDir: dir, Listen: "127.0.0.1:0", Logger: log.New(io.Discard, "", 0),
		WallClock: func() time.Time { return time.Now().Add(-skew) }})
	if err != nil {
		return nil, err
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}
	pool, err := pgxpool.New(ctx, fmt.Sprintf("postgres://seqbench@%s/seqbench?sslmode=disable", srv.Addr()))
	if err == nil {
		_, err = pool.Exec(ctx, "create sequence if not exists ids snowflake")
	}
	if err != nil {
		stop()
		return nil, err
	}
	g := &idGen{close: func() { pool.Close(); stop() }}
	if !batch {
		g.take = func() (v int64, err error) { err = pool.QueryRow(ctx, "select nextval('ids')").Scan(&v); return v, err }
		return g, nil
	}
	b := client.NewAsyncBatch(client.NewSeqd(pool, client.SeqdOptions{}), "ids", client.BatchOptions{Size: 1 << 16})
	g.take = func() (int64, error) { return b.Next(ctx) }
	g.close = func() { b.Close(ctx); pool.Close(); stop() }
	return g, nil
}

// postgresMaker is PostgreSQL's sequence at dsn, by nextval: its values
// do not follow a clock, so a step changes nothing.
func postgresMaker(dsn string) idMaker {
	return idMaker{"PostgreSQL sequence nextval", func(time.Duration) (*idGen, error) {
		ctx := context.Background()
		pool, err := pgxpool.New(ctx, dsn)
		if err == nil {
			_, err = pool.Exec(ctx, "create sequence if not exists seqbench_timeids")
		}
		if err != nil {
			return nil, err
		}
		return &idGen{close: pool.Close, take: func() (v int64, err error) {
			err = pool.QueryRow(ctx, "select nextval('seqbench_timeids')").Scan(&v)
			return v, err
		}}, nil
	}}
}
