package x86gen

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// A static performance model of the arm64 kernels: the generated loop body's instructions,
// classified and counted, against the issue resources of two documented cores, for want of
// an Arm machine to time them on (docs/cpu-arm64.md).
//
// Each instruction becomes micro-ops, each of which may issue to any pipe of a set. With
// u(S) the micro-ops whose pipe set lies inside the set S, one loop iteration needs at least
// max over S of u(S)/|S| cycles (a pipe takes one micro-op per cycle; this is the exact
// optimum of the fractional assignment, and the sets of these cores are small enough to
// enumerate every S). Further bounds: the front end (instructions per cycle) and the
// accumulators' dependency chains (updates per iteration times the accumulate latency).
// The fraction of peak is the loop's multiply-adds per cycle over the best the core's
// multiply-accumulate instruction for that type can do (the same instruction alone, on
// every pipe that takes it).

// armCore is one core's issue resources for the instructions the kernels use.
type armCore struct {
	name   string
	source string
	decode int // instructions per cycle the front end delivers
	pipes  map[string]int
	// ops maps an instruction class to its micro-ops: each a pipe family and the pipes of
	// that family it may issue to (indices), e.g. {"V", [0 1]}.
	ops map[string][]uop
	// lat is the accumulate-to-accumulate latency of the multiply-accumulates (cycles).
	lat map[string]int
}

type uop struct {
	family string
	pipes  []int
}

func anyOf(family string, n int) uop {
	u := uop{family: family}
	for i := 0; i < n; i++ {
		u.pipes = append(u.pipes, i)
	}
	return u
}

func times(n int, u uop) []uop {
	out := make([]uop, n)
	for i := range out {
		out[i] = u
	}
	return out
}

// neoverseN1 follows the "Arm Neoverse N1 Software Optimization Guide" (Arm, 2019), section
// 3 (instruction characteristics), as transcribed in LLVM's scheduling model
// (llvm/lib/Target/AArch64/AArch64SchedNeoverseN1.td): two FP/ASIMD pipes V0 and V1, two
// load/store pipes, two single-cycle and one multi-cycle integer pipe, one branch pipe, and
// a decoder of 4 instructions per cycle (the guide's pipeline overview, section 2).
// ASIMD FP multiply-accumulate (FMLA) runs on either V pipe with latency 4; the multiply-
// accumulate long (SMLAL) on V0 only; the dot product (SDOT/UDOT) on either V pipe with
// latency 2 (LLVM models it with the basic ASIMD arithmetic); SSHLL/USHLL (SXTL/UXTL) on V1.
// Multi-register loads take one load-pipe micro-op per register (LD1 of 4 Q registers:
// 4); LD2 of Q registers 2 load and 2 V micro-ops; LD4 of D registers 3 and 4; a one-lane
// LD1 one of each.
var neoverseN1 = armCore{
	name:   "Neoverse N1",
	source: "Arm Neoverse N1 Software Optimization Guide",
	decode: 4,
	pipes:  map[string]int{"V": 2, "L": 2, "I": 3, "B": 1},
	ops: map[string][]uop{
		"fmla":  {anyOf("V", 2)},
		"smlal": {{"V", []int{0}}},
		"dot":   {anyOf("V", 2)},
		"xtl":   {{"V", []int{1}}},
		"eor":   {anyOf("V", 2)},
		"ld1":   {anyOf("L", 2)}, // per register
		"ld2q":  append(times(2, anyOf("L", 2)), times(2, anyOf("V", 2))...),
		"ld4d":  append(times(3, anyOf("L", 2)), times(4, anyOf("V", 2))...),
		"lane":  {anyOf("L", 2), anyOf("V", 2)},
		"ldr":   {anyOf("L", 2)},
		"prfm":  {anyOf("L", 2)},
		"alu":   {anyOf("I", 3)},
		"br":    {anyOf("B", 1)},
		// Outside the k loop (the tile's epilogue): FMUL on either V pipe; int32 MUL and MLA
		// (Q-form) two micro-ops on V0; ADD/SUB either V; DUP from a general register on the
		// multi-cycle integer pipe; ST1 one load/store and one V micro-op per register.
		"fmul": {anyOf("V", 2)},
		"imul": times(2, uop{"V", []int{0}}),
		"vadd": {anyOf("V", 2)},
		"dup":  {{"I", []int{2}}},
		"st1":  {anyOf("L", 2), anyOf("V", 2)},
	},
	lat: map[string]int{"fmla": 4, "smlal": 4, "dot": 2},
}

// neoverseV1 follows the "Arm Neoverse V1 Software Optimization Guide" (Arm, 2021), section
// 3, as transcribed in LLVM's model (AArch64SchedNeoverseV1.td): four FP/ASIMD pipes V0..V3,
// three load pipes (L01 and L2), four integer and two branch pipes; the MOP cache delivers
// 8 macro-ops per cycle (the model's issue width, "from the decode bandwidth"). FMLA on any
// V pipe, latency 4 with the accumulator forwarded 2 cycles early; SDOT/UDOT on any V pipe,
// latency 3, forwarded 2 early; SMLAL on V0 or V2, latency 4, forwarded 3 early; SSHLL on
// V1 or V3. Loads as on N1 (LD1 of n registers: n load micro-ops; LD2 Q: 2 load and 2 V;
// LD4 D: 3 and 4; one lane: 1 and 1).
var neoverseV1 = armCore{
	name:   "Neoverse V1",
	source: "Arm Neoverse V1 Software Optimization Guide",
	decode: 8,
	pipes:  map[string]int{"V": 4, "L": 3, "I": 4, "B": 2},
	ops: map[string][]uop{
		"fmla":  {anyOf("V", 4)},
		"smlal": {{"V", []int{0, 2}}},
		"dot":   {anyOf("V", 4)},
		"xtl":   {{"V", []int{1, 3}}},
		"eor":   {anyOf("V", 4)},
		"ld1":   {anyOf("L", 3)},
		"ld2q":  append(times(2, anyOf("L", 3)), times(2, anyOf("V", 4))...),
		"ld4d":  append(times(3, anyOf("L", 3)), times(4, anyOf("V", 4))...),
		"lane":  {anyOf("L", 3), anyOf("V", 4)},
		"ldr":   {anyOf("L", 3)},
		"prfm":  {anyOf("L", 3)},
		"alu":   {anyOf("I", 4)},
		"br":    {anyOf("B", 2)},
		// Outside the k loop: FMUL any V; MUL and MLA on V0 or V2; ADD/SUB any V; DUP from a
		// general register on M0; ST1 one micro-op on L0/L1 and one on V0/V1 per register.
		"fmul": {anyOf("V", 4)},
		"imul": {{"V", []int{0, 2}}},
		"vadd": {anyOf("V", 4)},
		"dup":  {{"I", []int{2}}},
		"st1":  {{"L", []int{0, 1}}, {"V", []int{0, 1}}},
	},
	lat: map[string]int{"fmla": 4 - 2, "smlal": 4 - 3, "dot": 3 - 2},
}

var (
	wordMnemonic = regexp.MustCompile(`^WORD \$0x[0-9a-f]+ // (\w+)`)
	regList      = regexp.MustCompile(`\[(V\d+\.\w+(, )?)+\]`)
	accDest      = regexp.MustCompile(`// \w+ v(\d+)\.`)
)

// classify maps one generated instruction to its class and, for a multi-register load, the
// number of registers.
func classify(line string) (class string, n int, err error) {
	line = strings.TrimSpace(line)
	if m := wordMnemonic.FindStringSubmatch(line); m != nil {
		switch m[1] {
		case "fmla":
			return "fmla", 1, nil
		case "smlal", "smlal2":
			return "smlal", 1, nil
		case "sdot", "udot":
			return "dot", 1, nil
		case "sxtl", "uxtl", "sxtl2", "uxtl2":
			return "xtl", 1, nil
		case "fmul":
			return "fmul", 1, nil
		case "mul", "mla":
			return "imul", 1, nil
		case "add", "sub":
			return "vadd", 1, nil
		case "dup":
			return "dup", 1, nil
		}
		return "", 0, fmt.Errorf("unmodelled instruction %q", line)
	}
	op, _, _ := strings.Cut(line, " ")
	switch op {
	case "VLD1.P", "VLD1":
		if strings.Contains(line, "[V") {
			return "ld1", strings.Count(regList.FindString(line), "V"), nil
		}
		return "lane", 1, nil
	case "VLD2.P":
		return "ld2q", 1, nil
	case "VLD4.P":
		return "ld4d", 1, nil
	case "FMOVQ.P", "FMOVD.P", "FMOVS.P", "FMOVS", "FMOVD":
		return "ldr", 1, nil
	case "VST1":
		return "st1", strings.Count(regList.FindString(line), "V"), nil
	case "VEOR", "VMOVI":
		return "eor", 1, nil
	case "PRFM":
		return "prfm", 1, nil
	case "MOVD", "MOVW", "MOVWU":
		if strings.Contains(line, "(FP)") {
			return "ldr", 1, nil // an argument from the frame
		}
		return "alu", 1, nil
	case "SUBS", "ADD", "SUB", "LSL", "LSLW", "LSR", "AND", "CMP", "CMPW", "MVN", "CSEL", "MUL":
		return "alu", 1, nil
	case "BNE", "BEQ", "B", "CBZ", "CBZW":
		return "br", 1, nil
	}
	return "", 0, fmt.Errorf("unmodelled instruction %q", line)
}

// loopProfile is the main loop of one generated kernel.
type loopProfile struct {
	kernel       neon
	insts        int            // instructions per iteration
	count        map[string]int // per class (loads: per register for ld1)
	groups       int            // k groups per iteration
	macs         int            // multiply-adds per iteration
	chain        int            // the most updates of one accumulator per iteration
	macClass     string         // the multiply-accumulate instruction
	macsPerInstr int
	tileInsts    int            // instructions per tile outside the k loop
	tile         map[string]int // their classes
}

// profile extracts and classifies the main loop ("loop:" to the branch back) of k.
func (k neon) profile() (loopProfile, error) {
	var a asm
	k.emit(&a)
	text := a.buf.String()
	start := strings.Index(text, "\nloop:\n")
	end := strings.Index(text, "\n\tBNE loop\n")
	if start < 0 || end < start {
		return loopProfile{}, fmt.Errorf("%s: no main loop", k.sym())
	}
	p := loopProfile{kernel: k, count: map[string]int{}, groups: k.unroll()}
	updates := map[string]int{}
	for _, line := range strings.Split(text[start+len("\nloop:\n"):end+len("\n\tBNE loop")], "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		class, n, err := classify(line)
		if err != nil {
			return loopProfile{}, fmt.Errorf("%s: %v", k.sym(), err)
		}
		p.insts++
		p.count[class] += n
		if class == "fmla" || class == "smlal" || class == "dot" {
			p.macClass = class
			updates[accDest.FindStringSubmatch(line)[1]]++
		}
	}
	for _, u := range updates {
		p.chain = max(p.chain, u)
	}
	// The rest of a tile's path, followed through the branches as a GEMM's tile takes them
	// after its first k block (alpha 1, beta 1, k a multiple of the unroll, so the tail loop
	// does not run): row pointers, C prefetch, zeroing, the epilogue, the next tile's
	// pointers. Floats always scale by alpha and take the general beta path.
	taken := map[string]bool{"tail": false, "kdone": true, "cready": false, "scaled": true,
		"beta0": false, "beta1": true, "next": true}
	lines := strings.Split(text, "\n")
	labels := map[string]int{}
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasSuffix(t, ":") && !strings.Contains(t, " ") {
			labels[strings.TrimSuffix(t, ":")] = i
		}
	}
	p.tile = map[string]int{}
	for i, steps := labels["tileloop"]+1, 0; ; i++ {
		if steps++; steps > len(lines) {
			return loopProfile{}, fmt.Errorf("%s: the tile's path does not end", k.sym())
		}
		t := strings.TrimSpace(lines[i])
		if t == "loop:" {
			for lines[i] != "\tBNE loop" { // the k loop, modelled above
				i++
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "//") || strings.HasSuffix(t, ":") {
			continue
		}
		class, n, err := classify(t)
		if err != nil {
			return loopProfile{}, fmt.Errorf("%s: %v", k.sym(), err)
		}
		p.tileInsts++
		p.tile[class] += n
		if class != "br" {
			continue
		}
		f := strings.Fields(strings.ReplaceAll(t, ",", ""))
		target := f[len(f)-1]
		if target == "tileloop" {
			break
		}
		go_, ok := taken[target]
		if !ok {
			return loopProfile{}, fmt.Errorf("%s: no path policy for a branch to %s", k.sym(), target)
		}
		if go_ {
			i = labels[target]
		}
	}
	e := elems[k.Elem]
	p.macs = k.MR * k.NR * e.group * p.groups
	p.macsPerInstr = map[string]int{"fmla": 16 / e.cElem, "smlal": 4, "dot": 16}[p.macClass]
	return p, nil
}

// modelResult is the model's verdict for one kernel on one core.
type modelResult struct {
	cycles     float64 // per iteration
	bound      string  // what sets it
	peak       float64 // multiply-adds per cycle of the multiply-accumulate instruction alone
	fraction   float64 // of peak, in the k loop
	tileCycles float64 // per tile outside the k loop
	fractionK  float64 // of peak, a tile of modelK k values including its overhead
}

// modelK is the k of the tile whose overhead the model's second fraction includes.
const modelK = 256

// bound returns the cycles the instructions of count need on c's pipes (and front end) and
// what bounds them.
func (c armCore) bound(count map[string]int, insts int) (cycles float64, by string) {
	demand := map[string][][]int{} // family -> pipe sets of its micro-ops
	for class, n := range count {
		for _, u := range c.ops[class] {
			for i := 0; i < n; i++ {
				demand[u.family] = append(demand[u.family], u.pipes)
			}
		}
	}
	var fams []string
	for f := range c.pipes {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		np := c.pipes[f]
		best := 0.0
		for s := 1; s < 1<<np; s++ {
			inside := 0
			for _, set := range demand[f] {
				in := true
				for _, pipe := range set {
					in = in && s&(1<<pipe) != 0
				}
				if in {
					inside++
				}
			}
			size := 0
			for b := s; b > 0; b &= b - 1 {
				size++
			}
			best = math.Max(best, float64(inside)/float64(size))
		}
		if best > cycles {
			cycles, by = best, map[string]string{"V": "vector pipes", "L": "load/store pipes", "I": "integer pipes", "B": "branch"}[f]
		}
	}
	if fe := float64(insts) / float64(c.decode); fe > cycles {
		cycles, by = fe, "front end"
	}
	return cycles, by
}

// predict evaluates p on core c; k is the number of k values (a multiple of the unroll's)
// per call that the tile overhead is spread over.
func (c armCore) predict(p loopProfile, k int) modelResult {
	var r modelResult
	r.cycles, r.bound = c.bound(p.count, p.insts)
	if lat := float64(p.chain * c.lat[p.macClass]); lat > r.cycles {
		r.cycles, r.bound = lat, "accumulator latency"
	}
	r.peak = float64(p.macsPerInstr * len(c.ops[p.macClass][0].pipes))
	r.fraction = float64(p.macs) / r.cycles / r.peak
	r.tileCycles, _ = c.bound(p.tile, p.tileInsts)
	iters := float64(k) / float64(p.groups*elems[p.kernel.Elem].group)
	r.fractionK = iters * float64(p.macs) / (iters*r.cycles + r.tileCycles) / r.peak
	return r
}

// modelKernels are the kernels the model reports: the packed and strided ones of each type.
func modelKernels() []neon {
	var out []neon
	for _, k := range neonKernels(Catalog()) {
		if k.Window || k.Indirect || (k.Strided && k.MR != 6) || k.Elem == S8U8 {
			continue
		}
		out = append(out, k)
	}
	return out
}

// ARM64ModelTable renders the model for every modelled kernel on both cores as a Markdown
// table (docs/cpu-arm64.md holds it; TestARM64ModelInDocs keeps the two the same).
func ARM64ModelTable() (string, error) {
	var b strings.Builder
	b.WriteString("| kernel | k groups / iteration | instructions / iteration | MAC instructions | loaded registers | other vector | instructions / tile outside the loop |")
	for _, c := range []armCore{neoverseN1, neoverseV1} {
		fmt.Fprintf(&b, " %s: cycles / iteration, bound | of peak in the loop | with the tile, k = %d |", c.name, modelK)
	}
	b.WriteString("\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range modelKernels() {
		p, err := k.profile()
		if err != nil {
			return "", err
		}
		loads := p.count["ld1"] + p.count["ldr"] + p.count["lane"] + 2*p.count["ld2q"] + 4*p.count["ld4d"]
		otherV := p.count["eor"] + p.count["xtl"]
		fmt.Fprintf(&b, "| %s | %d | %d | %d %s | %d | %d | %d |", k.sym(), p.groups, p.insts, p.count[p.macClass], p.macClass, loads, otherV, p.tileInsts)
		for _, c := range []armCore{neoverseN1, neoverseV1} {
			r := c.predict(p, modelK)
			fmt.Fprintf(&b, " %.1f, %s | %.0f%% | %.0f%% |", r.cycles, r.bound, 100*r.fraction, 100*r.fractionK)
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
