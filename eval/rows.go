package eval

// Column is one result column.
type Column struct {
	Name string
	Type *Type
	// TableOID and AttNum name the column's source, when it is a column
	// of a relation; zero otherwise.
	TableOID uint32
	AttNum   int16
	// ci: its strings are one where utf8mb4_general_ci finds them equal,
	// for DISTINCT and a set operation (seqd_mariadb_ci).
	ci bool
}

// Rows yields a result's rows one at a time: a long generate_series is
// never materialized. The returned slice is valid until the next call.
type Rows interface {
	Next() (row []Datum, ok bool, err error)
}

// SliceRows yields rows held in memory.
type SliceRows struct {
	Rows [][]Datum
	i    int
}

func (r *SliceRows) Next() ([]Datum, bool, error) {
	if r.i == len(r.Rows) {
		return nil, false, nil
	}
	r.i++
	return r.Rows[r.i-1], true, nil
}

// RowsOf yields rows.
func RowsOf(rows ...[]Datum) Rows { return &SliceRows{Rows: rows} }
