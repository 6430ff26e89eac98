package console

import (
	"net/http"
	"sort"
	"strconv"

	"github.com/seqd/seqd/engine"
)

// sequence describes one sequence the viewer holds a privilege on: its
// definition, grants and the chart of its position the console keeps
// while it is viewed. One it may not see is as one that does not exist.
func (c *Console) sequence(v *viewer, r *http.Request) (any, error) {
	q := r.URL.Query()
	for k := range q {
		if k != "schema" && k != "name" {
			return nil, badRequest("unknown parameter " + strconv.Quote(k) + " (want schema, name)")
		}
	}
	n, err := engine.NewName(q.Get("schema"), q.Get("name"))
	if err != nil {
		return nil, badRequest("schema and name must both be given, the schema without a dot")
	}
	eng := c.cfg.Engine()
	info, err := eng.Info(n)
	var acl engine.ACL
	if err == nil {
		acl, err = eng.ACL(n)
	}
	if err != nil || v.privileges(acl) == 0 {
		return nil, &httpError{http.StatusNotFound, "no sequence " + strconv.Quote(n.String()) + " you hold a privilege on"}
	}
	o := info.Options
	def := map[string]any{"start": strconv.FormatInt(o.Start, 10), "min": strconv.FormatInt(o.Min, 10), "max": strconv.FormatInt(o.Max, 10),
		"window": info.Window, "unlogged": info.Unlogged, "epoch": info.Epoch,
		"burned": map[string]int64{"crash": info.Burned.Crash, "failover": info.Burned.Failover, "release": info.Burned.Release}}
	return map[string]any{"sequence": c.rowOf(info), "definition": def, "privileges": grants(acl),
		"samples": c.rates.view(n, info.ID), "sample_seconds": c.cfg.SampleEvery.Seconds(), "noorder_block": c.block(info)}, nil
}

// nodeBlock is a NOORDER sequence's block on this node.
type nodeBlock struct {
	Node      string `json:"node"`
	Last      string `json:"last"`
	Called    bool   `json:"called"`
	Remaining int64  `json:"remaining"`
	Ahead     int64  `json:"ahead"`
}

// block is this node's block of info's sequence, nil if it holds none
// (or is not NOORDER, or not in cluster mode).
func (c *Console) block(info engine.Info) *nodeBlock {
	if !info.Options.NoOrder || c.cfg.NoOrderBlock == nil {
		return nil
	}
	b, ok := c.cfg.NoOrderBlock(info.ID)
	if !ok {
		return nil
	}
	return &nodeBlock{Node: c.cfg.Node, Last: strconv.FormatInt(b.Last, 10), Called: b.Called, Remaining: b.Remaining, Ahead: b.Ahead}
}

// grant is one role's privileges on a sequence, as aclitem letters.
type grant struct {
	Role       string `json:"role"` // "PUBLIC" for every role
	Privileges string `json:"privileges"`
}

// grants lists the ACL's owner and grantees, owner first.
func grants(acl engine.ACL) []grant {
	out := []grant{{Role: acl.Owner, Privileges: letters(acl.Privileges(acl.Owner, false) & engine.PrivAll)}}
	var roles []string
	for r := range acl.Grants {
		if r != acl.Owner {
			roles = append(roles, r)
		}
	}
	sort.Strings(roles)
	for _, r := range roles {
		name := r
		if r == engine.Public {
			name = "PUBLIC"
		}
		out = append(out, grant{Role: name, Privileges: letters(acl.Grants[r])})
	}
	return out
}

// letters are p as PostgreSQL's aclitem writes a sequence's: r SELECT,
// w UPDATE, U USAGE.
func letters(p engine.Privs) string {
	s := ""
	for _, l := range []struct {
		p engine.Privs
		c string
	}{{engine.PrivSelect, "r"}, {engine.PrivUpdate, "w"}, {engine.PrivUsage, "U"}} {
		if p&l.p != 0 {
			s += l.c
		}
	}
	return s
}
