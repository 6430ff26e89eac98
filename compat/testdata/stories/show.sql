-- SHOW names its column as PostgreSQL names the parameter, in its case,
-- however it was asked for (a client reads the column by that name).
set time zone 'UTC';
show time zone;
show timezone;
show TimeZone;
show datestyle;
show DateStyle;
show intervalstyle;
show application_name;
show transaction isolation level;
show standard_conforming_strings;
