package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

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
	switch code {
	case "42P01", "3F000", "42704":
		return http.StatusNotFound
	case "42501":
		return http.StatusForbidden
	case "28000", "28P01":
		return http.StatusUnauthorized
	case "42P07", "42P06", "2200H", "55P03", "40P01", "40001", "55006", "2BP01":
		return http.StatusConflict
	case "54000":
		return http.StatusRequestEntityTooLarge
	case "53300":
		return http.StatusTooManyRequests
	case "53200":
		return http.StatusBadRequest // the statement asked for more than one may hold
	}
	switch {
	case apicore.Retryable(code): // a standby, a shutdown, a store unavailable, a statement cancelled
		return http.StatusServiceUnavailable
	case strings.HasPrefix(code, "22"), strings.HasPrefix(code, "42"), code == "0A000", code == "08P01":
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
