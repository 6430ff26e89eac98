-- sysbench's MySQL driver (libmariadb; server-side prepared statements
-- under --db-ps-mode=auto, its default) against seqd's MySQL protocol,
-- or MariaDB's.
--
--   sysbench compat/sysbench/nextval.lua --db-driver=mysql --mysql-host=... prepare
--   sysbench compat/sysbench/nextval.lua --db-driver=mysql ... --threads=4 --events=200 run
--
-- prepare creates the sequence and checks, on one connection, PREVIOUS
-- VALUE FOR before and after a value, LASTVAL, SETVAL, an unknown
-- sequence's error by its number (4091) and a transaction. run takes one value per event with a
-- prepared SELECT NEXTVAL(...) and prints each on a line of its own
-- ("value N"), for the caller to check that all are distinct.

local seq = "sb_seq"

local function one(con, q)
   local rs = con:query(q)
   local row = rs:fetch_row()
   return row[1]
end

local function expect(what, got, want)
   if tostring(got) ~= tostring(want) then
      error(string.format("%s: got %s, want %s", what, tostring(got), tostring(want)))
   end
end

function prepare()
   local con = sysbench.sql.driver():connect()
   con:query("DROP SEQUENCE IF EXISTS " .. seq)
   con:query("CREATE SEQUENCE " .. seq .. " START WITH 1 INCREMENT BY 1 NOCACHE")
   expect("PREVIOUS VALUE FOR before a value", one(con, "SELECT PREVIOUS VALUE FOR " .. seq), "nil")
   expect("NEXT VALUE FOR", one(con, "SELECT NEXT VALUE FOR " .. seq), 1)
   expect("LASTVAL", one(con, "SELECT LASTVAL(" .. seq .. ")"), 1)

   -- MariaDB takes SETVAL's arguments as literals only (a ? is its
   -- 1064), so SETVAL goes as text.
   expect("SETVAL", one(con, "SELECT SETVAL(" .. seq .. ", 100)"), 100)
   expect("NEXT VALUE FOR after SETVAL", one(con, "SELECT NEXT VALUE FOR " .. seq), 101)

   -- sysbench 1.0 raises a failed query as a string naming its errno.
   local ok, err = pcall(con.query, con, "SELECT NEXT VALUE FOR sb_missing")
   if ok or not tostring(err):find("errno = 4091", 1, true) then
      error("an unknown sequence: want error 4091, got " .. tostring(err))
   end

   con:query("BEGIN")
   expect("NEXT VALUE FOR in a transaction", one(con, "SELECT NEXT VALUE FOR " .. seq), 102)
   con:query("COMMIT")
   con:query("SELECT SETVAL(" .. seq .. ", 0, 0)") -- MariaDB's: no move backwards, NULL
   con:query("ALTER SEQUENCE " .. seq .. " RESTART WITH 1")
   print("prepare: ok")
end

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   stmt = con:prepare("SELECT NEXTVAL(" .. seq .. ")")
end

function event()
   -- One write a line: print writes its pieces apart, which threads
   -- interleave.
   io.write("value " .. one(con, "SELECT NEXT VALUE FOR " .. seq) .. "\n")
   stmt:execute()
end

function thread_done()
   stmt:close()
   con:disconnect()
end
