package executor

import (
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

const (
	pgAuthidOID   = 1260
	pgDatabaseOID = 1262
)

// shdependRows are pg_shdepend's rows: what depends on a role that is
// not pinned (the bootstrap superuser and pg_database_owner are, as in
// PostgreSQL, and are not recorded): the sequences, schemas and database
// it owns ('o') and those granting it a privilege ('a').
func (s *Session) shdependRows() ([][]eval.Datum, error) {
	var out [][]eval.Datum
	add := func(db, class, obj uint32, a engine.ACL, ownerOID int64) {
		row := func(ref int64, kind string) []eval.Datum {
			return []eval.Datum{eval.Int(int64(db)), eval.Int(int64(class)), eval.Int(int64(obj)), eval.Int(0),
				eval.Int(pgAuthidOID), eval.Int(ref), eval.Text(kind)}
		}
		if ownerOID != superuserOID && ownerOID != dbOwnerOID {
			out = append(out, row(ownerOID, "o"))
		}
		for _, g := range a.Grantees() {
			if ref := s.ownerOID(g); g != engine.Public && ref != ownerOID && ref != superuserOID && a.Grants[g] != 0 {
				out = append(out, row(ref, "a"))
			}
		}
	}
	dba := s.cat().DatabaseACL()
	add(0, pgDatabaseOID, seqdDatabaseOID, dba, s.ownerOID(dba.Owner))
	for _, n := range s.cat().Schemas() {
		a, err := s.cat().SchemaACL(n)
		if err != nil {
			return nil, err
		}
		add(seqdDatabaseOID, pgNamespaceOID, s.oids().forSchema(n), a, s.schemaOwnerOID(n))
	}
	// Only sequences owned by another role than the bootstrap superuser,
	// or with grants, have rows.
	boot := s.bootstrapUser()
	seqs, err := s.sequencesWhere(func(a engine.ACL, _ string) bool { return a.Owner != "" && a.Owner != boot || len(a.Grants) > 0 })
	if err != nil {
		return nil, err
	}
	for _, i := range seqs {
		a, err := s.engFor(i.Name).ACL(i.Name)
		if err != nil {
			return nil, err
		}
		add(seqdDatabaseOID, pgClassOID, i.OID, a, s.ownerOID(s.ownerName(a)))
	}
	return out, nil
}
