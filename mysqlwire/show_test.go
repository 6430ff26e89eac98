package mysqlwire

import "testing"

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
	for _, q := range []string{"SHOW COLUMNS FROM d.s WHERE Field = ?", "SHOW FULL COLUMNS FROM d.s LIKE ?"} {
		if _, err := db.Query(q, "increment"); number(err) != 1235 {
			t.Errorf("%s: %v, want 1235", q, err)
		}
	}
}
