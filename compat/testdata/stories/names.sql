-- Names longer than 63 bytes are truncated, with a NOTICE for each
-- identifier (not for names in strings).
\set VERBOSITY verbose
create sequence abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij;
select nextval('abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij');
select sequencename, length(sequencename) from pg_sequences;
select nextval('"ÄbcdefghijAbcdefghijAbcdefghijAbcdefghijAbcdefghijAbcdefghijÄÄÄÄ"');
create sequence "ÄbcdefghijAbcdefghijAbcdefghijAbcdefghijAbcdefghijAbcdefghijÄÄÄÄ";
select sequencename, octet_length(sequencename) from pg_sequences order by 1;
drop sequence abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij, "ÄbcdefghijAbcdefghijAbcdefghijAbcdefghijAbcdefghijAbcdefghijÄÄÄÄ";
