package mysqlwire

import (
	"fmt"
	"strings"
	"testing"
)

// TestShowParameters: a prepared SHOW whose WHERE reads information_schema
// (SHOW FUNCTION STATUS) takes a parameter as a query does; SHOW
// COLUMNS' LIKE and WHERE, built once the user may see the sequence, are
// refused one (1235), not given a statement that expects none.
func TestShowParameters(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	for _, q := range []string{"CREATE DATABASE d", "CREATE SEQUENCE d.s"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := table(t, db, "SHOW FUNCTION STATUS WHERE Db = 'd' AND Name <> 'x'"); got != "Db,Name,Type,Definer,Modified,Created,Security_type,"+
		"Comment,character_set_client,collation_connection,Database Collation" {
		t.Errorf("SHOW FUNCTION STATUS: %q", got)
	}
	rows, err := db.Query("SHOW PROCEDURE STATUS WHERE Db = ?", "d")
	if err != nil {
		t.Fatalf("SHOW PROCEDURE STATUS WHERE Db = ?: %v", err)
	}
	if rows.Next() {
		t.Errorf("SHOW PROCEDURE STATUS WHERE Db = ?: a row")
	}
	rows.Close()
	// Prepared, built again at each execution from the same condition.
	st, err := db.Prepare("SHOW FULL COLUMNS FROM d.s WHERE Field LIKE 'c%' AND (Type = 'bigint(21)' OR Comment <> '')")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 3 {
		rows, err := st.Query()
		if err != nil {
			t.Fatalf("execution %d: %v", i, err)
		}
		var fields []string
		for rows.Next() {
			v := make([]any, 9)
			for j := range v {
				v[j] = new(any)
			}
			if err := rows.Scan(v...); err != nil {
				t.Fatal(err)
			}
			fields = append(fields, fmt.Sprintf("%s", *v[0].(*any)))
		}
		rows.Close()
		if got := strings.Join(fields, ","); got != "cycle_option,cycle_count" {
			t.Errorf("execution %d: %s", i, got)
		}
	}
	for _, q := range []string{"SHOW COLUMNS FROM d.s WHERE Field = ?", "SHOW FULL COLUMNS FROM d.s LIKE ?"} {
		if _, err := db.Query(q, "increment"); number(err) != 1235 {
			t.Errorf("%s: %v, want 1235", q, err)
		}
	}
}
