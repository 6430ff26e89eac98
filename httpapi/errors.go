package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/sqlerr"
)

// problem is an error as the API answers it: an HTTP status, the error's
// kind, its SQLSTATE and the message (with Retry-After where the kind is
// one sending again may cure, sqlerr.Retryable, or the call will succeed
// later: apicore.Error's Later).
type problem struct {
	status int
	kind   sqlerr.Kind
	code   string
	msg    string
	later  bool // apicore.Error's Later
}

func (p *problem) Error() string { return p.msg }

// newProblem is a problem of kind answered with status.
func newProblem(status int, kind sqlerr.Kind, msg string) *problem {
	return &problem{status: status, kind: kind, code: sqlerr.SQLState(kind), msg: msg}
}

func badRequest(msg string) error { return apicore.BadRequest(msg) }

// statusOf is the HTTP status of an error of kind: what a caller can act
// on.
func statusOf(kind sqlerr.Kind) int {
	switch sqlerr.ClassOf(kind) {
	case sqlerr.ClassNotFound:
		return http.StatusNotFound
	case sqlerr.ClassForbidden:
		return http.StatusForbidden
	case sqlerr.ClassUnauthenticated:
		return http.StatusUnauthorized
	case sqlerr.ClassExists, sqlerr.ClassContended, sqlerr.ClassPrecondition:
		return http.StatusConflict
	case sqlerr.ClassTooLarge:
		return http.StatusRequestEntityTooLarge
	case sqlerr.ClassTooMany:
		return http.StatusTooManyRequests
	case sqlerr.ClassOutOfMemory:
		return http.StatusBadRequest // the statement asked for more than one may hold
	case sqlerr.ClassCanceled, sqlerr.ClassUnavailable: // a statement cancelled, a standby, a shutdown, a store unavailable
		return http.StatusServiceUnavailable
	case sqlerr.ClassInvalid:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// problemOf is err as a problem, of the kind the SQL front ends give it.
func problemOf(err error) *problem {
	var p *problem
	if !errors.As(err, &p) {
		e := apicore.ErrorOf(err)
		p = &problem{status: statusOf(e.Kind), kind: e.Kind, code: e.Code, msg: e.Msg, later: e.Later}
	}
	return p
}

// fail writes err as a problem.
func (s *Server) fail(w http.ResponseWriter, err error) {
	p := problemOf(err)
	if sqlerr.Retryable(p.kind) || p.later {
		w.Header().Set("Retry-After", "1")
	}
	if p.status >= 500 && p.kind != sqlerr.ReadOnlyTransaction && p.kind != sqlerr.AdminShutdown {
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
