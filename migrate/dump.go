// Package migrate moves sequences between seqd and other systems: Dump
// writes a seqd's sequences as SQL that PostgreSQL 15 and seqd both load
// (CREATE SEQUENCE and setval, as pg_dump writes them), for moving out or
// into another seqd.
package migrate

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// DumpOptions configure Dump. The zero value dumps every sequence at
// exactly its position.
type DumpOptions struct {
	// Margin moves every sequence's position this many increments past
	// what the source reported, for a source that may still hand out
	// values while it is dumped (stop it first, and the margin may be 0).
	Margin int64
}

// DumpReport says what Dump wrote.
type DumpReport struct {
	Sequences int
	// Skipped are the sequences PostgreSQL cannot express (shaped,
	// NOORDER), named with why; each is a comment in the dump.
	Skipped []string
}

type dumpSeq struct {
	schema, name, typ            string
	start, min, max, incr, cache int64
	cycle                        bool
	last                         *int64
	shape                        string
	noorder                      bool
}

// Dump writes the sequences of the database conn is connected to (a
// seqd, or a PostgreSQL) to w as SQL.
func Dump(ctx context.Context, conn *pgx.Conn, w io.Writer, o DumpOptions) (DumpReport, error) {
	var rep DumpReport
	rows, err := conn.Query(ctx, `select schemaname, sequencename, data_type::text, start_value, min_value, max_value,
		increment_by, cycle, cache_size, last_value from pg_catalog.pg_sequences order by schemaname, sequencename`)
	if err != nil {
		return rep, err
	}
	var seqs []dumpSeq
	for rows.Next() {
		var s dumpSeq
		if err := rows.Scan(&s.schema, &s.name, &s.typ, &s.start, &s.min, &s.max, &s.incr, &s.cycle, &s.cache, &s.last); err != nil {
			return rep, err
		}
		seqs = append(seqs, s)
	}
	if err := rows.Err(); err != nil {
		return rep, err
	}
	// seqd's own columns, where the source is a seqd: the shapes and
	// NOORDER PostgreSQL cannot load.
	shapes := map[string]dumpSeq{}
	if srows, err := conn.Query(ctx, `select schemaname, sequencename, coalesce(shape, ''), noorder from pg_catalog.seqd_stat_sequences`); err == nil {
		for srows.Next() {
			var s dumpSeq
			if err := srows.Scan(&s.schema, &s.name, &s.shape, &s.noorder); err != nil {
				srows.Close()
				return rep, err
			}
			shapes[s.schema+"."+s.name] = s
		}
		srows.Close()
	}
	fmt.Fprintf(w, "-- Sequences dumped by seqd dump at %s\n-- Load with psql into PostgreSQL 15 or seqd.\n\n", time.Now().UTC().Format(time.RFC3339))
	schemas := map[string]bool{}
	for _, s := range seqs {
		if x := shapes[s.schema+"."+s.name]; x.shape != "" && x.shape != "ordered" || x.noorder {
			why := "NOORDER"
			if x.shape != "" && x.shape != "ordered" {
				why = "shape " + x.shape
			}
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s.%s (%s)", s.schema, s.name, why))
			fmt.Fprintf(w, "-- skipped %s.%s: its %s has no PostgreSQL equivalent\n\n", quoteIdent(s.schema), quoteIdent(s.name), why)
			continue
		}
		writeSequence(w, s, schemas, o.Margin)
		rep.Sequences++
	}
	return rep, nil
}

// writeSequence writes s as CREATE SEQUENCE (its schema's CREATE SCHEMA
// first, once) and a setval to its position moved margin increments on.
func writeSequence(w io.Writer, s dumpSeq, schemas map[string]bool, margin int64) {
	if s.schema != "public" && !schemas[s.schema] {
		schemas[s.schema] = true
		fmt.Fprintf(w, "CREATE SCHEMA IF NOT EXISTS %s;\n\n", quoteIdent(s.schema))
	}
	q := quoteIdent(s.schema) + "." + quoteIdent(s.name)
	cycle := "NO CYCLE"
	if s.cycle {
		cycle = "CYCLE"
	}
	fmt.Fprintf(w, "CREATE SEQUENCE %s\n    AS %s\n    START WITH %d\n    INCREMENT BY %d\n    MINVALUE %d\n    MAXVALUE %d\n    CACHE %d\n    %s;\n",
		q, s.typ, s.start, s.incr, s.min, s.max, s.cache, cycle)
	if s.last != nil || margin > 0 {
		pos, called := s.start, false
		if s.last != nil {
			pos, called = *s.last, true
		}
		pos, called = advance(pos, called, s, margin)
		fmt.Fprintf(w, "SELECT pg_catalog.setval(%s, %d, %t);\n", quoteLiteral(q), pos, called)
	}
	fmt.Fprintln(w)
}

// advance moves a position margin increments on, within the sequence's
// limits (where CYCLE would wrap, it stops at the limit: a dump never
// goes back to values handed out).
func advance(pos int64, called bool, s dumpSeq, margin int64) (int64, bool) {
	if margin <= 0 {
		return pos, called
	}
	if !called { // the first value not handed out yet is pos itself
		margin--
		called = true
	}
	step := s.incr
	if step > 0 {
		room := (s.max - pos) / step
		return pos + min(margin, room)*step, called
	}
	room := (pos - s.min) / -step
	return pos + min(margin, room)*step, called
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
