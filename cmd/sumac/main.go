// Command sumac turns tensor operations into vector code for the AI Engine and the host CPU,
// evaluates it (cycle-level model or real hardware) and reports the results.
//
// Each subcommand lives in its own file (cmd_*.go) and registers itself in init.
// Exit status: 0 success, 1 a check failed (e.g. a kernel's output differs), 2 bad input or usage.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand of sumac.
type command struct {
	name    string
	summary string // one line for the top-level help
	usage   string // synopsis and description, printed by -h
	// run executes the subcommand. Errors of type usageError (or any error) exit 2;
	// errCheckFailed exits 1 after the report is printed.
	run func(env *cmdEnv, args []string) error
}

// cmdEnv carries the process streams so commands are testable without touching os.*.
type cmdEnv struct {
	stdout, stderr io.Writer
	isTerminal     bool // stderr is a terminal: progress displays allowed
}

var commands = map[string]*command{}

// topics are help pages computed at run time (`sumac help NAME`), e.g. targets.
var topics = map[string]func(env *cmdEnv, args []string) error{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("sumac: duplicate command " + c.name) // programming error, caught by any test
	}
	commands[c.name] = c
}

// errCheckFailed reports that a command ran but a verification it performed failed.
var errCheckFailed = errors.New("check failed")

func main() {
	env := &cmdEnv{stdout: os.Stdout, stderr: os.Stderr, isTerminal: isTerminal(os.Stderr)}
	os.Exit(runMain(env, os.Args[1:]))
}

// runMain is main without os.Exit, for tests.
func runMain(env *cmdEnv, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprint(env.stdout, c.usage)
				return 0
			}
			if t, ok := topics[args[1]]; ok {
				if err := t(env, args[2:]); err != nil {
					fmt.Fprintf(env.stderr, "sumac help %s: %v\n", args[1], oneLine(err.Error()))
					return 2
				}
				return 0
			}
		}
		topHelp(env.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.stderr, "sumac: unknown command %q (run 'sumac help' for the list)\n", args[0])
		return 2
	}
	err := c.run(env, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errCheckFailed):
		fmt.Fprintf(env.stderr, "sumac %s: %v\n", c.name, oneLine(err.Error()))
		return 1
	default:
		fmt.Fprintf(env.stderr, "sumac %s: %v\n", c.name, oneLine(err.Error()))
		return 2
	}
}

// oneLine keeps error output to a single line as the CLI contract promises.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

func topHelp(w io.Writer) {
	fmt.Fprintln(w, "sumac: near-peak vector code for tensor operations (AI Engine model and host CPU)")
	fmt.Fprintln(w, "\nUsage: sumac COMMAND [arguments]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'sumac help COMMAND' or 'sumac COMMAND -h' for a command's options,")
	fmt.Fprintln(w, "'sumac help targets' for the targets (--target NAME) and what each provides.")
	fmt.Fprintln(w, "Every reporting command takes --json and then writes exactly one JSON document to stdout.")
}

// newFlags makes a FlagSet for a subcommand whose -h prints the command's usage.
// Flags are accepted before and after positional arguments (see parseInterspersed).
func newFlags(env *cmdEnv, c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("sumac "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	_ = env
	return fs
}

// parseFlags parses args allowing flags after positional arguments, e.g.
// "sumac spec 'conv2d x=4' --json". It returns the positional arguments.
// A -h/--help prints the usage to stdout and returns flag.ErrHelp.
func parseFlags(env *cmdEnv, c *command, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(env.stdout, c.usage)
				return nil, flag.ErrHelp
			}
			return nil, usageErr("%v (see 'sumac %s -h')", err, c.name)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func usageErr(format string, a ...any) error { return fmt.Errorf(format, a...) }

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeJSON writes v as the single JSON document of a --json run.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
