package catalog

import (
	"github.com/pingcap/tidb/pkg/parser"

	"github.com/seqd/seqd/eval"
)

// keywordRows are MySQL's information_schema.KEYWORDS' rows: the words
// of the parser that reads seqd's MySQL statements, TiDB's, as it lists
// them (parser.Keywords: its reserved and unreserved words and TiDB's
// own), in its order. MariaDB 10.11 lists its own parser's, operators
// among them; the words both list are most of each's.
var keywordRows = func() [][]eval.Datum {
	out := make([][]eval.Datum, len(parser.Keywords))
	for i, k := range parser.Keywords {
		out[i] = []eval.Datum{eval.Text(k.Word)}
	}
	return out
}()

// keywordViews are KEYWORDS.
func keywordViews() []*View {
	return []*View{{Schema: "information_schema", Name: "keywords", Kind: 'v', Columns: mariadbColumns("keywords"),
		Rows: func(Source) ([][]eval.Datum, error) { return keywordRows, nil }}}
}
