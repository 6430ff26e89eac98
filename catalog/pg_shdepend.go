package catalog

import (
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/eval"
)

// OIDs of the shared catalogs pg_shdepend refers to.
const (
	pgAuthidOID   = 1260
	pgDatabaseOID = 1262
)

// shdependRows are pg_shdepend's rows: what depends on a role that is
// not pinned (the bootstrap superuser and pg_database_owner are, as in
// PostgreSQL, and are not recorded): the sequences, schemas and database
// it owns ('o') and those granting it a privilege ('a').
func shdependRows(src Source) ([][]eval.Datum, error) {
	var out [][]eval.Datum
	add := func(db, class, obj uint32, a engine.ACL, ownerOID int64) {
		row := func(ref int64, kind string) []eval.Datum {
			return []eval.Datum{eval.Int(int64(db)), eval.Int(int64(class)), eval.Int(int64(obj)), eval.Int(0),
				eval.Int(pgAuthidOID), eval.Int(ref), eval.Text(kind)}
		}
		if ownerOID != SuperuserOID && ownerOID != DBOwnerOID {
			out = append(out, row(ownerOID, "o"))
		}
		for _, g := range a.Grantees() {
			if ref := src.RoleOID(g); g != engine.Public && ref != ownerOID && ref != SuperuserOID && a.Grants[g] != 0 {
				out = append(out, row(ref, "a"))
			}
		}
	}
	dba := src.DatabaseACL()
	add(0, pgDatabaseOID, DatabaseOID, dba, src.RoleOID(dba.Owner))
	schemas, err := src.SchemaACLs()
	if err != nil {
		return nil, err
	}
	for _, n := range schemas {
		add(DatabaseOID, PgNamespaceOID, n.OID, n.ACL, n.Owner)
	}
	seqs, err := src.SequenceACLs()
	if err != nil {
		return nil, err
	}
	for _, i := range seqs {
		add(DatabaseOID, PgClassOID, i.OID, i.ACL, src.RoleOID(src.Owner(i.ACL)))
	}
	return out, nil
}
