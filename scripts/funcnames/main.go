// Command funcnames prints the names of the functions seqd's evaluator
// calls, one per line, for scripts/gen-pgcatalog.
package main

import (
	"fmt"

	"github.com/seqd/seqd/eval"
	_ "github.com/seqd/seqd/executor" // its functions register with eval
)

func main() {
	for _, n := range eval.FunctionNames() {
		fmt.Println(n)
	}
}
