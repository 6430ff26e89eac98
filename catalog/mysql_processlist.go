package catalog

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/seqd/seqd/eval"
)

// processlistRows are information_schema.PROCESSLIST's rows, as MariaDB
// 10.11 shows its threads: every session of the server, of every front
// end, whose role the reader holds (a superuser: all), as MariaDB shows a
// user without the PROCESS privilege its own threads; in the order of
// their IDs, which are pg_stat_activity's pids and CONNECTION_ID().
//
//   - HOST is the client's address and port as MariaDB writes them (an
//     IPv6 address without brackets; localhost for a Unix socket); DB
//     the database the session uses, NULL for none (a PostgreSQL
//     session's too: it uses no MySQL database).
//   - COMMAND is Query while the session runs a statement (Execute, one
//     its client prepared), Sleep while it waits for its client; STATE
//     Executing, Waiting for table metadata lock while it waits for a
//     lock, Filling schema table for the
//     reading session (which is filling this table), empty while it
//     sleeps; INFO the statement (its first 1024 bytes, as
//     pg_stat_activity keeps it), NULL while it sleeps, without the
//     white space before it and the white space and semicolons after it,
//     as MariaDB keeps a statement's text (infoText).
//   - TIME and TIME_MS are the seconds and milliseconds since the
//     session's state changed.
//   - STAGE, MAX_STAGE and PROGRESS are 0: seqd reports no progress of a
//     statement in stages. MEMORY_USED, MAX_MEMORY_USED, EXAMINED_ROWS and
//     QUERY_ID are 0: seqd keeps no such count of a session. TID is the
//     ID: a session is no thread of the operating system's.
func processlistRows(src Source) ([][]eval.Datum, error) {
	now := src.Now()
	live := src.Activity()
	slices.SortFunc(live, func(a, b Backend) int { return int(int64(a.PID) - int64(b.PID)) })
	var out [][]eval.Datum
	for _, b := range live {
		if !src.HasPrivsOfRole(b.User) {
			continue
		}
		id := eval.Int(int64(b.PID))
		host := "localhost"
		if b.Addr != "" {
			host = b.Addr + ":" + strconv.Itoa(b.Port) // MariaDB's %s:%u: ::1:port, no brackets
		}
		db := eval.Null
		if b.Schema != "" {
			db = eval.Text(b.Schema)
		}
		command, state, info := "Sleep", eval.Text(""), eval.Null
		if b.Active && !b.Disabled {
			command, state, info = "Query", eval.Text("Executing"), eval.Text(infoText(b.Query))
			if b.Execute {
				command = "Execute"
			}
			switch {
			case b.Self:
				state = eval.Text("Filling schema table")
			case b.WaitEvent != "":
				state = eval.Text("Waiting for table metadata lock")
			}
		}
		since := time.Duration(0)
		if !b.Changed.IsZero() && now.After(b.Changed) {
			since = now.Sub(b.Changed)
		}
		zero := eval.Int(0)
		out = append(out, []eval.Datum{id, eval.Text(b.User), eval.Text(host), db, eval.Text(command),
			eval.Int(int64(since / time.Second)), state, info, eval.Numeric(apd.New(since.Microseconds(), -3), 3),
			zero, zero, eval.Numeric(apd.New(0, 0), 3), zero, zero, zero, zero, info, id})
	}
	return out, nil
}

// infoText is a statement's text as MariaDB's PROCESSLIST shows it: not
// the white space before it, nor the white space and semicolons after it
// (MariaDB's alloc_query strips them from the text it keeps; a
// statement of several sent at once ends before its semicolon).
func infoText(q string) string {
	return strings.TrimRight(strings.TrimLeft(q, " \t\n\v\f\r"), " \t\n\v\f\r;")
}
