package eval

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // TimeZone names resolve without the system's zoneinfo

	"github.com/seqd/seqd/sqlerr"
)

// Timestamps with time zone (pg_stat_activity's) are the only date/time
// values seqd makes: a datum of type timestamptz is KInt, microseconds
// since 2000-01-01 UTC (its binary form, what orders it), with its text
// in the session's TimeZone in S. Its input reads PostgreSQL's ISO forms;
// the other date/time types are refused rather than read as text.

// pgEpoch is PostgreSQL's epoch for timestamps: 2000-01-01 UTC.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// PostgreSQL's timestamptz range: from 4714-11-24 BC (Julian day 0) up to
// and not including 294277-01-01 (its END_TIMESTAMP).
var (
	minTimestamptz = time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)
	endTimestamptz = time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
)

// TimestamptzInRange reports whether t is a timestamptz PostgreSQL
// holds: outside its range, Timestamptz's microseconds would overflow.
func TimestamptzInRange(t time.Time) bool {
	return !t.Before(minTimestamptz) && t.Before(endTimestamptz)
}

// Timestamptz makes a timestamp with time zone datum of t, its text in
// loc, in PostgreSQL's ISO DateStyle ("2026-11-24 12:05:20.123456+00").
func Timestamptz(t time.Time, loc *time.Location) Datum {
	t = t.Round(time.Microsecond).In(loc)
	b := t.AppendFormat(nil, "2006-01-02 15:04:05.999999")
	_, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = append(b, sign, byte('0'+off/36000), byte('0'+off/3600%10))
	if m, sec := off/60%60, off%60; m != 0 || sec != 0 {
		b = append(b, ':', byte('0'+m/10), byte('0'+m%10))
		if sec != 0 {
			b = append(b, ':', byte('0'+sec/10), byte('0'+sec%10))
		}
	}
	return Datum{Kind: KInt, I: t.UnixMicro() - pgEpoch.UnixMicro(), S: string(b)}
}

// TimeOf is the instant a timestamptz datum holds, in UTC.
func TimeOf(d Datum) time.Time {
	return time.UnixMicro(d.I + pgEpoch.UnixMicro()).UTC()
}

// timestampLayouts are the ISO forms timestamptzIn reads, with and
// without a zone (a fraction of a second may follow the seconds).
var timestampLayouts = []struct {
	layout string
	zoned  bool
}{
	{"2006-01-02 15:04:05Z07:00", true}, {"2006-01-02 15:04:05Z07", true}, {"2006-01-02 15:04:05Z0700", true},
	{"2006-01-02 15:04:05", false},
	{"2006-01-02 15:04Z07:00", true}, {"2006-01-02 15:04Z07", true}, {"2006-01-02 15:04", false},
	{"2006-01-02", false},
}

// timestamptzIn reads text as a timestamp with time zone, one without a
// zone being in loc: ISO dates and times ("2026-11-24", "2026-11-24
// 12:05:20.5+01", a T between them, UTC or Z for +00) and "epoch".
func timestamptzIn(text string, loc *time.Location) (Datum, error) {
	in := strings.TrimSpace(text)
	if strings.EqualFold(in, "epoch") {
		return Timestamptz(time.Unix(0, 0), loc), nil
	}
	if len(in) > 10 && (in[10] == 'T' || in[10] == 't') {
		in = in[:10] + " " + in[11:]
	}
	for _, z := range []string{" UTC", " utc", " GMT", "Z", "z"} {
		if s, ok := strings.CutSuffix(in, z); ok && len(s) > 10 {
			in = s + "+00"
			break
		}
	}
	overflow := false
	for _, l := range timestampLayouts {
		var t time.Time
		var err error
		if l.zoned {
			t, err = time.Parse(l.layout, in)
		} else {
			t, err = time.ParseInLocation(l.layout, in, loc)
		}
		if err == nil {
			return Timestamptz(t, loc), nil
		}
		// The form matched and a field did not (month 13, February 30).
		overflow = overflow || strings.HasSuffix(err.Error(), "out of range")
	}
	if overflow {
		return Null, sqlerr.Errorf(sqlerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", text)
	}
	return Null, sqlerr.Errorf(sqlerr.InvalidDatetimeFormat, "invalid input syntax for type timestamp with time zone: \"%s\"", text)
}

// Interval is an interval of whole seconds less than a day, as a time
// zone's offset from UTC: its microseconds, and its text form
// ("-03:30:00").
func Interval(seconds int64) Datum {
	sign, a := "", seconds
	if a < 0 {
		sign, a = "-", -a
	}
	return Datum{Kind: KInt, I: seconds * 1e6, S: fmt.Sprintf("%s%02d:%02d:%02d", sign, a/3600, a/60%60, a%60)}
}

// isDateTime reports whether t is a date/time type (PostgreSQL's
// category D) other than timestamptz, or an interval: seqd has no values
// of those.
func isDateTime(t *Type) bool {
	return t.oid != OIDTimestamptz && (t.category == 'D' || t.category == 'T')
}

// locations caches the zones ZoneNamed resolved, by name.
var locations sync.Map

// ZoneNamed is the time zone a TimeZone setting names: an IANA name
// Go's time package knows, or a POSIX offset ("+05:30", "-3": hours west
// of Greenwich, as PostgreSQL reads it); ok is false for anything else.
func ZoneNamed(name string) (loc *time.Location, ok bool) {
	if l, ok := locations.Load(name); ok {
		return l.(*time.Location), true
	}
	if off, ok := posixOffset(name); ok {
		loc = time.FixedZone("", -off)
	} else if l, err := time.LoadLocation(name); err == nil && name != "" && !strings.EqualFold(name, "local") {
		loc = l
	} else {
		return nil, false
	}
	locations.Store(name, loc)
	return loc, true
}

// posixOffset reads [+-]HH[:MM[:SS]] as seconds (east positive, as
// written; PostgreSQL takes it as west of Greenwich).
func posixOffset(s string) (int, bool) {
	s = strings.TrimSpace(s)
	sign := 1
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-"):
		sign, s = -1, s[1:]
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 || s == "" {
		return 0, false
	}
	off := 0
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || i > 0 && (len(p) != 2 || n > 59) || i == 0 && n > 15 {
			return 0, false
		}
		off = off*60 + n
	}
	for range 3 - len(parts) {
		off *= 60
	}
	return sign * off, true
}

// ParseTimestamptz reads text as timestamptz input does (a time without
// a zone is in loc): the instant, or the input's error.
func ParseTimestamptz(text string, loc *time.Location) (time.Time, error) {
	d, err := timestamptzIn(text, loc)
	if err != nil {
		return time.Time{}, err
	}
	return TimeOf(d), nil
}
