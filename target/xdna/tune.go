package xdna

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/vliw"
)

// genOpts are a generator's choices.
type genOpts struct {
	prio  bool // output-tile prioritization
	acc   bool // accumulate into the output buffer (out += A B), as the published kernels do
	extra int  // bundles added to the smallest loop body (when placement fails at the bound)
	// spread stores every other cycle (aieml with acc: lets the output loads and A's loads
	// share unit A and the output bank when both are full)
	spread bool
	// lead: cycles operand tiles arrive earlier than the latest time that feeds their first
	// VMAC.F (buffering depth: each cycle more keeps the tiles' registers longer)
	lead int
}

// Choice is one point of the generator's space for an einsum: what `sumac tune --target
// aie2p|aieml` searches. The register block (2x2 tiles of 8x8 on AIE2P, 2x4 tiles of 4x4 on
// AIE2) and the block order (along n, the A slice reused) are fixed by the generator.
type Choice struct {
	Prioritized bool // chains ordered so the last tiles' stores hide in the cool-down (else round robin)
	Spread      bool // stores every other bundle (else packed as soon as each tile lands)
	Slack       int  // bundles added to the loop body's bound
	Lead        int  // cycles operand tiles are loaded ahead of the latest time (buffering depth)
}

func (c Choice) opts(acc bool) genOpts {
	return genOpts{prio: c.Prioritized, spread: c.Spread, extra: c.Slack, lead: c.Lead, acc: acc}
}

// String is the choice as the tuner prints it and ParseChoice reads it.
func (c Choice) String() string {
	chains, stores := "rr", "packed"
	if c.Prioritized {
		chains = "prio"
	}
	if c.Spread {
		stores = "spread"
	}
	return fmt.Sprintf("chains=%s stores=%s slack=%d lead=%d", chains, stores, c.Slack, c.Lead)
}

// ParseChoice reads a choice in String's form (fields left out: prio, packed, 0, 0).
func ParseChoice(s string) (Choice, error) {
	c := Choice{Prioritized: true}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return c, fmt.Errorf("choice field %q: want key=value", f)
		}
		var err error
		switch k {
		case "chains":
			if v != "prio" && v != "rr" {
				return c, fmt.Errorf("chains=%s: want prio or rr", v)
			}
			c.Prioritized = v == "prio"
		case "stores":
			if v != "packed" && v != "spread" {
				return c, fmt.Errorf("stores=%s: want packed or spread", v)
			}
			c.Spread = v == "spread"
		case "slack":
			c.Slack, err = strconv.Atoi(v)
		case "lead":
			c.Lead, err = strconv.Atoi(v)
		default:
			return c, fmt.Errorf("choice field %q: want chains, stores, slack or lead", k)
		}
		if err != nil || c.Slack < 0 || c.Lead < 0 {
			return c, fmt.Errorf("choice field %q: want a count >= 0", f)
		}
	}
	return c, nil
}

// Space is the tuner's candidate set: both chain orders, stores packed or spread (aieml), loop-
// body slack 0..maxSlack and operand lead 0, 4 or 8 cycles (one and two VMAC.F rounds of
// AIE2P's chains).
func Space(a *Arch, opt Options) []Choice {
	var cs []Choice
	for slack := 0; slack <= maxSlack(a, opt); slack++ {
		for _, lead := range []int{0, 4, 8} {
			for _, prio := range []bool{true, false} {
				for _, spread := range []bool{false, true} {
					if spread && a.Gen == AIE2P {
						continue // the AIE2P generator packs its stores only
					}
					cs = append(cs, Choice{Prioritized: prio, Spread: spread, Slack: slack, Lead: lead})
				}
			}
		}
	}
	return cs
}

// maxSlack is the most bundles the generator adds to a loop body's bound: 4, or 16 for an
// accumulating aie2p kernel, whose output loads crowd unit A and the accumulator registers
// until the body is about 11 bundles longer (docs/xdna.md).
func maxSlack(a *Arch, opt Options) int {
	if a.Gen == AIE2P && opt.Accumulate {
		return 16
	}
	return 4
}

// generate builds and emits one choice's kernel.
func generate(a *Arch, e *op.Einsum, g genOpts) (*kern, *vliw.Program, error) {
	var k *kern
	var err error
	switch a.Gen {
	case AIE2P:
		k, err = genAIE2P(a, e, "einsum_kernel", g)
	case AIE2:
		k, err = genAIE2(a, e, "einsum_kernel", g)
	default:
		err = fmt.Errorf("%s: no einsum generator", a.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	p, err := k.emit()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", a.Name, err)
	}
	return k, p, nil
}

// Candidate is one evaluated choice. Refusal says why a choice has no kernel (the generator
// could not place or allocate it); a refused candidate has no counts.
type Candidate struct {
	Choice       Choice
	Instructions int64
	VMACs        int64
	Utilization  float64
	Cycles       int64
	Stalls       int64
	Verified     bool
	Refusal      string
	Stored       bool // taken from a tuning store, not evaluated in this run
}

// Better orders candidates: verified before not, fewer cycles, fewer instructions; refused last.
func Better(x, y Candidate) bool {
	if (x.Refusal == "") != (y.Refusal == "") {
		return x.Refusal == ""
	}
	if x.Verified != y.Verified {
		return x.Verified
	}
	if x.Cycles != y.Cycles {
		return x.Cycles < y.Cycles
	}
	return x.Instructions < y.Instructions
}

// CompileChoice generates, runs and verifies one choice's kernel.
func CompileChoice(a *Arch, spec string, c Choice, opt Options) (*Result, error) {
	s, err := parseEinsum(a, spec)
	if err != nil {
		return nil, err
	}
	k, prog, err := generate(a, s.Einsum, c.opts(opt.Accumulate))
	if err != nil {
		return nil, err
	}
	return runKernel(a, s, k, prog, opt)
}

// Tune evaluates every choice of the space (each generated, run on the cycle engine and
// checked against op/ref) and returns them best first (Better; the space's order breaks ties).
// have, when not nil, supplies candidates already evaluated (a tuning store); evaluated
// reports how many were run here.
func Tune(a *Arch, spec string, opt Options, have func(Choice) (Candidate, bool)) (cands []Candidate, evaluated int, err error) {
	s, err := parseEinsum(a, spec)
	if err != nil {
		return nil, 0, err
	}
	want := s.Einsum.MACs() / int64(a.MACsPerInstr())
	for _, c := range Space(a, opt) {
		if have != nil {
			if x, ok := have(c); ok {
				cands = append(cands, x)
				continue
			}
		}
		evaluated++
		x := Candidate{Choice: c}
		r, err := CompileChoice(a, spec, c, opt)
		switch {
		case err != nil:
			x.Refusal = err.Error()
		default:
			x.Instructions, x.VMACs, x.Utilization = r.Instructions, r.VMACs, r.Utilization
			x.Cycles, x.Stalls, x.Verified = r.Cycles, r.Stalls, r.Verified && r.VMACs == want
		}
		cands = append(cands, x)
	}
	sort.SliceStable(cands, func(i, j int) bool { return Better(cands[i], cands[j]) })
	if len(cands) == 0 || cands[0].Refusal != "" {
		why := "no candidate"
		if len(cands) > 0 {
			why = cands[0].Refusal
		}
		return cands, evaluated, fmt.Errorf("%s: no choice generates a kernel: %s", a.Name, why)
	}
	return cands, evaluated, nil
}
