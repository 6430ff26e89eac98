-- VALUES lists, as a statement and in FROM.
\set VERBOSITY verbose
values (1, 'a'), (2, 'b') order by 1 desc;
values (1), (2.5);
values ('x'), (null), ('y') order by column1 nulls first;
select * from (values (1, 'a'), (2, null)) v(n, s) where n > 1;
select x from (values (1), (2)) v(x) order by x limit 1;
select count(*), max(column1) from (values (3), (1), (2)) v;
values (1) union all values (2) order by 1;
values (1), (2, 3);
values (1), ('x'::text);
values (nextval('nosuch'));
values (1) limit 0;
values (1, 2) order by column2 desc offset 0;
