// Command losscmp checks that several runs of `sumac train mnist --json` give the same
// losses within seed 003's bound, |a - b| <= 1e-6 + 1e-5 |a|, a being the first file's
// loss (the reference) and b each other file's, epoch by epoch.
//
//	losscmp ref.json other.json...
//
// It prints one line per file (its algorithm, the largest deviation from the reference and
// that deviation over the bound) and exits 1 if any loss is outside the bound, 2 on bad
// input. .ci/arm64-train uses it to compare arm64 (under emulation) with amd64.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
)

type run struct {
	Algorithm string    `json:"algorithm"`
	Losses    []float64 `json:"losses"`
}

func load(path string) (run, error) {
	var r run
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %v", path, err)
	}
	if len(r.Losses) == 0 {
		return r, fmt.Errorf("%s: no losses", path)
	}
	return r, nil
}

// compare reports the largest |a-b| and the largest |a-b| / (1e-6 + 1e-5|a|) over the
// epochs (the bound is met while the second is at most 1).
func compare(ref, r run) (maxDiff, maxRatio float64, err error) {
	if len(ref.Losses) != len(r.Losses) {
		return 0, 0, fmt.Errorf("%d epochs against the reference's %d", len(r.Losses), len(ref.Losses))
	}
	for i, a := range ref.Losses {
		d := math.Abs(a - r.Losses[i])
		if math.IsNaN(d) {
			return 0, 0, fmt.Errorf("epoch %d: loss %v against %v", i+1, r.Losses[i], a)
		}
		maxDiff = max(maxDiff, d)
		maxRatio = max(maxRatio, d/(1e-6+1e-5*math.Abs(a)))
	}
	return maxDiff, maxRatio, nil
}

func main() { os.Exit(cmd(os.Args[1:], os.Stdout, os.Stderr)) }

func cmd(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "usage: losscmp ref.json other.json...")
		return 2
	}
	ref, err := load(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "losscmp:", err)
		return 2
	}
	fmt.Fprintf(stdout, "%s (%s): losses %v\n", args[0], ref.Algorithm, ref.Losses)
	code := 0
	for _, path := range args[1:] {
		r, err := load(path)
		if err != nil {
			fmt.Fprintln(stderr, "losscmp:", err)
			return 2
		}
		d, ratio, err := compare(ref, r)
		if err != nil {
			fmt.Fprintf(stderr, "losscmp: %s: %v\n", path, err)
			return 2
		}
		verdict := "within"
		if ratio > 1 {
			verdict, code = "OUTSIDE", 1
		}
		fmt.Fprintf(stdout, "%s (%s): largest difference %.3g, %.3g of the bound 1e-6 + 1e-5|loss|: %s\n", path, r.Algorithm, d, ratio, verdict)
	}
	return code
}
