package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/seqd/seqd/apicore"
)

// problem is an error as the API answers it: an HTTP status, the
// SQLSTATE and the message (with Retry-After where the SQLSTATE is one
// sending again may cure: apicore.Retryable).
type problem struct {
	status int
	code   string
	msg    string
}

func (p *problem) Error() string { return p.msg }

func badRequest(msg string) error { return apicore.BadRequest(msg) }

// statusOf is the HTTP status of an error of SQLSTATE code: what a
// caller can act on.
func statusOf(code string) int {
	switch apicore.ClassOf(code) {
	case apicore.NotFound:
		return http.StatusNotFound
	case apicore.Forbidden:
		return http.StatusForbidden
	case apicore.Unauthenticated:
		return http.StatusUnauthorized
	case apicore.Exists, apicore.Contended, apicore.Precondition:
		return http.StatusConflict
	case apicore.TooLarge:
		return http.StatusRequestEntityTooLarge
	case apicore.TooMany:
		return http.StatusTooManyRequests
	case apicore.OutOfMemory:
		return http.StatusBadRequest // the statement asked for more than one may hold
	case apicore.Canceled, apicore.Unavailable: // a statement cancelled, a standby, a shutdown, a store unavailable
		return http.StatusServiceUnavailable
	case apicore.Invalid:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// problemOf is err as a problem, with the SQLSTATE the SQL front ends
// give for it.
func problemOf(err error) *problem {
	var p *problem
	if !errors.As(err, &p) {
		e := apicore.ErrorOf(err)
		p = &problem{status: statusOf(e.Code), code: e.Code, msg: e.Msg}
	}
	return p
}

// fail writes err as a problem.
func (s *Server) fail(w http.ResponseWriter, err error) {
	p := problemOf(err)
	if apicore.Retryable(p.code) {
		w.Header().Set("Retry-After", "1")
	}
	if p.status >= 500 && p.code != "25006" && p.code != "57P01" {
		s.log.Printf("http api: %s %s", p.code, p.msg)
	}
	writeProblem(w, p.status, p.code, p.msg)
}

// writeProblem writes an RFC 9457 problem: its type names the SQLSTATE's
// class, its title the HTTP status, its detail the message.
func writeProblem(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": status,
		"detail": msg, "sqlstate": code})
}
