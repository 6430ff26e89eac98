package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

// createToken makes a bearer token of the request's role: 201 and the
// token, shown this once. A request authenticated by a token may not
// make one (a token would outlive itself).
func (s *Server) createToken(q *request) (int, any, error) {
	if q.bearer {
		return 0, nil, newProblem(http.StatusForbidden, sqlerr.InsufficientPrivilege, "a bearer token cannot make tokens: authenticate with the role's password")
	}
	for k := range q.body {
		if k != "label" && k != "valid_days" {
			return 0, nil, badRequest(fmt.Sprintf("unknown field %q (want label, valid_days)", k))
		}
	}
	var label string // none: seqd_tokens' NULL
	if raw, ok := q.body["label"]; ok {
		if json.Unmarshal(raw, &label) != nil {
			return 0, nil, badRequest("label must be a string")
		}
		if err := apicore.ValidName(label); err != nil {
			return 0, nil, err
		}
	}
	days, err := q.integer("valid_days", 90)
	if err != nil {
		return 0, nil, err
	}
	if days < 1 || days > 3650 {
		return 0, nil, badRequest("valid_days must be between 1 and 3650")
	}
	token, err := q.CreateToken(label, days)
	if err != nil {
		return 0, nil, err
	}
	parts := strings.Split(token, ".")
	list, err := s.tokens(q, parts[2])
	if err != nil || len(list) != 1 {
		return 0, nil, fmt.Errorf("the token made is not in seqd_tokens: %v", err)
	}
	list[0]["token"] = token
	return http.StatusCreated, list[0], nil
}

// tokens lists the tokens the request's role may see (its own; every
// role's for a superuser), or the one of ID id.
func (s *Server) tokens(q *request, id string) ([]map[string]any, error) {
	list, err := q.Tokens(id)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, t := range list {
		out = append(out, tokenJSON(t))
	}
	return out, nil
}

// tokenJSON is a token as the API lists it: times in RFC 3339, UTC.
func tokenJSON(t executor.Token) map[string]any {
	m := map[string]any{"role": t.Role, "id": t.ID, "label": nil, "created": t.Created.Format(time.RFC3339Nano), "expires": t.Expires.Format(time.RFC3339Nano)}
	if t.Label != "" {
		m["label"] = t.Label
	}
	return m
}

// listTokens lists the role's tokens (a superuser's: every role's):
// never a secret.
func (s *Server) listTokens(q *request) (int, any, error) {
	list, err := s.tokens(q, "")
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"tokens": list}, nil
}

// revokeToken revokes the token of ID id: 204, or 404 when the role
// (a superuser: any role) holds none of that ID.
func (s *Server) revokeToken(q *request) (int, any, error) {
	id := q.http.PathValue("id")
	if err := apicore.ValidName(id); err != nil {
		return 0, nil, err
	}
	revoked, err := q.RevokeToken(id)
	if err != nil {
		return 0, nil, err
	}
	if !revoked {
		return 0, nil, newProblem(http.StatusNotFound, sqlerr.UndefinedObject, fmt.Sprintf("no token of ID %q", id))
	}
	return http.StatusNoContent, nil, nil
}
