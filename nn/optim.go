package nn

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/cpu/kernels"
)

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	Step(params []*Param)
	LR() float64
	SetLR(lr float64)
}

// SGD is stochastic gradient descent with momentum, as torch.optim.SGD (dampening 0, no
// Nesterov; PyTorch documentation, torch.optim.SGD, "Algorithm"): b = mu*b + g (b = g on the
// first step), p = p - lr*b.
type SGD struct {
	lr, Momentum float64
	buf          map[*Param][]float32
}

func NewSGD(lr, momentum float64) *SGD {
	return &SGD{lr: lr, Momentum: momentum, buf: map[*Param][]float32{}}
}
func (s *SGD) LR() float64      { return s.lr }
func (s *SGD) SetLR(lr float64) { s.lr = lr }

func (s *SGD) Step(params []*Param) {
	lr, mu := float32(s.lr), float32(s.Momentum)
	for _, p := range params {
		v, g := p.Value.Data(), p.Grad.Data()
		if mu == 0 {
			for i := range v {
				v[i] -= lr * g[i]
			}
			continue
		}
		b, ok := s.buf[p]
		if !ok {
			b = append([]float32(nil), g...)
			s.buf[p] = b
		} else {
			for i := range b {
				b[i] = mu*b[i] + g[i]
			}
		}
		for i := range v {
			v[i] -= lr * b[i]
		}
	}
}

// Adadelta is Zeiler's method ("ADADELTA: An Adaptive Learning Rate Method", arXiv:1212.5701,
// Algorithm 1) with a learning rate, as torch.optim.Adadelta (PyTorch documentation,
// torch.optim.Adadelta, "Algorithm"; defaults rho 0.9, eps 1e-6):
//
//	v = rho*v + (1-rho)*g^2;  d = sqrt(u+eps)/sqrt(v+eps)*g;  u = rho*u + (1-rho)*d^2;  p -= lr*d
//
// in float32 (kernels.AdadeltaF32), each operation rounded.
type Adadelta struct {
	lr, Rho, Eps float64
	sq, acc      map[*Param][]float32
}

func NewAdadelta(lr float64) *Adadelta {
	return &Adadelta{lr: lr, Rho: 0.9, Eps: 1e-6, sq: map[*Param][]float32{}, acc: map[*Param][]float32{}}
}
func (a *Adadelta) LR() float64      { return a.lr }
func (a *Adadelta) SetLR(lr float64) { a.lr = lr }

func (a *Adadelta) Step(params []*Param) {
	rho, eps, lr := float32(a.Rho), float32(a.Eps), float32(a.lr)
	for _, p := range params {
		v, g := p.Value.Data(), p.Grad.Data()
		sq, ok := a.sq[p]
		if !ok {
			sq = make([]float32, len(v))
			a.sq[p] = sq
			a.acc[p] = make([]float32, len(v))
		}
		// The CPU backend's vector step (float32 roots and quotient, as PyTorch's), the same
		// bits as its plain loop.
		kernels.AdadeltaF32(v, g, sq, a.acc[p], rho, 1-rho, eps, lr)
	}
}

// NewOptimizer returns "adadelta" or "sgd" (with momentum).
func NewOptimizer(name string, lr, momentum float64) (Optimizer, error) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return nil, fmt.Errorf("learning rate %v must be positive", lr)
	}
	switch name {
	case "adadelta":
		return NewAdadelta(lr), nil
	case "sgd":
		if momentum < 0 || momentum >= 1 {
			return nil, fmt.Errorf("momentum %v outside [0, 1)", momentum)
		}
		return NewSGD(lr, momentum), nil
	}
	return nil, fmt.Errorf("unknown optimizer %q (want adadelta or sgd)", name)
}
