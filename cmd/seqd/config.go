package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"sort"
	"strings"
)

// A configuration file (-config) holds the flags' settings, one per line
// in postgresql.conf's syntax: "name = value" (a flag's name without its
// dash; the value may be in single quotes), '#' starting a comment. A flag
// given on the command line wins over the file, at start and at reload.
// SIGHUP reads the file again and applies what may change while seqd
// runs (reloadable); any other change is logged as PostgreSQL logs it and
// waits for a restart. A setting removed from the file keeps its value.

// reloadable are the settings a SIGHUP applies from the file.
var reloadable = map[string]bool{"auth": true, "log-level": true}

// readConfig parses a configuration file.
func readConfig(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 && !strings.Contains(text[:i], "'") {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		name, value, ok := strings.Cut(text, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, fmt.Errorf("syntax error in file \"%s\" line %d, near \"%s\"", path, line, text)
		}
		if len(value) >= 2 && value[0] == '\'' && value[len(value)-1] == '\'' {
			value = strings.ReplaceAll(value[1:len(value)-1], "''", "'")
		}
		if flag.Lookup(name) == nil || name == "config" {
			return nil, fmt.Errorf("unrecognized configuration parameter \"%s\" in file \"%s\" line %d", name, path, line)
		}
		out[name] = value
	}
	return out, sc.Err()
}

// config is the file's settings in force and how to apply a reload.
type config struct {
	path    string
	cmdline map[string]bool   // flags given on the command line
	applied map[string]string // the file's values in force
	level   *slog.LevelVar
}

// loadConfig reads path at start and sets every flag the command line
// did not give.
func loadConfig(path string, level *slog.LevelVar) (*config, error) {
	c := &config{path: path, cmdline: map[string]bool{}, applied: map[string]string{}, level: level}
	flag.Visit(func(f *flag.Flag) { c.cmdline[f.Name] = true })
	vals, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	for name, v := range vals {
		if c.cmdline[name] {
			continue
		}
		if err := flag.Set(name, v); err != nil {
			return nil, badValue{fmt.Errorf("invalid value for parameter \"%s\": \"%s\": %v", name, v, err)}
		}
		c.applied[name] = v
	}
	return c, nil
}

// badValue is a value of the file that its flag does not parse: seqd
// exits with status 2, as the flag package does for the command line's.
type badValue struct{ error }

func (e badValue) Unwrap() error { return e.error }

// reloader is what a reload changes in the running server.
type reloader interface {
	SetAuth(ctx context.Context, method string) error
}

// reload reads the file again (SIGHUP) and applies the reloadable
// settings that changed; it logs every change, applied or not.
func (c *config) reload(ctx context.Context, s reloader) {
	vals, err := readConfig(c.path)
	if err != nil {
		log.Printf("SIGHUP: configuration file not applied: %v", err)
		return
	}
	names := make([]string, 0, len(vals))
	for n := range vals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		v := vals[name]
		if c.cmdline[name] || c.applied[name] == v {
			continue
		}
		if !reloadable[name] {
			log.Printf("parameter \"%s\" cannot be changed without restarting the server", name)
			continue
		}
		var err error
		switch name {
		case "log-level":
			var l slog.Level
			if err = l.UnmarshalText([]byte(v)); err == nil {
				c.level.Set(l)
			}
		case "auth":
			err = s.SetAuth(ctx, v)
		}
		if err != nil {
			log.Printf("SIGHUP: parameter \"%s\" not changed to \"%s\": %v", name, v, err)
			continue
		}
		c.applied[name] = v
		log.Printf("parameter \"%s\" changed to \"%s\"", name, v)
	}
}
