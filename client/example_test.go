package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/seqd/seqd/client"
)

// An AsyncBatch over seqd: values come from memory, the next range is
// reserved in the background, and Close gives the unused tail back.
func ExampleNewAsyncBatch() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, seqdURL) // e.g. "postgres://127.0.0.1:6543/"
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	src := client.NewSeqd(pool, client.SeqdOptions{Cache: 1000})
	if err := src.Create(ctx, "order_ids", 1); err != nil {
		log.Fatal(err)
	}
	ids := client.NewAsyncBatch(src, "order_ids", client.BatchOptions{Size: 100, LowWatermark: 20})
	for range 3 {
		id, err := ids.Next(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(id)
	}
	if err := ids.Close(ctx); err != nil {
		log.Fatal(err)
	}
	st := ids.Stats()
	fmt.Printf("reserved %d, issued %d, given back %d, burned %d\n", st.Reserved, st.Issued, st.Released, st.Burned)

	// The next generator starts where the first one stopped.
	more := client.NewBatch(src, "order_ids", client.BatchOptions{Size: 10})
	id, _ := more.Next(ctx)
	fmt.Println(id)
	more.Close(ctx)
	// Output:
	// 1
	// 2
	// 3
	// reserved 100, issued 3, given back 97, burned 0
	// 4
}

// Two batch generators of one sequence: each value once, but not in
// order across the generators. A closed generator whose range is no
// longer the tail burns what it did not use.
func ExampleNewBatch() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, seqdURL)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	src := client.NewSeqd(pool, client.SeqdOptions{})
	if err := src.Create(ctx, "row_keys", 1); err != nil {
		log.Fatal(err)
	}
	a := client.NewBatch(src, "row_keys", client.BatchOptions{Size: 10})
	b := client.NewBatch(src, "row_keys", client.BatchOptions{Size: 10})
	a1, _ := a.Next(ctx)
	b1, _ := b.Next(ctx)
	a2, _ := a.Next(ctx)
	fmt.Println(a1, b1, a2)
	a.Close(ctx)
	b.Close(ctx)
	fmt.Println("a burned", a.Stats().Burned, "and b gave back", b.Stats().Released)
	// Output:
	// 1 11 2
	// a burned 8 and b gave back 9
}

// Async: one round trip per value, values in the order of the calls.
func ExampleNewAsync() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, seqdURL)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	src := client.NewSeqd(pool, client.SeqdOptions{})
	if err := src.Create(ctx, "tickets", 100); err != nil {
		log.Fatal(err)
	}
	g := client.NewAsync(src, "tickets")
	var got []int64
	for range 3 {
		v, _ := g.Next(ctx)
		got = append(got, v)
	}
	fmt.Println(got)
	_, err = client.NewAsync(src, "no_such_sequence").Next(ctx)
	fmt.Println(errors.Is(err, client.ErrNotFound))
	// Output:
	// [100 101 102]
	// true
}
