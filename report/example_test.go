package report_test

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/report"
)

// Every JSON document sumac writes says what it is: the report recognises its kind by the
// fields only that kind has, or by a "document" field that names it.
func ExampleRecognise() {
	for _, doc := range []string{
		`[{"layer": "conv1", "pass": "forward", "base_ns": 9, "simd_ns": 1, "ratio": 0.11}]`,
		`{"document": "report", "index": "rep/index.html"}`,
		`{"hello": "world"}`,
	} {
		k, err := report.Recognise([]byte(doc))
		if err != nil {
			fmt.Println("error:", strings.SplitN(err.Error(), " (", 2)[0])
			continue
		}
		fmt.Println(k)
	}
	// Output:
	// layer-times
	// report
	// error: not a document sumac writes
}
