"""COM_CHANGE_USER through a real client, run against seqd and MariaDB
alike by changeuser_test.go: mysql-connector-python's cmd_change_user
(its pure-Python protocol) or mysqlclient's change_user (MySQLdb, over
the C library, libmariadb's mysql_change_user). One line per step, the
names of its arguments replaced by their parts (ADMIN, APP, DB), so that
the two servers' transcripts compare.

Arguments: driver (connector or mysqldb) host port admin admin-password
app app-password database."""
import sys

driver, host, port, admin, admin_pw, app, app_pw, db = sys.argv[1:9]
names = sorted([(admin, "ADMIN"), (app, "APP"), (db, "DB")], key=lambda n: -len(n[0]))

if driver == "connector":
    import mysql.connector

    Error = mysql.connector.Error

    def connect():
        return mysql.connector.connect(host=host, port=int(port), user=admin, password=admin_pw,
                                       database=db, use_pure=True)

    def change_user(c, user, password, database):
        c.cmd_change_user(username=user, password=password, database=database)

    def error(e):
        return "%s %s %s" % (e.errno, e.sqlstate, norm(e.msg))

    def in_transaction(c):
        return c.in_transaction
else:
    import MySQLdb

    Error = MySQLdb.Error

    def connect():
        return MySQLdb.connect(host=host, port=int(port), user=admin, password=admin_pw, database=db)

    def change_user(c, user, password, database):
        c.change_user(user, password, database)

    def error(e):
        return "%s %s" % (e.args[0], norm(e.args[1]))

    def in_transaction(c):
        return "(not shown)"


def norm(v):
    s = str(v)
    for name, part in names:
        s = s.replace(name, part)
    return s


def query(c, label, q):
    cur = c.cursor()
    try:
        cur.execute(q)
        print(label, norm([tuple(r) for r in cur.fetchall()]))
    except Error as e:
        print(label, "ERROR", error(e))


def change(c, label, user, password, database):
    try:
        change_user(c, user, password, database)
        print(label, "OK")
    except Error as e:
        print(label, "ERROR", error(e))


# A refused change: the session starts again (the user variable gone,
# the transaction rolled back, as the status flags of the answers say),
# as the same user, in the same database; after three refusals the
# fourth is refused unread.
c = connect()
query(c, "set", "SET @v = 1")
query(c, "begin", "BEGIN")
print("in a transaction", in_transaction(c))
change(c, "wrong password", app, "wrong", "")
query(c, "after", "SELECT CURRENT_USER(), DATABASE(), @v")
print("in a transaction", in_transaction(c))
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
