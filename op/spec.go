// Package op defines sumac's operation specs: a one-line text syntax (the op name, then
// key=value tokens), validation with clear errors, the kind of a convolution, MAC counts and
// canonical tensor layouts. Package op/ref holds the exact reference implementations.
package op

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/num"
)

// Kind classifies an operation. The convolution kinds are seed 000's (Tables III and IV).
type Kind string

const (
	Kind2D     Kind = "2D"  // c = k = 1: a 2D convolution of one image (Table III)
	KindDS     Kind = "DS"  // depth-wise separable: groups = c = k > 1
	KindFC     Kind = "FC"  // fully connected: the filter covers the whole (padded) input
	KindPW     Kind = "PW"  // point-wise: r = s = 1
	KindSS     Kind = "SS"  // spatially separable: r = 1 or s = 1
	KindREG    Kind = "REG" // regular CONV2D
	KindGEMM   Kind = "GEMM"
	KindEinsum Kind = "EINSUM"
	KindPool   Kind = "POOL"
)

// Spec is a parsed, validated operation. Exactly one of Conv, GEMM, Einsum, Pool is set.
type Spec struct {
	Conv   *Conv2D
	GEMM   *GEMM
	Einsum *Einsum
	Pool   *MaxPool
	Types  Types
}

// Op returns the operation name as written in the syntax.
func (s *Spec) Op() string {
	switch {
	case s.Conv != nil:
		return "conv2d"
	case s.GEMM != nil:
		return "gemm"
	case s.Einsum != nil:
		return "einsum"
	case s.Pool != nil:
		return "maxpool"
	}
	return ""
}

// Kind classifies the operation.
func (s *Spec) Kind() Kind {
	switch {
	case s.Conv != nil:
		return s.Conv.Kind()
	case s.GEMM != nil:
		return KindGEMM
	case s.Einsum != nil:
		return KindEinsum
	}
	return KindPool
}

// MACs is the number of multiply-accumulates (0 for pooling, which multiplies nothing).
func (s *Spec) MACs() int64 {
	switch {
	case s.Conv != nil:
		return s.Conv.MACs()
	case s.GEMM != nil:
		return s.GEMM.MACs()
	case s.Einsum != nil:
		return s.Einsum.MACs()
	}
	return 0
}

// String is the normalized spec: every parameter explicit, in a fixed order. Parse(s.String())
// gives back an equal Spec.
func (s *Spec) String() string {
	var body string
	switch {
	case s.Conv != nil:
		body = s.Conv.String()
	case s.GEMM != nil:
		body = s.GEMM.String()
	case s.Einsum != nil:
		body = s.Einsum.String()
	case s.Pool != nil:
		body = s.Pool.String()
	}
	return body + " " + s.Types.String()
}

// MaxSize bounds every size parameter so that element counts and MAC counts fit in an int64
// with room to spare; larger values are rejected as input errors.
const MaxSize = 1 << 24

// Parse parses and validates a spec such as
//
//	conv2d x=256 y=16 r=3 s=3 dtype=int16
//	gemm m=64 n=64 k=290 dtype=int16
//	einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=4 m0=4 k0=8 n1=8 n0=4 dtype=bf16
//
// Errors are single lines naming the offending token.
func Parse(text string) (*Spec, error) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil, fmt.Errorf("empty spec: want an op name (conv2d, gemm, einsum, maxpool) and key=value tokens")
	}
	name := strings.ToLower(fields[0])
	rest := fields[1:]
	var expr string
	if name == "einsum" {
		// The expression is every token before the first key=value (spaces inside it are allowed).
		i := 0
		for i < len(rest) && !strings.Contains(rest[i], "=") {
			i++
		}
		expr = strings.Join(rest[:i], "")
		rest = rest[i:]
		if expr == "" {
			return nil, fmt.Errorf("einsum needs an expression such as [m,k],[k,n]->[m,n]")
		}
	}
	kv := map[string]string{}
	var order []string
	for _, tok := range rest {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("token %q is not key=value", tok)
		}
		k = strings.ToLower(k)
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("%s given twice", k)
		}
		kv[k] = v
		order = append(order, k)
	}
	p := &kvParser{kv: kv, used: map[string]bool{}}
	s := &Spec{}
	var err error
	// Shape parameters first: a malformed shape is reported before missing types.
	switch name {
	case "conv2d", "conv":
		s.Conv, err = p.conv()
	case "gemm", "matmul":
		s.GEMM, err = p.gemm()
	case "einsum":
		s.Einsum, err = p.einsum(expr)
	case "maxpool", "maxpool2d":
		s.Pool, err = p.pool()
	default:
		return nil, fmt.Errorf("unknown op %q (want conv2d, gemm, einsum or maxpool)", fields[0])
	}
	if err != nil {
		return nil, err
	}
	if s.Types, err = p.types(); err != nil {
		return nil, err
	}
	for _, k := range order {
		if !p.used[k] {
			return nil, fmt.Errorf("unknown parameter %q for %s", k, s.Op())
		}
	}
	if err := s.Types.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// MustParse is Parse for specs written in the program text (suites, tests); it panics on error.
func MustParse(text string) *Spec {
	s, err := Parse(text)
	if err != nil {
		panic("op.MustParse(" + strconv.Quote(text) + "): " + err.Error())
	}
	return s
}

type kvParser struct {
	kv   map[string]string
	used map[string]bool
}

func (p *kvParser) get(k string) (string, bool) {
	v, ok := p.kv[k]
	if ok {
		p.used[k] = true
	}
	return v, ok
}

// size reads a positive integer parameter with a default (def <= 0 means required).
func (p *kvParser) size(k string, def int, min int) (int, error) {
	v, ok := p.get(k)
	if !ok {
		if def < min {
			return 0, fmt.Errorf("missing %s=", k)
		}
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%s: not an integer", k, v)
	}
	if n < min {
		return 0, fmt.Errorf("%s=%d: must be at least %d", k, n, min)
	}
	if n > MaxSize {
		return 0, fmt.Errorf("%s=%d: larger than the supported %d", k, n, MaxSize)
	}
	return n, nil
}

func (p *kvParser) flag(k string) (bool, error) {
	v, ok := p.get(k)
	if !ok {
		return false, nil
	}
	switch strings.ToLower(v) {
	case "1", "t", "true", "yes", "y":
		return true, nil
	case "0", "n", "false", "no":
		return false, nil
	}
	return false, fmt.Errorf("%s=%s: want true or false (1/0, t/n)", k, v)
}

func (p *kvParser) dtype(k string) (DType, bool, error) {
	v, ok := p.get(k)
	if !ok {
		return Invalid, false, nil
	}
	d, err := ParseDType(v)
	if err != nil {
		return Invalid, true, fmt.Errorf("%s=%s: %v", k, v, err)
	}
	return d, true, nil
}

func (p *kvParser) types() (Types, error) {
	var t Types
	d, hasD, err := p.dtype("dtype")
	if err != nil {
		return t, err
	}
	a, hasA, err := p.dtype("atype")
	if err != nil {
		return t, err
	}
	b, hasB, err := p.dtype("btype")
	if err != nil {
		return t, err
	}
	t.A, t.B = d, d
	if hasA {
		t.A = a
	}
	if hasB {
		t.B = b
	}
	if !hasD && !(hasA && hasB) {
		return t, fmt.Errorf("missing operand types: give dtype= (or atype= and btype=)")
	}
	t.Acc = defaultAcc(t.A, t.B)
	if v, ok := p.get("acc"); ok {
		if t.Acc, err = ParseAccType(v); err != nil {
			return t, fmt.Errorf("acc=%s: %v", v, err)
		}
	}
	t.Out = defaultOut(t.A, t.B, t.Acc)
	if o, ok, err := p.dtype("out"); err != nil {
		return t, err
	} else if ok {
		t.Out = o
	}
	if v, ok := p.get("shift"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > num.MaxShift {
			return t, fmt.Errorf("shift=%s: want an integer 0..%d", v, num.MaxShift)
		}
		t.Shift = uint(n)
	}
	if v, ok := p.get("round"); ok {
		if t.Round, err = num.ParseRound(v); err != nil {
			return t, fmt.Errorf("round=%s: %v", v, err)
		}
	}
	if v, ok := p.get("sat"); ok {
		if t.Sat, err = num.ParseSat(v); err != nil {
			return t, fmt.Errorf("sat=%s: %v", v, err)
		}
	}
	return t, nil
}

// Body is the normalized spec without its type parameters.
func (s *Spec) Body() string {
	str := s.String()
	return strings.TrimSuffix(str, " "+s.Types.String())
}

// Retype returns s with new type parameters, e.g. Retype(s, "atype=uint8 btype=int8 acc=int32").
func Retype(s *Spec, types string) (*Spec, error) {
	return Parse(s.Body() + " " + types)
}
