"""COM_CHANGE_USER through mysql-connector-python (its cmd_change_user),
run against seqd and MariaDB alike by changeuser_test.go: one line per
step, the names of its arguments replaced by their parts (ADMIN, APP,
DB), so that the two servers' transcripts compare.

Arguments: host port admin admin-password app app-password database."""
import sys

import mysql.connector

host, port, admin, admin_pw, app, app_pw, db = sys.argv[1:8]
names = sorted([(admin, "ADMIN"), (app, "APP"), (db, "DB")], key=lambda n: -len(n[0]))


def norm(v):
    s = str(v)
    for name, part in names:
        s = s.replace(name, part)
    return s


def connect():
    return mysql.connector.connect(host=host, port=int(port), user=admin, password=admin_pw,
                                   database=db, use_pure=True)


def query(c, label, q):
    cur = c.cursor()
    try:
        cur.execute(q)
        print(label, norm(cur.fetchall()))
    except mysql.connector.Error as e:
        print(label, "ERROR", e.errno, e.sqlstate, norm(e.msg))


def change(c, label, user, password, database):
    try:
        c.cmd_change_user(username=user, password=password, database=database)
        print(label, "OK")
    except mysql.connector.Error as e:
        print(label, "ERROR", e.errno, e.sqlstate, norm(e.msg))


# A refused change: the session starts again (the user variable gone,
# the transaction rolled back, as the status flags of the answers say),
# as the same user, in the same database; after three refusals the
# fourth is refused unread.
c = connect()
query(c, "set", "SET @v = 1")
query(c, "begin", "BEGIN")
print("in a transaction", c.in_transaction)
change(c, "wrong password", app, "wrong", "")
query(c, "after", "SELECT CURRENT_USER(), DATABASE(), @v")
print("in a transaction", c.in_transaction)
change(c, "unknown user", "nosuch_" + app, "x", "")
change(c, "wrong password again", app, "wrong", "")
change(c, "fourth", admin, admin_pw, "")
query(c, "after four", "SELECT CURRENT_USER(), DATABASE()")
c.close()

# Accepted changes: the new user, in the database named (or none); a
# database not there refused, the user and database left as they were.
c = connect()
query(c, "set", "SET @v = 1")
change(c, "to app", app, app_pw, "")
query(c, "as app", "SELECT CURRENT_USER(), USER(), DATABASE(), @v")
change(c, "missing database", admin, admin_pw, "nosuch_" + db)
query(c, "after missing", "SELECT CURRENT_USER(), DATABASE()")
change(c, "to admin", admin, admin_pw, db)
query(c, "as admin", "SELECT CURRENT_USER(), DATABASE()")
change(c, "to app again", app, app_pw, "")
query(c, "as app again", "SELECT CURRENT_USER(), DATABASE()")
c.close()
