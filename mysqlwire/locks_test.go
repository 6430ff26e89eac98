package mysqlwire

import (
	"context"
	"testing"
	"time"
)

// TestLockTablesHoldsNoLock: under LOCK TABLES ... READ [LOCAL], as
// mariadb-dump takes it, every other session's NEXT VALUE FOR runs at
// once (seqd's values wait on no client), and the locking session reads
// the sequence's row; LOCK TABLES ... WRITE, whose exclusion seqd does
// not give, is 1235. (The oracle corpus compares LOCK TABLES' checks
// and its transactions with MariaDB's.)
func TestLockTablesHoldsNoLock(t *testing.T) {
	addr, _ := startServer(t, Config{})
	root := open(t, addr, "root", "public")
	if _, err := root.Exec("CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	locker, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	if _, err := locker.ExecContext(ctx, "LOCK TABLES s READ /*!32311 LOCAL */"); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var v int64
	if err := open(t, addr, "root", "public").QueryRowContext(cctx, "SELECT NEXTVAL(s)").Scan(&v); err != nil || v != 1 {
		t.Fatalf("another session's NEXTVAL under LOCK TABLES s READ: %d, %v", v, err)
	}
	if err := locker.QueryRowContext(ctx, "SELECT next_not_cached_value FROM s").Scan(&v); err != nil || v != 2 {
		t.Fatalf("the locking session's read: %d, %v", v, err)
	}
	for _, q := range []string{"LOCK TABLES s WRITE", "LOCK TABLES s READ LOCAL, s2 WRITE"} {
		if _, err := locker.ExecContext(ctx, q); number(err) != 1235 {
			t.Errorf("%s: %v, want 1235", q, err)
		}
	}
	if _, err := locker.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
		t.Fatal(err)
	}
}
