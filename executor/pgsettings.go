package executor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/seqd/seqd/sqlerr"
)

// PostgreSQL 15's parameters (pgsettings_table.go, generated from its
// pg_settings): every one is known, so that SET, SHOW, RESET, set_config
// and current_setting take what tools send (pg_dump's first statement is
// SET synchronize_seqscans TO off). Those seqd gives a meaning to are
// defined in settings.go; the others are accepted and checked as
// PostgreSQL checks them (type, range, allowed values, when they may be
// set), shown as PostgreSQL shows them, and change nothing, which their
// pg_settings description says.

// pgSetting is one of PostgreSQL 15's parameters, as pg_settings lists it.
type pgSetting struct {
	name, vartype, context, unit, boot, min, max string
	enumvals                                     []string
	desc                                         string
}

// noEffect ends the description of a parameter that changes nothing in
// seqd.
const noEffect = " (seqd: accepted; changes nothing here)"

// pgSettingByName finds PostgreSQL's account of a parameter by its
// lower-case name, for pg_settings.
var pgSettingByName = map[string]*pgSetting{}

// addPGSettings adds the parameters settings.go does not define, after
// it has (from its init: the order of package files' inits is theirs).
func addPGSettings() {
	for i := range pgSettings {
		p := &pgSettings[i]
		key := strings.ToLower(p.name)
		pgSettingByName[key] = p
		if d, own := settingDefs[key]; own {
			// seqd's own definition decides; one that checks nothing of
			// its own takes PostgreSQL's checks and SHOW form (not the
			// session's identity, which members.go checks as PostgreSQL
			// does: by who logged in).
			if !d.fixed && !d.boolean && !d.duration && d.allowed == nil && key != "session_authorization" && key != "role" {
				d.pg = p
				settingDefs[key] = d
			}
			continue
		}
		v, err := p.normalize(p.boot)
		if err != nil {
			v = p.boot
		}
		settingDefs[key] = settingDef{display: p.name, value: v, desc: p.desc + noEffect, pg: p}
	}
}

// checkContext refuses what PostgreSQL refuses by the parameter's
// context: those fixed at build or server start, those read from the
// configuration file, those set only at connection start (startup: now),
// and those for superusers only.
func (p *pgSetting) checkContext(startup, superuser bool) error {
	switch p.context {
	case "internal":
		return sqlerr.Errorf(sqlerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed", p.name)
	case "postmaster":
		return sqlerr.Errorf(sqlerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed without restarting the server", p.name)
	case "sighup":
		return sqlerr.Errorf(sqlerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be changed now", p.name)
	case "backend", "superuser-backend":
		if !startup {
			return sqlerr.Errorf(sqlerr.CantChangeRuntimeParam, "parameter \"%s\" cannot be set after connection start", p.name)
		}
	}
	if (p.context == "superuser" || p.context == "superuser-backend") && !superuser {
		return sqlerr.Errorf(sqlerr.InsufficientPrivilege, "permission denied to set parameter \"%s\"", p.name)
	}
	return nil
}

// normalize checks value as PostgreSQL's parse_and_validate_value does
// and returns it as SHOW then shows it.
func (p *pgSetting) normalize(value string) (string, error) {
	invalid := func() *sqlerr.Error {
		return sqlerr.Errorf(sqlerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", p.name, value)
	}
	switch p.vartype {
	case "bool":
		b, err := parseBool(value)
		if err != nil {
			return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", p.name)
		}
		if b {
			return "on", nil
		}
		return "off", nil
	case "enum":
		for _, e := range p.enumvals {
			if strings.EqualFold(e, strings.TrimSpace(value)) {
				return e, nil
			}
		}
		return "", invalid().WithHint("Available values: %s.", strings.Join(p.enumvals, ", "))
	case "integer":
		n, hint, ok := p.parseInt(value)
		if !ok {
			if hint != "" {
				return "", invalid().WithHint("%s", hint)
			}
			return "", invalid()
		}
		lo, _ := strconv.ParseInt(p.min, 10, 64)
		hi, _ := strconv.ParseInt(p.max, 10, 64)
		if n < lo || n > hi {
			return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "%d%s is outside the valid range for parameter \"%s\" (%d .. %d)", n, unitSuffix(p.unit), p.name, lo, hi)
		}
		return p.showInt(n), nil
	case "real":
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || math.IsNaN(f) {
			return "", invalid()
		}
		lo, _ := strconv.ParseFloat(p.min, 64)
		hi, _ := strconv.ParseFloat(p.max, 64)
		if f < lo || f > hi {
			return "", sqlerr.Errorf(sqlerr.InvalidParameterValue, "%s is outside the valid range for parameter \"%s\" (%s .. %s)", showReal(f), p.name, showReal(lo), showReal(hi))
		}
		return showReal(f), nil
	}
	return value, nil
}

// showReal is C's %g, as PostgreSQL shows a real parameter.
func showReal(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

func unitSuffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " " + unit
}

// The units PostgreSQL's integer parameters take, in their base: bytes
// for memory, milliseconds for time.
var (
	memoryUnits = []struct {
		name string
		n    int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}
	timeUnits = []struct {
		name string
		n    int64
	}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}}
	// microseconds, which PostgreSQL accepts in input only
	microseconds = 0.001
)

// unitSize is the parameter's unit in the base of its kind, and whether
// it is a memory unit.
func unitSize(unit string) (int64, bool, bool) {
	switch unit {
	case "B":
		return 1, true, true
	case "kB":
		return 1 << 10, true, true
	case "8kB":
		return 8 << 10, true, true
	case "MB":
		return 1 << 20, true, true
	case "ms":
		return 1, false, true
	case "s":
		return 1000, false, true
	case "min":
		return 60000, false, true
	}
	return 0, false, false
}

// parseInt reads an integer parameter's value as PostgreSQL's parse_int
// does: a number (a fraction is rounded) in the parameter's unit, or with
// a unit of its kind (8MB, 1.5GB, 5min, 250us); hint says which units
// when the unit was wrong.
func (p *pgSetting) parseInt(value string) (n int64, hint string, ok bool) {
	v := strings.TrimSpace(value)
	i := 0
	for i < len(v) && strings.IndexByte("+-0123456789.eE", v[i]) >= 0 {
		if (v[i] == 'e' || v[i] == 'E') && (i+1 >= len(v) || strings.IndexByte("+-0123456789", v[i+1]) < 0) {
			break // "5min"'s m is a unit, not an exponent
		}
		i++
	}
	f, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, "", false
	}
	if suffix := strings.TrimSpace(v[i:]); suffix != "" {
		size, memory, ok := unitSize(p.unit)
		if !ok {
			return 0, "", false
		}
		factor := 0.0
		if memory {
			for _, u := range memoryUnits {
				if u.name == suffix {
					factor = float64(u.n)
				}
			}
			hint = `Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`
		} else {
			for _, u := range timeUnits {
				if u.name == suffix {
					factor = float64(u.n)
				}
			}
			if suffix == "us" {
				factor = microseconds
			}
			hint = `Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`
		}
		if factor == 0 {
			return 0, hint, false
		}
		f = f * factor / float64(size)
	}
	f = math.RoundToEven(f)
	if f > math.MaxInt32 || f < math.MinInt32 {
		return 0, "Value exceeds integer range.", false
	}
	return int64(f), "", true
}

// showInt is an integer parameter's value as SHOW gives it: in the
// largest unit of its kind that divides it (PostgreSQL's
// convert_int_from_base_unit), or bare without a unit, or when -1 or 0.
func (p *pgSetting) showInt(n int64) string {
	size, memory, ok := unitSize(p.unit)
	if !ok || n <= 0 {
		return strconv.FormatInt(n, 10)
	}
	base := n * size
	units := timeUnits
	if memory {
		units = memoryUnits
	}
	for _, u := range units {
		if base%u.n == 0 {
			return fmt.Sprintf("%d%s", base/u.n, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

// baseUnits is an integer parameter's value (as SHOW gives it) in its
// base unit, as pg_settings.setting gives it (work_mem's 4MB is 4096);
// any other value as it is.
func (p *pgSetting) baseUnits(v string) string {
	if p.vartype != "integer" || p.unit == "" {
		return v
	}
	if n, _, ok := p.parseInt(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return v
}
