package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/seqd/seqd/seqmath"
	"github.com/seqd/seqd/sqlerr"
)

// SeqdHTTPOptions configure a source over seqd's HTTP API. The zero value
// means the defaults.
type SeqdHTTPOptions struct {
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// User and Password are HTTP Basic's: a role that may log in (none
	// where the API runs under trust).
	User, Password string
	// Token, when set, is a bearer token of the role (seqd_create_token,
	// POST /v1/tokens), sent instead of User and Password.
	Token string
	// Schema holds the sequences; "" means public.
	Schema string
	// Cache and Retry are as SeqdOptions' (the same defaults): what
	// Create gives new sequences, and how often a request that failed
	// with ErrUnavailable (a 503 of a standby or a shutdown, a 429, the
	// server out of reach) is sent again.
	Cache int64
	Retry Retry
}

// SeqdHTTP is a Source over seqd's HTTP/JSON API (docs/http.md), for
// processes that hold no database connection: a Reserve is one request
// (nextval when n is 1, reserve otherwise), a Release one release. Safe
// for concurrent use.
type SeqdHTTP struct {
	base string
	c    *http.Client
	o    SeqdHTTPOptions
}

// NewSeqdHTTP is a source over the API at base ("http://host:8080").
func NewSeqdHTTP(base string, o SeqdHTTPOptions) *SeqdHTTP {
	c := o.Client
	if c == nil {
		c = http.DefaultClient
	}
	if o.Schema == "" {
		o.Schema = "public"
	}
	o.Retry = o.Retry.failover()
	return &SeqdHTTP{base: base, c: c, o: o}
}

// apiError is a problem the API answered: its status and SQLSTATE, which
// errors.Is classifies as the SQL sources' errors are.
type apiError struct {
	Status   int    `json:"status"`
	Code     string `json:"sqlstate"`
	Detail   string `json:"detail"`
	response string
}

func (e *apiError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.response)
	}
	return fmt.Sprintf("%s (SQLSTATE %s, HTTP %d)", e.Detail, e.Code, e.Status)
}

// SQLState is the SQLSTATE the API gave, as a PostgreSQL driver's error
// has it.
func (e *apiError) SQLState() string { return e.Code }

// call sends one request about name, retried while it fails with
// ErrUnavailable, and decodes its answer into out.
func (s *SeqdHTTP) call(ctx context.Context, op, method, name, action string, body, out any) error {
	u := s.base + "/v1/sequences/" + url.PathEscape(s.o.Schema) + "/" + url.PathEscape(name) + action
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	err := s.o.Retry.doWhile(ctx, func() error {
		req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(payload))
		if err != nil {
			return err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		switch {
		case s.o.Token != "":
			req.Header.Set("Authorization", "Bearer "+s.o.Token)
		case s.o.User != "":
			req.SetBasicAuth(s.o.User, s.o.Password)
		}
		resp, err := s.c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return err
		}
		if resp.StatusCode >= 300 {
			e := &apiError{Status: resp.StatusCode, response: string(b)}
			if json.Unmarshal(b, e) != nil || e.Code == "" {
				e.Code = "08006" // an answer that is not the API's: the server is out of reach
			}
			if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
				e.Code = unavailableCode(e.Code)
			}
			return e
		}
		if out == nil || len(b) == 0 {
			return nil
		}
		return json.Unmarshal(b, out)
	}, func(err error) bool { return kindOf(err) == ErrUnavailable })
	if err != nil {
		return wrap(kindOf(err), op, name, err)
	}
	return nil
}

// unavailableCode is the SQLSTATE of a 503 or 429, which is always worth
// sending again: the API's own when it says so, else 57P03
// (cannot_connect_now).
func unavailableCode(code string) string {
	if sqlerr.Retryable(sqlerr.KindOfCode(code)) {
		return code
	}
	return sqlerr.SQLState(sqlerr.CannotConnectNow)
}

// Create makes the sequence unless it exists.
func (s *SeqdHTTP) Create(ctx context.Context, name string, start int64) error {
	opts := map[string]string{"start": strconv.FormatInt(start, 10)}
	if s.o.Cache > 1 {
		opts["cache"] = strconv.FormatInt(s.o.Cache, 10)
	}
	err := s.call(ctx, "create", http.MethodPut, name, "", opts, nil)
	var e *apiError
	if errors.As(err, &e) && e.Code == "42P07" {
		return nil // it exists: left as it is
	}
	return err
}

// Reserve takes up to n consecutive values, as Seqd's.
func (s *SeqdHTTP) Reserve(ctx context.Context, name string, n int64) (Range, error) {
	if n < 1 {
		return Range{}, fmt.Errorf("%w: reserve %d values of %q", ErrInvalid, n, name)
	}
	if n == 1 {
		var out struct{ Values []string }
		if err := s.call(ctx, "reserve", http.MethodPost, name, "/nextval", nil, &out); err != nil {
			return Range{}, err
		}
		if len(out.Values) != 1 {
			return Range{}, wrap(nil, "reserve", name, fmt.Errorf("nextval answered %d values", len(out.Values)))
		}
		v, err := strconv.ParseInt(out.Values[0], 10, 64)
		if err != nil {
			return Range{}, wrap(nil, "reserve", name, err)
		}
		return Range{First: v, Last: v, Step: 1}, nil
	}
	var out struct {
		First, Last, Increment string
		Shape                  *string
	}
	if err := s.call(ctx, "reserve", http.MethodPost, name, "/reserve", map[string]string{"count": strconv.FormatInt(n, 10)}, &out); err != nil {
		return Range{}, err
	}
	var r Range
	var errs [3]error
	r.First, errs[0] = strconv.ParseInt(out.First, 10, 64)
	r.Last, errs[1] = strconv.ParseInt(out.Last, 10, 64)
	r.Step, errs[2] = strconv.ParseInt(out.Increment, 10, 64)
	for _, err := range errs {
		if err != nil {
			return Range{}, wrap(nil, "reserve", name, err)
		}
	}
	if out.Shape != nil {
		sh, err := seqmath.ParseShape(*out.Shape)
		if err != nil {
			return Range{}, wrap(nil, "reserve", name, err)
		}
		r.Shape = sh
	}
	return r, nil
}

// Release gives r back with the API's release, as Seqd's.
func (s *SeqdHTTP) Release(ctx context.Context, name string, r Range) (bool, error) {
	var out struct{ Released bool }
	body := map[string]string{"first": strconv.FormatInt(r.First, 10), "last": strconv.FormatInt(r.Last, 10)}
	if err := s.call(ctx, "release", http.MethodPost, name, "/release", body, &out); err != nil {
		return false, err
	}
	return out.Released, nil
}
