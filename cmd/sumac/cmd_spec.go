package main

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/op"
)

// specJSON is the --json form of a spec (and of a suite entry).
type specJSON struct {
	Name   string `json:"name,omitempty"`
	Spec   string `json:"spec"`
	Op     string `json:"op"`
	Kind   string `json:"kind"`
	DType  string `json:"dtype"`
	AType  string `json:"atype"`
	BType  string `json:"btype"`
	Acc    string `json:"acc"`
	Out    string `json:"out"`
	MACs   int64  `json:"macs"`
	Source string `json:"source,omitempty"`
}

func specToJSON(name string, s *op.Spec) specJSON {
	dt := s.Types.A.String()
	if s.Types.A != s.Types.B {
		dt = s.Types.A.String() + "x" + s.Types.B.String()
	}
	return specJSON{Name: name, Spec: s.String(), Op: s.Op(), Kind: string(s.Kind()), DType: dt,
		AType: s.Types.A.String(), BType: s.Types.B.String(), Acc: s.Types.Acc.String(), Out: s.Types.Out.String(), MACs: s.MACs()}
}

func init() {
	c := &command{
		name:    "spec",
		summary: "parse and validate an operation spec; print it normalized with its kind and MAC count",
		usage: `Usage: sumac spec 'SPEC' [--json]

Parses an operation spec, checks it, and prints the normalized form (every parameter explicit),
its kind (2D, DS, FC, PW, SS, REG, GEMM, EINSUM, POOL) and its MAC count.

Examples:
  sumac spec 'conv2d x=256 y=16 r=3 s=3 dtype=int16'
  sumac spec 'gemm m=64 n=64 k=290 dtype=int16' --json
  sumac spec 'einsum [m,k],[k,n]->[m,n] m=8 k=8 n=8 dtype=bf16'

The syntax is described in the README ("Spec syntax").
`,
	}
	c.run = func(env *cmdEnv, args []string) error {
		fs := newFlags(env, c)
		asJSON := fs.Bool("json", false, "write one JSON object to stdout")
		pos, err := parseFlags(env, c, fs, args)
		if err != nil {
			return err
		}
		if len(pos) == 0 {
			return usageErr("missing SPEC (see 'sumac spec -h')")
		}
		s, err := op.Parse(strings.Join(pos, " "))
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(env.stdout, specToJSON("", s))
		}
		fmt.Fprintf(env.stdout, "%s\nkind %s, %d MACs\n", s, s.Kind(), s.MACs())
		return nil
	}
	register(c)
}
