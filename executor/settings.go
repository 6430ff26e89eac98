package executor

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/sqlerr"
)

// settingDef is one configuration parameter seqd knows.
type settingDef struct {
	display string // the name as SHOW ALL and ParameterStatus spell it
	value   string // the default
	desc    string
	// fixed settings cannot be changed (SET answers 55P02); allowed, if
	// set, lists the only values SET accepts (compared case-insensitively).
	fixed   bool
	allowed []string
	// boolean settings take PostgreSQL's spellings of a boolean and show
	// on or off.
	boolean bool
	// duration settings take a number of milliseconds or a number with a
	// time unit, and show PostgreSQL's normalized form ("5s").
	duration bool
	// pg, for a PostgreSQL parameter seqd gives no meaning to
	// (pgsettings.go), checks and shows its values as PostgreSQL does.
	pg *pgSetting
}

var settingDefs = map[string]settingDef{}

// reportedSettings are announced at startup and whenever they change, as
// PostgreSQL 15 reports its GUC_REPORT parameters.
var reportedSettings = []string{"application_name", "client_encoding", "DateStyle", "default_transaction_read_only",
	"in_hot_standby", "integer_datetimes", "IntervalStyle", "is_superuser", "server_encoding", "server_version",
	"session_authorization", "standard_conforming_strings", "TimeZone"}

func init() {
	for _, d := range []settingDef{
		{display: "application_name", value: "", desc: "Sets the application name to be reported in statistics and logs."},
		{display: "track_activities", value: "on", desc: "Collects information about executing commands."},
		{display: "client_encoding", value: "UTF8", desc: "Sets the client's character set encoding.", allowed: []string{"UTF8", "UTF-8", "UNICODE"}},
		{display: "DateStyle", value: "ISO, MDY", desc: "Sets the display format for date and time values."},
		{display: "default_transaction_read_only", value: "off", desc: "Sets the default read-only status of new transactions.", boolean: true},
		{display: "default_transaction_isolation", value: "read committed", desc: "Sets the transaction isolation level of each new transaction."},
		{display: "default_transaction_deferrable", value: "off", desc: "Sets the default deferrable status of new transactions."},
		{display: "transaction_isolation", value: "read committed", desc: "Sets the current transaction's isolation level."},
		{display: "transaction_read_only", value: "off", desc: "Sets the current transaction's read-only status.", boolean: true},
		{display: "transaction_deferrable", value: "off", desc: "Whether to defer a read-only serializable transaction until it can be executed with no possible serialization failures."},
		{display: "in_hot_standby", value: "off", desc: "Shows whether hot standby is currently active.", fixed: true},
		{display: "integer_datetimes", value: "on", desc: "Shows whether datetimes are integer based.", fixed: true},
		{display: "IntervalStyle", value: "postgres", desc: "Sets the display format for interval values."},
		{display: "is_superuser", value: "on", desc: "Shows whether the current user is a superuser.", fixed: true},
		{display: "server_encoding", value: "UTF8", desc: "Shows the server (database) character set encoding.", fixed: true},
		{display: "server_version", value: ServerVersion, desc: "Shows the server version.", fixed: true},
		{display: "server_version_num", value: "150000", desc: "Shows the server version as an integer.", fixed: true},
		{display: "session_authorization", value: "", desc: "Sets the session user name."},
		{display: "role", value: "none", desc: "Sets the current role."},
		{display: "standard_conforming_strings", value: "on", desc: "Causes '...' strings to treat backslashes literally.", allowed: []string{"on", "true", "1", "yes"}},
		{display: "TimeZone", value: "UTC", desc: "Sets the time zone for displaying and interpreting time stamps."},
		{display: "search_path", value: `"$user", public`, desc: "Sets the schema search order for names that are not schema-qualified."},
		{display: "max_identifier_length", value: "63", desc: "Shows the maximum identifier length.", fixed: true},
		{display: "extra_float_digits", value: "1", desc: "Sets the number of digits displayed for floating-point values."},
		{display: "client_min_messages", value: "notice", desc: "Sets the message levels that are sent to the client."},
		{display: "lc_messages", value: "C.UTF-8", desc: "Sets the language in which messages are displayed."},
		{display: "lc_monetary", value: "C.UTF-8", desc: "Sets the locale for formatting monetary amounts."},
		{display: "lc_numeric", value: "C.UTF-8", desc: "Sets the locale for formatting numbers."},
		{display: "lc_time", value: "C.UTF-8", desc: "Sets the locale for formatting date and time values."},
		{display: "lc_collate", value: "C.UTF-8", desc: "Shows the collation order locale.", fixed: true},
		{display: "lc_ctype", value: "C.UTF-8", desc: "Shows the character classification and case conversion locale.", fixed: true},
		{display: "statement_timeout", value: "0", desc: "Sets the maximum allowed duration of any statement.", duration: true},
		{display: "lock_timeout", value: "0", desc: "Sets the maximum allowed duration of any wait for a lock.", duration: true},
		{display: "idle_in_transaction_session_timeout", value: "0", desc: "Sets the maximum allowed idle time between queries, when in a transaction.", duration: true},
		{display: "idle_session_timeout", value: "0", desc: "Sets the maximum allowed idle time between queries, when not in a transaction.", duration: true},
		{display: "bytea_output", value: "hex", desc: "Sets the output format for bytea."},
		{display: "synchronous_commit", value: "on", desc: "Sets the current transaction's synchronization level."},
		{display: "row_security", value: "on", desc: "Enable row security."},
		{display: "jit", value: "off", desc: "Allow JIT compilation."},
		{display: "max_connections", value: "10000", desc: "Sets the maximum number of concurrent connections.", fixed: true},
		{display: "escape_string_warning", value: "on", desc: "Warn about backslash escapes in ordinary string literals."},
		{display: "geqo", value: "on", desc: "Enables genetic query optimization."},
		{display: "work_mem", value: "4MB", desc: "Sets the maximum memory to be used for query workspaces."},
		{display: "timezone_abbreviations", value: "Default", desc: "Selects a file of time zone abbreviations."},
		{display: "password_encryption", value: "scram-sha-256", desc: "Chooses the algorithm for encrypting passwords."},
	} {
		settingDefs[strings.ToLower(d.display)] = d
	}
	addPGSettings()
}

// settings are a session's configuration parameters: what SET gave,
// over what the startup packet gave, over the defaults of settingDefs,
// with SET LOCAL values on top until the transaction ends. Only values
// that differ are held, so an idle session costs little.
type settings struct {
	user     string
	defaults map[string]string // the startup packet's: what RESET restores
	values   map[string]string
	local    map[string]string
}

func (s *settings) init(user string) { s.user = user }

// markDefaults makes the current values what RESET restores.
func (s *settings) markDefaults() {
	s.defaults, s.values = s.values, nil
}

func (s *settings) get(name string) string {
	v, _ := s.lookup(name)
	return v
}

// lookup finds a setting's value; false for a parameter that is neither
// known nor a custom (dotted) one that was set.
func (s *settings) lookup(name string) (string, bool) {
	name = strings.ToLower(name)
	for _, m := range []map[string]string{s.local, s.values, s.defaults} {
		if v, ok := m[name]; ok {
			return v, true
		}
	}
	if name == "session_authorization" {
		return s.user, true
	}
	d, ok := settingDefs[name]
	return d.value, ok
}

// set changes a parameter, checking that seqd can honour the value.
func (s *settings) set(name, value string, local bool) error {
	name = strings.ToLower(name)
	d, known := settingDefs[name]
	if !known && !strings.Contains(name, ".") {
		return sqlerr.Errorf(sqlerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	if d.fixed {
		return sqlerr.Errorf(sqlerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", name)
	}
	if d.pg != nil {
		v, err := d.pg.normalize(value)
		if err != nil {
			return err
		}
		value = v
	}
	if d.boolean {
		b, err := parseBool(value)
		if err != nil {
			return sqlerr.Errorf(sqlerr.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
		}
		value = "off"
		if b {
			value = "on"
		}
	}
	if d.duration {
		v, err := normalDuration(name, value)
		if err != nil {
			return err
		}
		value = v
	}
	if d.allowed != nil {
		ok := false
		for _, a := range d.allowed {
			ok = ok || strings.EqualFold(a, value) || name == "client_encoding" && cleanEncoding(a) == cleanEncoding(value)
		}
		if !ok {
			return sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd does not support %s = '%s'", d.display, value).
				WithHint("seqd supports %s = '%s' only", d.display, d.allowed[0])
		}
		if name == "client_encoding" {
			value = "UTF8"
		}
	}
	if name == "timezone" {
		if _, ok := eval.ZoneNamed(value); !ok {
			return sqlerr.Errorf(sqlerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", d.display, value)
		}
	}
	m := &s.values
	if local {
		m = &s.local
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[name] = value
	return nil
}

// CheckSetting reports whether SET name = value would be accepted, as a
// server default for every session must be.
func CheckSetting(name, value string) error {
	var s settings
	return s.set(name, value, false)
}

// normalDuration checks a time setting's value and writes it as
// PostgreSQL shows it: in the largest unit that divides it.
func normalDuration(name, value string) (string, error) {
	d, err := parseDuration(strings.TrimSpace(value), time.Millisecond)
	if err != nil {
		if strings.HasPrefix(strings.TrimSpace(value), "-") {
			return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "%s ms is outside the valid range for parameter \"%s\" (0 .. 2147483647)", strings.TrimSpace(value), name)
		}
		return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, value)
	}
	ms := d.Milliseconds()
	if ms > 2147483647 {
		return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "%d ms is outside the valid range for parameter \"%s\" (0 .. 2147483647)", ms, name)
	}
	for _, u := range []struct {
		ms   int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}} {
		if ms != 0 && ms%u.ms == 0 {
			return fmt.Sprintf("%d%s", ms/u.ms, u.name), nil
		}
	}
	if ms == 0 {
		return "0", nil
	}
	return fmt.Sprintf("%dms", ms), nil
}

func (s *settings) reset(name string) { delete(s.values, strings.ToLower(name)) }

func (s *settings) resetAll() { clear(s.values) }

// names lists every parameter: the known ones and custom ones set.
func (s *settings) names() []string {
	set := map[string]bool{}
	for k := range settingDefs {
		set[k] = true
	}
	for _, m := range []map[string]string{s.local, s.values, s.defaults} {
		for k := range m {
			set[k] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// snapshot is what SET changed, for ROLLBACK to restore.
// renameRole makes the settings that name role from (the session's
// authorization and role) name to.
func (s *settings) renameRole(from, to string) {
	if s.user == from {
		s.user = to
	}
	for _, m := range []map[string]string{s.local, s.values, s.defaults} {
		for _, k := range []string{"session_authorization", "role"} {
			if m[k] == from {
				m[k] = to
			}
		}
	}
}

func (s *settings) snapshot() map[string]string { return maps.Clone(s.values) }

// parseBool reads PostgreSQL's spellings of a boolean (parse_bool).
func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1", "t", "y":
		return true, nil
	case "off", "false", "no", "0", "f", "n", "of":
		return false, nil
	}
	return false, errors.New("not a boolean")
}

// settingValue is a setting as SHOW and current_setting() show it: the
// transaction's own state for transaction_read_only, else the stored
// value.
func (s *Session) settingValue(name string) (string, bool) {
	if strings.EqualFold(name, "is_superuser") {
		if s.isSuperuser(s.cfg.User) {
			return "on", true
		}
		return "off", true
	}
	if strings.EqualFold(name, "transaction_read_only") {
		if s.readOnly() {
			return "on", true
		}
		return "off", true
	}
	return s.settings.lookup(name)
}

// cleanEncoding normalizes an encoding name as PostgreSQL's
// clean_encoding_name does: letters and digits only, lower case, so that
// 'utf-8', "UTF8" and utf_8 are one encoding.
func cleanEncoding(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// settingDisplay is a setting's name as SHOW ALL and pg_settings spell it
// (DateStyle, not datestyle).
func settingDisplay(name string) string {
	if d := settingDefs[name]; d.display != "" {
		return d.display
	}
	return name
}

// displayName is how SHOW names a setting's column: PostgreSQL's name
// for it, in its case (TimeZone, DateStyle), whatever case was asked.
func displayName(name string) string { return settingDisplay(name) }

// changed notes a reportable setting's new value for the front end.
func (s *Session) changed(name string) {
	if strings.EqualFold(name, "session_authorization") || strings.EqualFold(name, "role") {
		s.syncUser()
	}
	for _, r := range reportedSettings {
		if strings.EqualFold(r, name) {
			v, _ := s.settingValue(r)
			s.reported = append(s.reported, ParamStatus{Name: r, Value: v})
		}
	}
}

// syncUser makes the session's current user what session_authorization
// now says (SET [LOCAL] SESSION AUTHORIZATION, RESET, a rollback or the
// end of a block restoring it): privileges, ownership of what it creates
// and current_user follow, and cached privileges and plans are dropped.
func (s *Session) syncUser() {
	cur := s.sessionUser()
	if r := s.settings.get("role"); r != "" && !strings.EqualFold(r, "none") {
		cur = r
	}
	if cur == s.cfg.User {
		return
	}
	s.cfg.User = cur
	s.privCache = privCache{}
	s.pathVersion++
	v, _ := s.settingValue("is_superuser")
	s.reported = append(s.reported, ParamStatus{Name: "is_superuser", Value: v})
}

// first is the first of two results.
func first[T any](v T, _ bool) T { return v }
