-- seqd's own calls and what psql shows for them.
\set VERBOSITY verbose
CREATE SEQUENCE orders CACHE 1000;
SELECT * FROM seqd_reserve('orders', 10);
-- Give back the unused tail 6..10: the next caller gets 6.
SELECT seqd_release('orders', 6, 10);
SELECT seqd_release('orders', 6, 10);
SELECT nextval('orders');
SELECT seqd_reserve('orders', 3) AS r;
SELECT seqd_release('orders', 1, 9);
SELECT seqd_reserve('orders', 0);
SELECT currval('orders'), 1;
SELECT first FROM seqd_reserve('orders', 2);
-- Several statements in one query string stop at the first error.
SELECT nextval('orders') \; SELECT nextval('missing') \; SELECT nextval('orders');
SELECT nextval('orders');
SELECT nextval('orders') FROM generate_series(1, 4);
-- Transaction blocks: sequence calls are not undone, and a failed block
-- ignores commands until it ends.
BEGIN;
SELECT nextval('orders');
ROLLBACK;
SELECT currval('orders');
BEGIN;
SELECT nextval('nope');
SELECT 1;
COMMIT;
COMMIT;
DROP SEQUENCE orders;
