package mysqlwire

import (
	"testing"
)

// TestAlterDiscardsWindow: after NEXT VALUE FOR at CACHE 1000, an ALTER
// without RESTART continues after the durable mark, as MariaDB's after
// next_not_cached_value (its 1001 after 1, 2, 3): beyond the last value,
// within CACHE of it, at the new increment from there, and
// next_not_cached_value shows that next value; PREVIOUS VALUE FOR is
// kept. RESTART goes back to the start.
func TestAlterDiscardsWindow(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE DATABASE w", "USE w", "CREATE SEQUENCE s CACHE 1000"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	one := func(q string, dst ...any) {
		t.Helper()
		if err := db.QueryRow(q).Scan(dst...); err != nil {
			t.Fatal(q, err)
		}
	}
	var a, b, c, prev, shown, v1, v2 int64
	one("SELECT NEXTVAL(s), NEXTVAL(s), NEXTVAL(s)", &a, &b, &c)
	if _, err := db.Exec("ALTER SEQUENCE s INCREMENT BY 2"); err != nil {
		t.Fatal(err)
	}
	one("SELECT PREVIOUS VALUE FOR s, next_not_cached_value FROM s", &prev, &shown)
	one("SELECT NEXTVAL(s), NEXTVAL(s)", &v1, &v2)
	if a != 1 || b != 2 || c != 3 || prev != 3 || v1 != shown || v1 <= 3 || v1 > 1001 || v2 != v1+2 {
		t.Fatalf("1..3: %d %d %d; after ALTER: previous %d, next_not_cached_value %d, then %d, %d", a, b, c, prev, shown, v1, v2)
	}
	if _, err := db.Exec("ALTER SEQUENCE s RESTART"); err != nil {
		t.Fatal(err)
	}
	one("SELECT NEXTVAL(s)", &v1)
	if v1 != 1 {
		t.Fatalf("after RESTART: %d", v1)
	}
}
