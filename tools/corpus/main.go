// Command corpus runs public AIE1 kernels whose authors published cycle figures through
// `sumac sim`'s harness and prints the table docs/aie-corpus.md keeps: the published figure,
// the model's, the error, and for errors above 10% the mechanism that explains them.
//
// The kernels are not part of sumac: the command reads them from local checkouts of their
// repositories at pinned commits, each in ROOT/<owner>+<name>@<first 12 hex digits of the
// commit>/ (a git work tree or an exported tree of that commit). The kernels run unmodified:
// only -D values, -I directories and --instance differ between them, as the table in
// corpus.go says (the defines turn on the kernels' own profiling macros where their figure
// comes from them). Nothing is fitted: the model is the one `sumac sim` uses.
//
// Usage (from the repository root):
//
//	git clone https://github.com/rehohoho/onnx2versal /tmp/c/src && cd /tmp/c/src &&
//	  git archive 310305426fd2164dd66ef003439d1d199f1918e4 design | tar -x -C "/tmp/c/root/rehohoho+onnx2versal@310305426fd2"
//	... (one tree per entry of corpus.go's sources; see docs/aie-corpus.md)
//	go run ./tools/corpus -root /tmp/c/root [-json] [-only NAME]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/harness"
)

// row is one kernel's line of the table.
type row struct {
	Name      string  `json:"name"`
	Source    string  `json:"source"`
	Published int64   `json:"published"`
	Scope     string  `json:"scope"`
	Model     int64   `json:"model"`
	Error     float64 `json:"error"` // (model - published) / published
	OK        bool    `json:"ok"`
	Mechanism string  `json:"mechanism,omitempty"`
	Failure   string  `json:"failure,omitempty"`
	Command   string  `json:"command"`
}

func main() {
	root := flag.String("root", "", "directory holding the checkouts, ROOT/<owner>+<name>@<commit12>/")
	asJSON := flag.Bool("json", false, "print the rows as JSON")
	only := flag.String("only", "", "run only the entries whose name contains this")
	trees := flag.Bool("trees", false, "print the shell commands that make the trees under -root from clones of the sources (CLONES/<owner>+<name>)")
	flag.Parse()
	if *root == "" {
		fmt.Fprintln(os.Stderr, "corpus: -root DIR is required (see the package comment and docs/aie-corpus.md)")
		os.Exit(2)
	}
	if *trees {
		printTrees(*root)
		return
	}
	var rows []row
	for _, k := range corpus {
		if *only != "" && !strings.Contains(k.Name, *only) {
			continue
		}
		rows = append(rows, run(*root, k))
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rows)
		return
	}
	print(rows)
}

// printTrees prints, for each source the corpus uses, the commands that export its pinned
// commit from a clone into its tree (only the paths the entries read: some repositories hold
// large-file objects elsewhere that an export of the whole tree cannot fetch).
func printTrees(root string) {
	seen := map[source]bool{}
	for _, k := range corpus {
		if seen[k.Source] {
			continue
		}
		seen[k.Source] = true
		dirs := map[string]bool{}
		for _, e := range corpus {
			if e.Source == k.Source {
				dirs[strings.SplitN(e.File, "/", 2)[0]] = true
			}
		}
		var paths []string
		for d := range dirs {
			paths = append(paths, d)
		}
		sort.Strings(paths)
		clone := "CLONES/" + strings.ReplaceAll(k.Source.Repo, "/", "+")
		fmt.Printf("# %s (git clone https://github.com/%s %s)\n", k.Source.Repo, k.Source.Repo, clone)
		fmt.Printf("mkdir -p %q && git -C %s archive %s %s | tar -x -C %q\n", tree(root, k.Source), clone, k.Source.Commit, strings.Join(paths, " "), tree(root, k.Source))
	}
}

// tree is where an entry's source lives.
func tree(root string, s source) string {
	return filepath.Join(root, fmt.Sprintf("%s@%s", strings.ReplaceAll(s.Repo, "/", "+"), s.Commit[:12]))
}

func run(root string, k entry) row {
	dir := tree(root, k.Source)
	r := row{Name: k.Name, Source: k.Source.Repo + "@" + k.Source.Commit[:12], Published: k.Published, Scope: k.Scope}
	file := filepath.Join(dir, k.File)
	var incs []string
	for _, d := range k.Includes {
		incs = append(incs, filepath.Join(dir, d))
	}
	r.Command = command(file, k, incs)
	if _, err := os.Stat(dir); err != nil {
		r.Failure = fmt.Sprintf("no tree %s (-trees prints the commands that make it)", dir)
		return r
	}
	if head := gitHead(dir); head != "" && head != k.Source.Commit {
		r.Failure = fmt.Sprintf("%s is a checkout of %s, not the pinned %s", dir, head, k.Source.Commit)
		return r
	}
	src, err := os.ReadFile(file)
	if err != nil {
		r.Failure = err.Error()
		return r
	}
	kern, err := cfront.ParseKernelConfig(file, src, &cfront.Config{Defines: k.Defines, Instance: k.Instance, IncludeDirs: incs})
	if err != nil {
		r.Failure = err.Error()
		return r
	}
	rep, err := harness.Run(kern, harness.Source{File: file, Text: src, Defines: k.Defines, IncludeDirs: incs}, harness.Options{Seed: 1, PLIO: k.PLIO})
	if err != nil {
		r.Failure = err.Error()
		return r
	}
	r.OK = rep.OK
	if !rep.OK {
		r.Failure = strings.Join(rep.Mismatches, "; ")
	}
	if rep.Cycles == nil {
		r.Failure = "no cycles: " + rep.TimingError
		return r
	}
	switch k.Scope {
	case "counter":
		// the kernel's own reads of the cycle counter (its profiling macros)
		if rep.MeasuredCycles == nil {
			r.Failure = "the kernel read the cycle counter fewer than twice"
			return r
		}
		r.Model = *rep.MeasuredCycles
	case "function":
		// from the kernel's first instruction to its return: the call without the
		// caller's lock handling, argument moves and jal, or the lock releases after ret
		r.Model = *rep.Cycles
		for _, c := range rep.CycleBreakdown {
			if strings.HasPrefix(c.What, "caller:") || strings.HasPrefix(c.What, "return") {
				r.Model -= int64(c.Cycles)
			}
		}
	default: // "call": one call with the caller's part
		r.Model = *rep.Cycles
	}
	r.Error = float64(r.Model-k.Published) / float64(k.Published)
	if math.Abs(r.Error) > 0.10 {
		r.Mechanism = k.Mechanism
	}
	return r
}

func command(file string, k entry, incs []string) string {
	parts := []string{"sumac sim", file}
	for _, d := range k.Defines {
		parts = append(parts, "-D "+d)
	}
	for _, d := range incs {
		parts = append(parts, "-I "+d)
	}
	if k.Instance != "" {
		parts = append(parts, "--instance '"+k.Instance+"'")
	}
	ports := make([]string, 0, len(k.PLIO))
	for p := range k.PLIO {
		ports = append(ports, p)
	}
	sort.Strings(ports)
	for _, p := range ports {
		parts = append(parts, fmt.Sprintf("--plio %s=%d@%g", p, k.PLIO[p].Bits, k.PLIO[p].MHz))
	}
	return strings.Join(parts, " ")
}

// gitHead is the commit a git work tree is at ("" for an exported tree).
func gitHead(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	if top, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output(); err != nil || filepath.Clean(strings.TrimSpace(string(top))) != filepath.Clean(dir) {
		return "" // dir is inside some other repository
	}
	return strings.TrimSpace(string(out))
}

func print(rows []row) {
	fmt.Println("| kernel | source | published | scope | model | error | mechanism (errors over 10%) |")
	fmt.Println("|---|---|---|---|---|---|---|")
	var errs []float64
	for _, r := range rows {
		if r.Failure != "" && (r.Model == 0 || !r.OK) { // no cycles, or not bit-exact
			fmt.Printf("| %s | %s | %d | %s | - | - | not run: %s |\n", r.Name, r.Source, r.Published, r.Scope, oneLine(r.Failure))
			continue
		}
		errs = append(errs, math.Abs(r.Error))
		fmt.Printf("| %s | %s | %d | %s | %d | %+.1f%% | %s |\n", r.Name, r.Source, r.Published, r.Scope, r.Model, 100*r.Error, r.Mechanism)
	}
	if len(errs) > 0 {
		sort.Float64s(errs)
		med := errs[len(errs)/2]
		if len(errs)%2 == 0 {
			med = (errs[len(errs)/2-1] + errs[len(errs)/2]) / 2
		}
		fmt.Printf("\n%d kernels run, median |error| %.1f%%\n", len(errs), 100*med)
	}
	fmt.Println("\ncommands:")
	for _, r := range rows {
		fmt.Println("  " + r.Command)
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}
