package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/seqd/seqd/apicore"
)

// problem is an error as the API answers it: an HTTP status, the
// SQLSTATE, the message, and whether to send Retry-After.
type problem struct {
	status int
	code   string
	msg    string
	retry  bool
}

func (p *problem) Error() string { return p.msg }

func badRequest(msg string) error { return apicore.BadRequest(msg) }

// statusOf is the HTTP status of an error of SQLSTATE code: what a
// caller can act on.
func statusOf(code string) (status int, retry bool) {
	switch code {
	case "42P01", "3F000", "42704":
		return http.StatusNotFound, false
	case "42501":
		return http.StatusForbidden, false
	case "28000", "28P01":
		return http.StatusUnauthorized, false
	case "42P07", "42P06", "2200H", "55P03", "40P01", "40001", "55006", "2BP01":
		return http.StatusConflict, false
	case "54000":
		return http.StatusRequestEntityTooLarge, false
	case "53300":
		return http.StatusTooManyRequests, true
	case "25006", "57P01", "57P03", "58030", "53100", "57014":
		return http.StatusServiceUnavailable, true
	case "53200":
		return http.StatusBadRequest, false // the statement asked for more than one may hold
	}
	switch {
	case strings.HasPrefix(code, "22"), strings.HasPrefix(code, "42"), code == "0A000", code == "08P01":
		return http.StatusBadRequest, false
	case strings.HasPrefix(code, "XX"):
		return http.StatusInternalServerError, false
	}
	return http.StatusInternalServerError, false
}

// problemOf is err as a problem, with the SQLSTATE the SQL front ends
// give for it.
func problemOf(err error) *problem {
	var p *problem
	if !errors.As(err, &p) {
		e := apicore.ErrorOf(err)
		status, retry := statusOf(e.Code)
		p = &problem{status: status, code: e.Code, msg: e.Msg, retry: retry}
	}
	return p
}

// fail writes err as a problem.
func (s *Server) fail(w http.ResponseWriter, err error) {
	p := problemOf(err)
	if p.retry {
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
