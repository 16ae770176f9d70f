package versal

import (
	"errors"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
	"github.com/sumacdev/sumac/op/suite"
)

// A convolution on the array is the GEMM of its im2col view: the M = N*Y*X output pixels are
// the rows, the K = R*S*C reduction steps (input channel fastest, then filter column, then row)
// the columns of A, the output channels the columns of B (the filters). The PL builds A's
// windows from the input as it streams them (stride and padding applied there, as sumac's
// one-tile placement does) and B's from the filters; the array runs the GEMM design the search
// finds. The verification runs the design on a scaled-down convolution (the same C, R, S, stride
// and padding, so the same K and the same kernels) and compares with op/ref's convolution.

// ConvArrayResult is one convolution on the array.
type ConvArrayResult struct {
	Layer string `json:"layer,omitempty"`
	Conv  string `json:"conv"`
	GEMM  string `json:"gemm"` // the im2col GEMM
	ArrayResult
}

// im2colGEMM is the GEMM view of a convolution.
func im2colGEMM(spec *op.Spec) (*op.Spec, error) {
	c := spec.Conv
	if c == nil {
		return nil, fmt.Errorf("versal array conv: %q is not a conv2d", spec.String())
	}
	if c.Groups != 1 || c.Dilation != 1 {
		return nil, errors.New("versal array conv: groups and dilation must be 1")
	}
	return &op.Spec{GEMM: &op.GEMM{M: c.N * c.Y * c.X, N: c.K, K: c.R * c.S * c.C}, Types: spec.Types}, nil
}

// RunConvArray finds the best design for the convolution's GEMM within the tile budget and
// verifies it on a scaled-down convolution.
func RunConvArray(m *Machine, spec *op.Spec, o SearchOptions) (*ConvArrayResult, error) {
	gs, err := im2colGEMM(spec)
	if err != nil {
		return nil, err
	}
	verify := !o.NoVerify
	o.NoVerify = true
	r, err := SearchGEMM(m, gs, o)
	if err != nil {
		return nil, err
	}
	cr := &ConvArrayResult{Conv: spec.String(), GEMM: gs.String(), ArrayResult: *r}
	cr.Spec = spec.String()
	if verify {
		seed := o.Seed
		if seed == 0 {
			seed = 1
		}
		shape, inputs, err := verifyConvDesign(m, r.Design, spec, seed)
		cr.VerifiedOn, cr.VerifyInputs = shape, inputs
		if err != nil {
			cr.VerifyError, cr.Verified = err.Error(), false
		} else {
			cr.Verified = true
		}
	}
	return cr, nil
}

// verifyConvDesign runs the design (at most 2 x Y x 2 tiles) on a scaled-down convolution with
// the same C, R, S, stride and padding, and compares with op/ref bit for bit.
func verifyConvDesign(m *Machine, d *ArrayDesign, spec *op.Spec, seed uint64) (shape, inputs string, err error) {
	c := spec.Conv
	vd := *d
	vd.X, vd.Z = min(d.X, 2), min(d.Z, 2)
	vd.ACast, vd.BCast, vd.PackIn, vd.PackOut = 1, 1, 1, 1
	vd.Scope = ScopeArray
	ks := vd.Kernel.Normalized()
	x := min(c.X, 9)
	co := min(c.K, vd.Z*ks.TN+3)
	vs, err := op.Parse(fmt.Sprintf("conv2d x=%d y=%d k=%d c=%d r=%d s=%d stride=%d pad=%d %s", x, min(c.Y, 2), co, c.C, c.R, c.S, c.Stride, c.Pad, spec.Types))
	if err != nil {
		return "", "", err
	}
	shape = vs.String()
	vc := vs.Conv
	gs, err := im2colGEMM(vs)
	if err != nil {
		return shape, "", err
	}
	p, err := newArrayPlan(NewArray(m), &vd, gs)
	if err != nil {
		return shape, "", err
	}
	signed := vs.Types.A.Signed()
	var in, w []int64
	var want ref.IntResult
	bits := vs.Types.A.Bits()
	for ; bits >= 2; bits-- {
		r := rng.New(seed)
		gen := func(n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				if signed {
					v[i] = int64(r.Intn(1<<bits-1)) - (1<<(bits-1) - 1)
				} else {
					v[i] = int64(r.Intn(1 << bits))
				}
			}
			return v
		}
		in, w = gen(vc.InLen()), gen(vc.WLen())
		want, err = ref.Conv2DInt(vc, vs.Types, in, w)
		if err != nil {
			return shape, "", err
		}
		if want.Saturated*100 < len(want.Out) {
			break
		}
	}
	inputs = fmt.Sprintf("%s values of %d bits, %d of %d outputs saturate", vs.Types.A, bits, want.Saturated, len(want.Out))
	// im2col: A[pixel][k], k = (s*R + r)*C + ch; B[k][co]
	g := gs.GEMM
	a := make([]int64, g.M*g.K)
	b := make([]int64, g.K*g.N)
	for pix := 0; pix < g.M; pix++ {
		px, py, pn := pix%vc.X, pix/vc.X%vc.Y, pix/vc.X/vc.Y
		for kk := 0; kk < g.K; kk++ {
			ch, r, s := kk%vc.C, kk/vc.C%vc.R, kk/vc.C/vc.R
			ix, iy := px*vc.Stride+r-vc.Pad, py*vc.Stride+s-vc.Pad
			if ix >= 0 && iy >= 0 && ix < vc.XIn && iy < vc.YIn {
				a[pix*g.K+kk] = in[vc.InIndex(ix, iy, ch, pn)]
			}
		}
	}
	for kk := 0; kk < g.K; kk++ {
		ch, r, s := kk%vc.C, kk/vc.C%vc.R, kk/vc.C/vc.R
		for o := 0; o < g.N; o++ {
			b[kk*g.N+o] = w[vc.WIndex(r, s, ch, o)]
		}
	}
	got, _, err := p.execute(a, b, nil, nil)
	if err != nil {
		return shape, inputs, err
	}
	for pix := 0; pix < g.M; pix++ {
		px, py, pn := pix%vc.X, pix/vc.X%vc.Y, pix/vc.X/vc.Y
		for o := 0; o < g.N; o++ {
			if got[pix*g.N+o] != want.Out[vc.OutIndex(px, py, o, pn)] {
				return shape, inputs, fmt.Errorf("output (x %d, y %d, k %d) = %d, op/ref %d", px, py, o, got[pix*g.N+o], want.Out[vc.OutIndex(px, py, o, pn)])
			}
		}
	}
	return shape, inputs, nil
}

// ConvSuiteArray is a convolution suite on the array, each layer with its own best design.
type ConvSuiteArray struct {
	Suite    string             `json:"suite"`
	DType    string             `json:"dtype"`
	Tiles    int                `json:"tiles"`
	Scope    string             `json:"scope"`
	ClockGHz float64            `json:"clock_ghz"`
	Layers   []*ConvArrayResult `json:"layers"`
	// the network, layers one after the other (the array reconfigured between layers at no
	// cost): cycles, MACs, TOPS; the geometric mean of the layers' TOPS; the limit most share
	Cycles      int64   `json:"cycles"`
	MACs        int64   `json:"macs"`
	TOPS        float64 `json:"tops"`
	GeomeanTOPS float64 `json:"geomean_tops"`
	Limit       string  `json:"limit"`
	Verified    bool    `json:"verified"`
}

// RunSuiteArray maps every convolution of a suite onto the array.
func RunSuiteArray(m *Machine, name, dtype string, o SearchOptions) (*ConvSuiteArray, error) {
	s, err := suite.Get(name)
	if err != nil {
		return nil, err
	}
	if o.Scope == "" {
		o.Scope = ScopeArray
	}
	sr := &ConvSuiteArray{Suite: name, DType: dtype, Tiles: o.Tiles, Scope: o.Scope, ClockGHz: m.AIEClockGHz, Verified: true}
	limits := map[string]int{}
	lg := 0.0
	for _, w := range s.Workloads {
		if w.Spec.Conv == nil {
			return nil, fmt.Errorf("suite %s: %s is not a convolution", name, w.Name)
		}
		spec, err := op.Retype(w.Spec, "dtype="+dtype)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", w.Name, err)
		}
		r, err := RunConvArray(m, spec, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", w.Name, err)
		}
		r.Layer = w.Name
		sr.Layers = append(sr.Layers, r)
		sr.Cycles += r.Cycles
		sr.MACs += r.MACs
		sr.Verified = sr.Verified && (r.Verified || o.NoVerify)
		lg += math.Log(r.TOPS)
		limits[r.Limit]++
		if limits[r.Limit] > limits[sr.Limit] {
			sr.Limit = r.Limit
		}
	}
	if sr.Cycles > 0 {
		sr.TOPS = math.Round(2*float64(sr.MACs)/float64(sr.Cycles)*m.AIEClockGHz/1e3*1000) / 1000
	}
	sr.GeomeanTOPS = math.Round(math.Exp(lg/float64(len(sr.Layers)))*1000) / 1000
	return sr, nil
}
