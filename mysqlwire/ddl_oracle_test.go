package mysqlwire

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/pgsql"
)

// ddlCorpus is MariaDB 10.11's sequence DDL as scripts and migration
// tools write it, run after corpus (oracle): CREATE OR REPLACE, every
// option form MariaDB takes with its checks (4085, 1225) and table
// options (COMMENT= shown by SHOW CREATE SEQUENCE), DROP of several names
// with MariaDB's partial drop, DROP DATABASE, and the sequence errors'
// texts. {db} is the oracle's database; the databases made here are
// named after it, so that runs side by side do not meet. No statement
// drops a database of MariaDB's own (mysql, sys, performance_schema):
// MariaDB would.
var ddlCorpus = []string{
	"CREATE OR REPLACE SEQUENCE r1 CACHE 1000",
	"SELECT NEXTVAL(r1), NEXTVAL(r1)",
	"CREATE OR REPLACE SEQUENCE r1 START WITH 50",
	"SELECT NEXTVAL(r1)",
	"create or replace sequence r1 maxvalue 0",
	"SELECT NEXTVAL(r1)",
	"CREATE OR REPLACE SEQUENCE IF NOT EXISTS r1",
	"CREATE OR REPLACE TEMPORARY SEQUENCE rt START WITH 3",
	"CREATE OR REPLACE TEMPORARY SEQUENCE rt START WITH 7",
	"SELECT NEXTVAL(rt)",
	"DROP TEMPORARY SEQUENCE rt",
	"CREATE SEQUENCE r1",
	"CREATE SEQUENCE {db}.r1",
	"CREATE SEQUENCE nodb_x.r1",
	"CREATE SEQUENCE o1 START WITH 9 MINVALUE=10",
	"CREATE SEQUENCE o1 MINVALUE=100 MAXVALUE=10",
	"CREATE SEQUENCE o1 START=5 MAXVALUE=4",
	"CREATE SEQUENCE o1 CACHE=-1",
	"CREATE SEQUENCE o1 CACHE 9223372036854775807",
	"CREATE SEQUENCE o1 INCREMENT BY 9223372036854775807",
	"CREATE SEQUENCE o1 START WITH -5",
	"CREATE SEQUENCE o1 MAXVALUE 9223372036854775807",
	"CREATE SEQUENCE o1 START 1 START 2",
	"CREATE SEQUENCE o1 INCREMENT 1 INCREMENT 2",
	"CREATE SEQUENCE o1 CACHE 1 CACHE 2",
	"CREATE SEQUENCE o1 NOCACHE CACHE 5",
	"CREATE SEQUENCE o1 MAXVALUE 5 NO MAXVALUE",
	"CREATE SEQUENCE o1 NO MAXVALUE MAXVALUE 5",
	"CREATE SEQUENCE o1 NOCYCLE CYCLE",
	"CREATE SEQUENCE o1 NO MINVALUE NO MINVALUE",
	"CREATE SEQUENCE o1 MINVALUE=5 NO MINVALUE",
	"CREATE SEQUENCE o2 NO MINVALUE MINVALUE=1",
	"CREATE SEQUENCE o3 MINVALUE 2 MINVALUE 3",
	"CREATE SEQUENCE o4 CACHE +1",
	"CREATE SEQUENCE o5 START 5",
	"CREATE SEQUENCE o7 INCREMENT BY -1 MAXVALUE=13",
	"CREATE SEQUENCE o8 MIN_ROWS=1 MAX_ROWS=2 COMMENT='hi' ENGINE=InnoDB",
	"CREATE SEQUENCE o9 CACHE 1000 COMMENT='it''s' , ENGINE=InnoDB",
	"CREATE SEQUENCE o10 COMMENT 'a' COMMENT 'b'",
	"CREATE SEQUENCE o11 CACHE 0",
	"create sequence o12 maxvalue=13, increment by -1", "ALTER SEQUENCE o5 MAXVALUE=14, CYCLE", "CREATE SEQUENCE o12 NOCACHE ,  CYCLE",
	"CREATE SEQUENCE o12 NOCACHE,", "CREATE SEQUENCE o12, o13", "CREATE SEQUENCE o12 START WITH 1,2",
	"SHOW CREATE SEQUENCE o2", "SHOW CREATE SEQUENCE o3", "SHOW CREATE SEQUENCE o5",
	"SHOW CREATE SEQUENCE o7", "SHOW CREATE SEQUENCE o8", "SHOW CREATE SEQUENCE o9", "SHOW CREATE SEQUENCE o10", "SHOW CREATE SEQUENCE o11",
	"CREATE OR REPLACE SEQUENCE o10 START WITH 4",
	"SHOW CREATE SEQUENCE o10",
	"SELECT NEXTVAL(o7), NEXTVAL(o7)",
	"ALTER SEQUENCE o7 MINVALUE 200",
	"ALTER SEQUENCE o7 MAXVALUE 0 START 5 START 6",
	"ALTER SEQUENCE o7 RESTART RESTART WITH 5",
	"ALTER SEQUENCE o7 CYCLE NOCYCLE",
	"ALTER SEQUENCE o7 RESTART WITH 100 START WITH 5",
	"ALTER SEQUENCE nope NOCACHE",
	"ALTER SEQUENCE IF EXISTS nope NOCACHE",
	"CREATE SEQUENCE d1 START WITH 1 MAXVALUE 1 NOCACHE",
	"SELECT NEXTVAL(d1)",
	"SELECT NEXTVAL(d1)",
	"SELECT NEXTVAL({db}.d1)",
	"DROP SEQUENCE d1, nope",
	"SELECT NEXTVAL(d1)",
	"DROP SEQUENCE nope",
	"DROP SEQUENCE nodb_x.a, nodb_x.b, nope",
	"DROP SEQUENCE IF EXISTS nope, o2",
	"SELECT NEXTVAL(o2)",
	"DROP SEQUENCE o3, o3",
	"DROP SEQUENCE o3, {db}.o3",
	"DROP SEQUENCE o3, o4",
	"CREATE DATABASE {db}_x",
	"CREATE SEQUENCE {db}_x.s",
	"SELECT NEXTVAL({db}_x.s)",
	"DROP DATABASE {db}_x",
	"SELECT NEXTVAL({db}_x.s)",
	"DROP DATABASE {db}_x",
	"DROP DATABASE IF EXISTS {db}_x",
	"DROP SCHEMA IF EXISTS {db}_x",
	"CREATE DATABASE {db}_y",
	"USE {db}_y",
	"CREATE SEQUENCE y1",
	"DROP DATABASE {db}_y",
	"SELECT DATABASE()",
	"CREATE SEQUENCE y2",
	"USE {db}",
	"SELECT VERSION() LIKE '10.11.%-MariaDB%'",
	// MariaDB's cache where it shows: ALTER without RESTART continues
	// from next_not_cached_value (here, NOCACHE and CACHE 1, the value
	// after the last, at the new increment from there; with a cache see
	// TestAlterDiscardsWindow), PREVIOUS VALUE FOR kept by ALTER and
	// SETVAL, NULL after DROP and CREATE or CREATE OR REPLACE; SETVAL
	// beyond the bound taken, the sequence spent.
	"CREATE SEQUENCE w1 NOCACHE",
	"SELECT NEXTVAL(w1), NEXTVAL(w1), NEXTVAL(w1)",
	"ALTER SEQUENCE w1 INCREMENT BY 2",
	"SELECT PREVIOUS VALUE FOR w1, next_not_cached_value FROM w1",
	"SELECT NEXTVAL(w1), NEXTVAL(w1)",
	"ALTER SEQUENCE w1 MINVALUE 0",
	"SELECT NEXTVAL(w1)",
	"ALTER SEQUENCE w1 MAXVALUE 100000",
	"SELECT next_not_cached_value FROM w1",
	"ALTER SEQUENCE w1 CYCLE",
	"SELECT NEXTVAL(w1), LASTVAL(w1)",
	"ALTER SEQUENCE w1 RESTART",
	"SELECT PREVIOUS VALUE FOR w1, next_not_cached_value FROM w1",
	"SELECT NEXTVAL(w1)",
	"ALTER SEQUENCE w1 RESTART WITH 50",
	"SELECT NEXTVAL(w1), PREVIOUS VALUE FOR w1",
	"CREATE SEQUENCE w2 CACHE 1",
	"SELECT NEXTVAL(w2), NEXTVAL(w2)",
	"ALTER SEQUENCE w2 INCREMENT BY 5",
	"SELECT next_not_cached_value FROM w2",
	"SELECT NEXTVAL(w2)",
	"ALTER SEQUENCE w2 INCREMENT BY -1 MINVALUE 1",
	"SELECT NEXTVAL(w2)",
	"DROP SEQUENCE w2",
	"CREATE SEQUENCE w2",
	"SELECT PREVIOUS VALUE FOR w2, LASTVAL(w2)",
	"SELECT NEXTVAL(w2)",
	"CREATE OR REPLACE SEQUENCE w2",
	"SELECT PREVIOUS VALUE FOR w2, LASTVAL(w2)",
	"CREATE SEQUENCE w3 MAXVALUE 100 NOCACHE",
	"SELECT NEXTVAL(w3), NEXTVAL(w3)",
	"SELECT SETVAL(w3, 200)",
	"SELECT PREVIOUS VALUE FOR w3, next_not_cached_value FROM w3",
	"SELECT NEXTVAL(w3)",
	"SELECT SETVAL(w3, 150)",
	"SELECT SETVAL(w3, 50)",
	"CREATE OR REPLACE SEQUENCE w3 MAXVALUE 100 NOCACHE",
	"SELECT SETVAL(w3, 100, 0), next_not_cached_value FROM w3",
	"SELECT NEXTVAL(w3)",
	"SELECT SETVAL(w3, 101, 0)",
	"SELECT next_not_cached_value FROM w3",
	"SELECT NEXTVAL(w3)",
	"CREATE SEQUENCE w4 MINVALUE 10 MAXVALUE 100 NOCACHE",
	"SELECT NEXTVAL(w4)",
	"SELECT SETVAL(w4, 5), SETVAL(w4, 5, 0), next_not_cached_value FROM w4",
	"SELECT SETVAL(w4, 50, 1)",
	"SELECT PREVIOUS VALUE FOR w4, NEXTVAL(w4)",
	"CREATE SEQUENCE w5 INCREMENT BY -1 MINVALUE 1 MAXVALUE 10 NOCACHE",
	"SELECT NEXTVAL(w5)",
	"SELECT SETVAL(w5, 0)",
	"SELECT NEXTVAL(w5)",
	"SELECT SETVAL(w5, 20)",
	"DROP SEQUENCE w1, w2, w3, w4, w5",
	// MariaDB's diagnostics (the oracle compares SHOW WARNINGS and
	// @@warning_count after each statement): the notes of IF EXISTS and
	// IF NOT EXISTS; a statement without a table (SELECT 1, SET, USE,
	// CREATE DATABASE) keeps the last statement's, one with a table
	// clears them; an error is the one row of level Error, two for a
	// missing sequence called (4091, 1146).
	"CREATE DATABASE IF NOT EXISTS {db}",
	"SELECT 1",
	"SET autocommit = 1",
	"SHOW COUNT(*) WARNINGS",
	"SHOW COUNT(*) ERRORS",
	"SHOW ERRORS",
	"SHOW WARNINGS",
	"SELECT @@warning_count",
	"CREATE SEQUENCE IF NOT EXISTS x1",
	"CREATE SEQUENCE IF NOT EXISTS {db}.x1",
	"SELECT NEXTVAL(x1)",
	"CREATE TEMPORARY SEQUENCE IF NOT EXISTS x2",
	"CREATE TEMPORARY SEQUENCE IF NOT EXISTS x2",
	"SELECT * FROM (SELECT 1 AS a) t",
	"DROP SEQUENCE IF EXISTS x1, nope, {db}.nope2, nodb_x.n3",
	"DROP SEQUENCE IF EXISTS nope",
	"DROP TEMPORARY SEQUENCE IF EXISTS x2, nope",
	"ALTER SEQUENCE IF EXISTS nodb_x.s RESTART",
	"ALTER SEQUENCE IF EXISTS nope RESTART WITH 5",
	"CREATE DATABASE {db}_w",
	"DROP DATABASE {db}_w",
	"DROP DATABASE IF EXISTS {db}_w",
	"CREATE DATABASE IF NOT EXISTS {db}_w",
	"CREATE DATABASE IF NOT EXISTS {db}_w",
	"USE {db}",
	"DROP SCHEMA IF EXISTS {db}_w",
	"SELECT NEXTVAL(nope)",
	// SHOW WARNINGS and SHOW ERRORS LIMIT [offset,] n, and LIMIT n
	// OFFSET m (TiDB's grammar takes none: spellings.go).
	"SHOW WARNINGS LIMIT 1",
	"SHOW WARNINGS LIMIT 1, 1",
	"SHOW ERRORS LIMIT 1 OFFSET 1",
	"show errors limit 0",
	"SHOW WARNINGS LIMIT 5, 10",
	"SHOW ERRORS LIMIT 18446744073709551615",
	"SELECT 2",
	"SHOW ERRORS",
	"SHOW COUNT(*) ERRORS",
	"SELECT PREVIOUS VALUE FOR {db}.nope",
	"ALTER SEQUENCE nope NOCACHE",
	"SELEC 1",
	"SHOW FULL TABLES",
	"SELECT @@warning_count, @@error_count",
	// INCREMENT BY 0 steps by MariaDB's global auto_increment_increment,
	// 1, and is shown as 0 until an ALTER gives another INCREMENT.
	"CREATE SEQUENCE i0 START WITH 5 INCREMENT BY 0 NOCACHE",
	"SHOW CREATE SEQUENCE i0",
	"SELECT * FROM i0",
	"SELECT NEXTVAL(i0), NEXTVAL(i0), PREVIOUS VALUE FOR i0",
	"SET SESSION auto_increment_increment = 5",
	"SELECT NEXTVAL(i0)",
	"SET SESSION auto_increment_increment = 1",
	"ALTER SEQUENCE i0 INCREMENT BY 0 MAXVALUE 8",
	"SELECT NEXTVAL(i0), NEXTVAL(i0)",
	"SELECT NEXTVAL(i0)",
	"ALTER SEQUENCE i0 MAXVALUE 20",
	"SELECT increment, maximum_value FROM i0",
	"ALTER SEQUENCE i0 INCREMENT BY 2",
	"SHOW CREATE SEQUENCE i0",
	"SELECT NEXTVAL(i0), increment FROM i0",
	"CREATE SEQUENCE i1 INCREMENT BY 0 MINVALUE 1 MAXVALUE 3 CYCLE NOCACHE",
	"SELECT NEXTVAL(i1), NEXTVAL(i1), NEXTVAL(i1), NEXTVAL(i1)",
	"CREATE SEQUENCE i2 INCREMENT BY 3 NOCACHE",
	"ALTER SEQUENCE i2 INCREMENT BY 0",
	"SHOW CREATE SEQUENCE i2",
	"SELECT NEXTVAL(i2), NEXTVAL(i2), increment FROM i2",
	"CREATE OR REPLACE SEQUENCE i1 INCREMENT BY 0 COMMENT='zero'",
	"SHOW CREATE SEQUENCE i1",
	"CREATE TEMPORARY SEQUENCE i3 INCREMENT BY 0 CACHE 10",
	"SELECT * FROM i3",
	"SHOW CREATE SEQUENCE i3",
	"DROP TEMPORARY SEQUENCE i3",
	"DROP SEQUENCE i0, i1, i2",
	// CACHE 1 is cache_size 1 (shown cache 1), NOCACHE and CACHE 0 are
	// 0 (nocache); an ALTER that gives CACHE sets it, one that does not
	// keeps it. CACHE 1 and NOCACHE hand out the same values.
	"CREATE SEQUENCE c1 CACHE 1",
	"CREATE SEQUENCE c2 NOCACHE",
	"CREATE SEQUENCE c3 CACHE 0",
	"CREATE SEQUENCE c4 CACHE 2",
	"SHOW CREATE SEQUENCE c1", "SHOW CREATE SEQUENCE c2", "SHOW CREATE SEQUENCE c3", "SHOW CREATE SEQUENCE c4",
	"SELECT cache_size FROM c1", "SELECT cache_size FROM c2", "SELECT cache_size FROM c3", "SELECT cache_size FROM c4",
	"SELECT NEXTVAL(c1), NEXTVAL(c1), NEXTVAL(c2), NEXTVAL(c2), next_not_cached_value FROM c1",
	"ALTER SEQUENCE c2 CACHE 1",
	"SHOW CREATE SEQUENCE c2",
	"SELECT cache_size, next_not_cached_value FROM c2",
	"ALTER SEQUENCE c2 MAXVALUE 100",
	"SELECT cache_size, maximum_value FROM c2",
	"ALTER SEQUENCE c2 NOCACHE",
	"SHOW CREATE SEQUENCE c2",
	"ALTER SEQUENCE c1 INCREMENT BY 2 CYCLE",
	"SHOW CREATE SEQUENCE c1",
	"ALTER SEQUENCE c1 CACHE 0",
	"SELECT cache_size FROM c1",
	"ALTER SEQUENCE c1 CACHE +1",
	"ALTER SEQUENCE c4 CACHE 1",
	"ALTER SEQUENCE c4 CACHE 3",
	"SELECT * FROM c1", "SELECT cache_size FROM c4",
	"CREATE OR REPLACE SEQUENCE c3 CACHE 1 COMMENT='one'",
	"SHOW CREATE SEQUENCE c3",
	"CREATE OR REPLACE SEQUENCE c3",
	"SELECT cache_size FROM c3",
	"CREATE TEMPORARY SEQUENCE c5 CACHE 1",
	"SELECT cache_size FROM c5",
	"DROP TEMPORARY SEQUENCE c5",
	"DROP SEQUENCE c1, c2, c3, c4",
	// What mariadb-dump sends, and its dump holds: LOCK TABLES ... READ
	// LOCAL and UNLOCK TABLES (checked, no lock taken), FLUSH TABLES,
	// --single-transaction's transaction and savepoints, SHOW CREATE
	// DATABASE, DO SETVAL, the preamble's user variables.
	"CREATE SEQUENCE k1 START WITH 10 INCREMENT BY 5 NOCACHE",
	"LOCK TABLES nope READ",
	"LOCK TABLES k1 READ /*!32311 LOCAL */",
	"SELECT next_not_cached_value FROM k1",
	"UNLOCK TABLES",
	"LOCK TABLES k1 READ, k1 READ",
	"LOCK TABLES k1 READ, nope READ",
	"LOCK TABLES {db}.k1 READ LOCAL, nodb_x.k1 READ",
	"UNLOCK TABLES",
	"UNLOCK TABLES",
	"FLUSH TABLES",
	"FLUSH TABLES k1, nope",
	"SAVEPOINT sp",
	"RELEASE SAVEPOINT sp",
	"ROLLBACK TO SAVEPOINT sp",
	"SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
	"START TRANSACTION /*!40100 WITH CONSISTENT SNAPSHOT */",
	"UNLOCK TABLES",
	"SAVEPOINT sp",
	"SELECT NEXTVAL(k1)",
	"ROLLBACK TO SAVEPOINT sp",
	"ROLLBACK TO sp",
	"RELEASE SAVEPOINT sp",
	"RELEASE SAVEPOINT sp",
	"SELECT NEXTVAL(k1)",
	"COMMIT",
	"LOCK TABLES k1 READ",
	"START TRANSACTION",
	"SAVEPOINT a",
	"UNLOCK TABLES",
	"RELEASE SAVEPOINT a",
	"COMMIT",
	"START TRANSACTION",
	"SAVEPOINT a",
	"LOCK TABLES k1 READ",
	"RELEASE SAVEPOINT a",
	"UNLOCK TABLES",
	"DO SETVAL(k1, 100, 0)",
	"SELECT NEXTVAL(k1)",
	"DO SETVAL(`k1`, 50, 0), NEXTVAL(k1)",
	"SELECT PREVIOUS VALUE FOR k1",
	"DO 1/0",
	"SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0",
	"SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0",
	"SELECT @@unique_checks, @@sql_notes, @@foreign_key_checks",
	"SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS",
	"SET SQL_NOTES=@OLD_SQL_NOTES",
	"SELECT @@unique_checks, @@sql_notes",
	"CREATE DATABASE {db}_c CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
	"SHOW CREATE DATABASE {db}_c",
	"SHOW CREATE DATABASE IF NOT EXISTS {db}_c",
	"SHOW CREATE DATABASE nodb_x",
	"DROP DATABASE {db}_c",
	"DROP SEQUENCE k1",
	"START TRANSACTION",
	"SAVEPOINT a",
	"FLUSH TABLES",
	"RELEASE SAVEPOINT a",
	"START TRANSACTION",
	"SAVEPOINT a",
	"FLUSH TABLES WITH READ LOCK",
	"RELEASE SAVEPOINT a",
	"UNLOCK TABLES",
	"SET optimizer_switch='semijoin=off'",
	"SELECT @@optimizer_switch",
	"SET optimizer_switch='semijoin=default,mrr=on'",
	"SELECT @@optimizer_switch",
	"set optimizer_switch=default",
	"SELECT @@optimizer_switch",
	"SET optimizer_switch='nope=on'",
	"SET optimizer_switch='semijoin=maybe'",
	// A sequence as MariaDB shows it as a table: SHOW CREATE TABLE,
	// DESCRIBE, SHOW COLUMNS and SHOW FIELDS, SHOW TABLE STATUS (its
	// columns; its sizes and times are MariaDB's storage's, below),
	// information_schema.TABLES' comment.
	"CREATE SEQUENCE t1 START WITH 5 CACHE 10 COMMENT='it''s'",
	"CREATE SEQUENCE t2 INCREMENT BY -2 NOCACHE CYCLE",
	"SHOW CREATE TABLE t1",
	"SHOW CREATE TABLE {db}.t2",
	"SHOW CREATE TABLE nope",
	"SHOW CREATE TABLE nodb_x.t1",
	"DESCRIBE t1",
	"DESC {db}.t2",
	"SHOW COLUMNS FROM t1",
	"SHOW FIELDS FROM t2 FROM {db}",
	"DESCRIBE nope",
	"SHOW COLUMNS FROM nope",
	"SHOW TABLE STATUS LIKE 'nope%'",
	"SHOW TABLE STATUS FROM {db} LIKE 'zz'",
	"SHOW TABLE STATUS WHERE Name = 'nope'",
	"SHOW TABLE STATUS FROM {db} WHERE Engine = 'InnoDB' AND name LIKE 'nope%' OR `Rows` > 5",
	// A database not there: 1049 for SHOW [FULL] TABLES and SHOW TABLE
	// STATUS, nothing for SHOW EVENTS.
	"SHOW TABLES FROM nodb_x",
	"SHOW FULL TABLES FROM nodb_x LIKE 't%'",
	"SHOW TABLE STATUS FROM nodb_x",
	"SHOW TABLE STATUS FROM nodb_x WHERE Name = 't1'",
	"SHOW EVENTS FROM nodb_x",
	// What seqd serves, as MariaDB shows it (the whole lists are
	// MariaDB's engines and character sets, not seqd's).
	"SHOW CHARACTER SET LIKE 'utf8mb4'",
	"SHOW CHARSET LIKE 'bin%'",
	"SHOW COLLATION LIKE 'utf8mb4_general_ci'",
	"SHOW COLLATION LIKE 'utf8mb4_bin'",
	"SELECT * FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN ('utf8mb4_general_ci', 'utf8mb4_bin', 'binary') ORDER BY ID",
	"SELECT * FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME IN ('utf8mb4', 'binary') ORDER BY 1",
	"SELECT * FROM information_schema.ENGINES WHERE ENGINE = 'InnoDB'",
	"SELECT c.CHARACTER_SET_NAME, s.MAXLEN FROM information_schema.COLLATIONS c JOIN information_schema.CHARACTER_SETS s USING (CHARACTER_SET_NAME) WHERE c.ID = 45",
	"SELECT table_name, table_comment, table_rows, create_options FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 't%' ORDER BY 1",
	"CREATE TEMPORARY SEQUENCE tt START 4",
	"SHOW CREATE TABLE tt",
	"DESCRIBE tt",
	"LOCK TABLES tt READ",
	"UNLOCK TABLES",
	"SHOW TABLE STATUS LIKE 'tt'",
	"DROP TEMPORARY SEQUENCE tt",
	"DO SETVAL(nope, 5, 0)",
	// SHOW [FULL] COLUMNS with LIKE (Field's pattern) and WHERE (the
	// result's own columns), DESCRIBE s col.
	"SHOW FULL COLUMNS FROM t1",
	"SHOW FULL FIELDS FROM t2 FROM {db} LIKE 'c%'",
	"SHOW COLUMNS FROM t1 LIKE 'CACHE\\_SIZE'",
	"SHOW COLUMNS FROM {db}.t1 LIKE 'zz%'",
	"SHOW FIELDS FROM t1 WHERE Field = 'cache_size'",
	"SHOW FULL COLUMNS FROM t1 WHERE Type LIKE 'bigint%' AND Comment <> ''",
	"SHOW COLUMNS FROM t1 WHERE `Null` = 'NO' AND `Default` IS NULL AND Field > 'm' AND `Key` = ''",
	"SHOW FULL COLUMNS FROM t2 WHERE Collation IS NULL AND Privileges LIKE '%select%' ORDER BY 1",
	"DESCRIBE t1 cycle_option",
	"DESC t2 nope",
	"SHOW FULL COLUMNS FROM nope",
	"SHOW COLUMNS FROM nope LIKE 'c%'",
	"SHOW FULL COLUMNS FROM nope WHERE Field = 'x'",
	// What mariadb-dump --routines, --events and --master-data ask: no
	// routines, events nor binary log.
	"SHOW FUNCTION STATUS WHERE Db = '{db}'",
	"SHOW PROCEDURE STATUS WHERE Db = '{db}'",
	"SHOW PACKAGE STATUS WHERE Db = '{db}'",
	"SHOW PACKAGE BODY STATUS WHERE Db = '{db}'",
	"SHOW FUNCTION STATUS LIKE 'x%'",
	"SHOW EVENTS",
	"SHOW EVENTS FROM {db} LIKE 'x%'",
	"SHOW EVENTS WHERE Name = 'x'",
	"SHOW MASTER STATUS",
	"SHOW STATUS LIKE 'binlog_snapshot_%'",
	"SHOW GLOBAL STATUS LIKE 'Binlog\\_snapshot\\_position'",
	"SELECT BINLOG_GTID_POS('', '0')",
	// information_schema's tables of what seqd has not: empty, but
	// PARTITIONS' row of each table (sizes and times aside: MariaDB's
	// storage's); the reads of FILES mariadb-dump makes.
	"SELECT * FROM information_schema.FILES",
	"SELECT * FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.EVENTS WHERE EVENT_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()",
	"SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, PARTITION_NAME, SUBPARTITION_NAME, PARTITION_ORDINAL_POSITION, " +
		"SUBPARTITION_ORDINAL_POSITION, PARTITION_METHOD, SUBPARTITION_METHOD, PARTITION_EXPRESSION, SUBPARTITION_EXPRESSION, " +
		"PARTITION_DESCRIPTION, TABLE_ROWS, MAX_DATA_LENGTH, INDEX_LENGTH, DATA_FREE, UPDATE_TIME, CHECK_TIME, CHECKSUM, " +
		"PARTITION_COMMENT, NODEGROUP, TABLESPACE_NAME FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME",
	"SELECT LOGFILE_GROUP_NAME, FILE_NAME, TOTAL_EXTENTS, INITIAL_SIZE, ENGINE, EXTRA FROM INFORMATION_SCHEMA.FILES " +
		"WHERE FILE_TYPE = 'UNDO LOG' AND FILE_NAME IS NOT NULL AND LOGFILE_GROUP_NAME IS NOT NULL AND LOGFILE_GROUP_NAME IN " +
		"(SELECT DISTINCT LOGFILE_GROUP_NAME FROM INFORMATION_SCHEMA.FILES WHERE FILE_TYPE = 'DATAFILE' AND TABLESPACE_NAME IN " +
		"(SELECT DISTINCT TABLESPACE_NAME FROM INFORMATION_SCHEMA.PARTITIONS WHERE TABLE_SCHEMA IN ('{db}'))) " +
		"GROUP BY LOGFILE_GROUP_NAME, FILE_NAME, ENGINE, TOTAL_EXTENTS, INITIAL_SIZE ORDER BY LOGFILE_GROUP_NAME",
	"SELECT DISTINCT TABLESPACE_NAME, FILE_NAME, LOGFILE_GROUP_NAME, EXTENT_SIZE, INITIAL_SIZE, ENGINE FROM INFORMATION_SCHEMA.FILES " +
		"WHERE FILE_TYPE = 'DATAFILE' AND TABLESPACE_NAME IN (SELECT DISTINCT TABLESPACE_NAME FROM INFORMATION_SCHEMA.PARTITIONS " +
		"WHERE TABLE_SCHEMA IN ('{db}')) ORDER BY TABLESPACE_NAME, LOGFILE_GROUP_NAME",
	// COLUMNS: each sequence's eight columns, as ORMs and tools read a
	// table's; a sequence has no index nor constraint.
	"SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION",
	"SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, NUMERIC_PRECISION FROM information_schema.COLUMNS " +
		"WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't1' ORDER BY ORDINAL_POSITION",
	"SELECT COUNT(*), MAX(ORDINAL_POSITION) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{db}' AND COLUMN_NAME LIKE 'cycle%'",
	"SELECT * FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()",
	"SELECT * FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE()",
	"DROP SEQUENCE t1, t2",
	// MariaDB's numbers and words for a database there already, a
	// system variable it does not have, a value autocommit does not take.
	"CREATE DATABASE {db}", "SET @@nope = 1", "SET nope = 1", "SELECT @@nope", "SET autocommit = 'x'", "SELECT @@autocommit",
}

// ddlCorpusLen pins ddlCorpus's length: a statement left out is a
// failure, not a smaller test.
const ddlCorpusLen = 410

// TestMariaDBSessionAnswers: what the oracle cannot compare, the user
// and the version being seqd's own: DROP DATABASE information_schema is
// MariaDB's 1044 naming the user, and VERSION() and @@version are the
// version without the handshake's "5.5.5-", as MariaDB answers them.
func TestMariaDBSessionAnswers(t *testing.T) {
	addr, _ := startServer(t, Config{})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	for _, q := range []string{"DROP DATABASE information_schema", "DROP DATABASE IF EXISTS INFORMATION_SCHEMA"} {
		_, err := db.Exec(q)
		if number(err) != 1044 || sqlState(err) != "42000" || !strings.Contains(err.Error(), "Access denied for user 'root'@'127.0.0.1' to database") {
			t.Errorf("%s: %v, want 1044 42000 naming root@127.0.0.1", q, err)
		}
	}
	var v, vv, comment string
	if err := db.QueryRow("SELECT VERSION()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT @@version, @@version_comment").Scan(&vv, &comment); err != nil {
		t.Fatal(err)
	}
	if v != Version || vv != Version || strings.HasPrefix(v, "5.5.5-") || ServerVersion != "5.5.5-"+Version || comment == "" {
		t.Errorf("VERSION() %q, @@version %q, @@version_comment %q; want %q twice", v, vv, comment, Version)
	}
}

// TestCacheOneBothFronts: MariaDB's CACHE 1 is kept apart from NOCACHE
// for MySQL's views only (information_schema.SEQUENCES's CACHE and
// CACHE_VALUE too, as TiDB shows them): PostgreSQL's pg_sequences shows cache_size 1
// either way, and an ALTER from PostgreSQL that gives CACHE (its own
// CACHE 1 too) clears it, one that gives none keeps it.
func TestCacheOneBothFronts(t *testing.T) {
	addr, eng := startServer(t, Config{})
	db := open(t, addr, "root", "")
	db.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE DATABASE d", "CREATE SEQUENCE d.c CACHE 1", "CREATE SEQUENCE d.n NOCACHE"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mysqlCache := func(name string) (cache int64, create string) {
		t.Helper()
		if err := db.QueryRow("SELECT cache_size FROM d." + name).Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRow("SHOW CREATE SEQUENCE d."+name).Scan(new(string), &create); err != nil {
			t.Fatal(err)
		}
		return cache, create
	}
	if c, create := mysqlCache("c"); c != 1 || !strings.Contains(create, " cache 1 ") {
		t.Fatalf("CACHE 1: cache_size %d, %q", c, create)
	}
	if c, create := mysqlCache("n"); c != 0 || !strings.Contains(create, " nocache ") {
		t.Fatalf("NOCACHE: cache_size %d, %q", c, create)
	}
	for name, want := range map[string]sql.NullInt64{"c": {Int64: 1, Valid: true}, "n": {}} {
		var cache int64
		var value sql.NullInt64
		err := db.QueryRow("SELECT CACHE, CACHE_VALUE FROM information_schema.SEQUENCES WHERE SEQUENCE_SCHEMA = 'd' AND SEQUENCE_NAME = ?", name).Scan(&cache, &value)
		if err != nil || cache != want.Int64 || value != want {
			t.Errorf("information_schema.SEQUENCES of %s: CACHE %d, CACHE_VALUE %v, %v; want %d, %v", name, cache, value, err, want.Int64, want)
		}
	}
	for _, name := range []string{"c", "n"} {
		if c := pgInt(t, eng, "select cache_size from pg_sequences where schemaname = 'd' and sequencename = '"+name+"'"); c != 1 {
			t.Errorf("pg_sequences' cache_size of %s: %d, want 1", name, c)
		}
	}
	pgExec(t, eng, "alter sequence d.c maxvalue 100")
	if c, create := mysqlCache("c"); c != 1 || !strings.Contains(create, " cache 1 ") {
		t.Fatalf("after PostgreSQL's ALTER MAXVALUE: cache_size %d, %q", c, create)
	}
	pgExec(t, eng, "alter sequence d.c cache 1")
	if c, create := mysqlCache("c"); c != 0 || !strings.Contains(create, " nocache ") {
		t.Fatalf("after PostgreSQL's ALTER CACHE 1: cache_size %d, %q", c, create)
	}
}

// pgInt is the integer q, PostgreSQL's text, answers first, run as the
// superuser root on eng.
func pgInt(t *testing.T, eng *engine.Engine, q string) int64 {
	t.Helper()
	s, err := executor.NewSession(executor.Config{Engine: eng, User: "root", Superuser: "root", Database: "seqd"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stmts, err := pgsql.Parse(q)
	if err != nil || len(stmts) != 1 {
		t.Fatalf("%s: %v", q, err)
	}
	p, err := s.Prepare(&stmts[0], nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	res, err := s.Execute(context.Background(), p, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer s.Release(res)
	row, ok, err := res.Rows.Next()
	if err != nil || !ok || len(row) == 0 {
		t.Fatalf("%s: %v, %v", q, ok, err)
	}
	return row[0].I
}
