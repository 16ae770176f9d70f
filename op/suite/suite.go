// Package suite holds the workload tables of the seed documents as data: every workload is a
// name and a spec in op's syntax, with the paper's published schedule where it gives one.
package suite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/op"
)

// Workload is one entry of a suite.
type Workload struct {
	Name   string
	Spec   *op.Spec
	Source string         // where the shape comes from (seed, table, row)
	Paper  *PaperSchedule // the schedule the paper's auto-tuner chose, when published
}

// PaperSchedule is a row of seed 000's "optimal schedule" columns (Tables III and IV).
// Empty strings mean the table has no such column for the workload.
type PaperSchedule struct {
	OutLayout, WLayout, InLayout string // data layouts, e.g. "(K/8)(C/8)SR(8)(8)"
	VectorLoop, SWLoop           string // vectorized loop and software-pipelined loop
	UnrollX, UnrollY, UnrollK    int    // unroll-and-jam factors
	LoopOrder                    string // outermost first, e.g. "kyx"
}

// Suite is a named list of workloads.
type Suite struct {
	Name        string
	Description string
	Workloads   []Workload
}

var registry = map[string]func() *Suite{}

func register(name string, f func() *Suite) { registry[name] = f }

// Names lists the suites in alphabetical order.
func Names() []string {
	n := make([]string, 0, len(registry))
	for k := range registry {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Get returns a suite by name.
func Get(name string) (*Suite, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown suite %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// Find returns one workload of a suite by name.
func (s *Suite) Find(name string) (Workload, bool) {
	for _, w := range s.Workloads {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// add parses a spec written in this package; a typo here is a programming error caught by
// the package's tests.
func (s *Suite) add(name, spec, source string, paper *PaperSchedule) {
	s.Workloads = append(s.Workloads, Workload{Name: name, Spec: op.MustParse(spec), Source: source, Paper: paper})
}
