package kernel

import (
	"fmt"
	"math"
)

// Pos is a source position (set by the front end; zero for built kernels).
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string {
	if !p.IsValid() {
		return ""
	}
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Var is a kernel variable: a parameter, a declared local or a temporary.
// Variables are mutable; the IR is not SSA.
type Var struct {
	Name  string
	Type  Type
	ID    int  // index in Kernel.Vars
	Param bool // a kernel parameter (window, pointer or scalar argument)
	Temp  bool // introduced by lowering (not named in the source)
	// Restrict records `__restrict` on a pointer or window parameter (kept for the emitter).
	Restrict bool
	Pos      Pos
	// Storage is the memory of an array variable (a local, static, global or class-member
	// array): the variable is a pointer to its first element and is not a parameter.
	Storage *Storage
	// Port is how a pointer parameter is spelled in C++ (a plain pointer, a reference to an
	// array of Array elements, an ADF buffer port); Member marks a kernel class's
	// reference-to-array member (REGISTER_PARAMETER), passed to the constructor, not the call.
	Port   Port
	Array  int
	Member bool
}

func (v *Var) String() string { return v.Name }

// Operand is an instruction operand: a variable or an immediate.
type Operand struct {
	Var *Var
	// Imm is the value of an integer immediate (Var == nil && !IsFloat).
	Imm int64
	// IsFloat marks a float immediate; its value is F.
	IsFloat bool
	F       float32
}

// V makes a variable operand.
func V(v *Var) Operand { return Operand{Var: v} }

// Imm makes an integer immediate operand.
func Imm(n int64) Operand { return Operand{Imm: n} }

// FImm makes a float immediate operand.
func FImm(f float32) Operand { return Operand{IsFloat: true, F: f} }

// IsImm reports whether o is an immediate (integer or float).
func (o Operand) IsImm() bool { return o.Var == nil }

// IsIntImm reports whether o is an integer immediate.
func (o Operand) IsIntImm() bool { return o.Var == nil && !o.IsFloat }

// Type is the variable's type; immediates are int (or float).
func (o Operand) Type() Type {
	switch {
	case o.Var != nil:
		return o.Var.Type
	case o.IsFloat:
		return ScalarOf(Float32)
	}
	return ScalarOf(Int32)
}

func (o Operand) String() string {
	switch {
	case o.Var != nil:
		return o.Var.Name
	case o.IsFloat:
		return fmt.Sprintf("%gf", o.F)
	case o.Imm > 9 || o.Imm < -9:
		if o.Imm > 0 && o.Imm <= math.MaxUint32 {
			return fmt.Sprintf("0x%x", o.Imm)
		}
	}
	return fmt.Sprint(o.Imm)
}

// Stmt is an Instr or a *Loop.
type Stmt interface{ stmtPos() Pos }

// Instr is one operation: Dst = Op(Args...). Dst is nil for ops without a result (stores,
// window writes, window increments).
type Instr struct {
	Op   Op
	Dst  *Var
	Args []Operand
	Pos  Pos
}

func (in *Instr) stmtPos() Pos { return in.Pos }

// Cmp is the comparison of a loop condition `i CMP limit`.
type Cmp uint8

const (
	Lt Cmp = iota // i < limit
	Le            // i <= limit
	Gt            // i > limit
	Ge            // i >= limit
	Ne            // i != limit
)

var cmpNames = [...]string{"<", "<=", ">", ">=", "!="}

func (c Cmp) String() string {
	if int(c) < len(cmpNames) {
		return cmpNames[c]
	}
	return "?"
}

// Loop is `for (Var = Start; Var Cmp Limit; Var += Step) Body` with the chess pragmas.
// Var is a scalar integer variable (nil for a loop whose counter the body never reads:
// then Start/Limit/Step still give the trip count). Start and Limit are evaluated once,
// at loop entry; Step must be a nonzero integer immediate.
type Loop struct {
	Var                *Var
	Start, Limit, Step Operand
	Cmp                Cmp
	Body               []Stmt

	// Pipelined is chess_prepare_for_pipelining (UG1079 "Software Pipelining of Loops").
	Pipelined bool
	// HasRange marks chess_loop_range(RangeMin, RangeMax): the compiler may assume the trip
	// count lies in [RangeMin, RangeMax]; RangeMax == 0 means no upper bound (the pragma's
	// second argument was empty), as in seed 001 Fig. 4 `chess_loop_range(Kc/4, )`.
	HasRange           bool
	RangeMin, RangeMax int64
	// Flatten is chess_flatten_loop (unroll completely, UG1079 "Loop Flattening and
	// Unrolling"); Unroll is chess_unroll_loop(n) (0: none). They change the schedule, not
	// the result.
	Flatten bool
	Unroll  int
	Pos     Pos
}

func (l *Loop) stmtPos() Pos { return l.Pos }

// TripCount returns the number of iterations when Start, Limit and Step are immediates.
func (l *Loop) TripCount() (int64, bool) {
	if !l.Start.IsIntImm() || !l.Limit.IsIntImm() || !l.Step.IsIntImm() || l.Step.Imm == 0 {
		return 0, false
	}
	return tripCount(l.Start.Imm, l.Limit.Imm, l.Step.Imm, l.Cmp)
}

// tripCount counts iterations of for (i = s; i CMP lim; i += st) with 64-bit arithmetic.
// It returns false for a loop that does not terminate (e.g. i != lim never met).
func tripCount(s, lim, st int64, c Cmp) (int64, bool) {
	ceilDiv := func(a, b int64) int64 { return (a + b - 1) / b }
	switch c {
	case Lt:
		if s >= lim {
			return 0, true
		}
		if st <= 0 {
			return 0, false
		}
		return ceilDiv(lim-s, st), true
	case Le:
		if s > lim {
			return 0, true
		}
		if st <= 0 {
			return 0, false
		}
		return (lim-s)/st + 1, true
	case Gt:
		if s <= lim {
			return 0, true
		}
		if st >= 0 {
			return 0, false
		}
		return ceilDiv(s-lim, -st), true
	case Ge:
		if s < lim {
			return 0, true
		}
		if st >= 0 {
			return 0, false
		}
		return (s-lim)/(-st) + 1, true
	case Ne:
		if s == lim {
			return 0, true
		}
		d := lim - s
		if d%st != 0 || (d > 0) != (st > 0) {
			return 0, false
		}
		return d / st, true
	}
	return 0, false
}

// Kernel is one AIE kernel function.
type Kernel struct {
	Name   string
	Params []*Var // in signature order (a kernel class's member arrays after the call's)
	Vars   []*Var // every variable, Vars[i].ID == i (parameters included)
	Body   []Stmt
	// Defines records the -D values the front end used (for reports; not semantic).
	Defines map[string]string
	// Entry says how a template instance or kernel class is called (nil: call Name).
	Entry *Entry
	// Includes are the kernel's own headers the front end read (the g++ check reads them too).
	Includes []string
	// Notes are the constructs the front end accepted and ignored (pragmas that do not change
	// the result or that sumac's scheduler does not use), each with its position.
	Notes []string
}

// If is if (Cond) Then else Else on a run-time value (the front end folds conditions known
// at compile time). Cond is an integer or pointer scalar: nonzero takes Then.
type If struct {
	Cond       Operand
	Then, Else []Stmt
	Pos        Pos
}

func (s *If) stmtPos() Pos { return s.Pos }

// New returns an empty kernel.
func New(name string) *Kernel { return &Kernel{Name: name} }

// NewVar adds a variable. The name must be unique in the kernel (Validate checks).
func (k *Kernel) NewVar(name string, t Type) *Var {
	v := &Var{Name: name, Type: t, ID: len(k.Vars)}
	k.Vars = append(k.Vars, v)
	return v
}

// AddParam adds a parameter.
func (k *Kernel) AddParam(name string, t Type) *Var {
	v := k.NewVar(name, t)
	v.Param = true
	k.Params = append(k.Params, v)
	return v
}

// NewTemp adds a temporary with a fresh name _tN.
func (k *Kernel) NewTemp(t Type) *Var {
	for n := len(k.Vars); ; n++ {
		name := fmt.Sprintf("_t%d", n)
		if k.Lookup(name) == nil {
			v := k.NewVar(name, t)
			v.Temp = true
			return v
		}
	}
}

// Lookup finds a variable by name (nil if none).
func (k *Kernel) Lookup(name string) *Var {
	for _, v := range k.Vars {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Walk calls f for every statement in program order, descending into loops (f sees the
// loop before its body). depth is the loop nesting depth of the statement.
func Walk(body []Stmt, f func(s Stmt, depth int)) { walk(body, 0, f) }

func walk(body []Stmt, depth int, f func(Stmt, int)) {
	for _, s := range body {
		f(s, depth)
		switch s := s.(type) {
		case *Loop:
			walk(s.Body, depth+1, f)
		case *If:
			walk(s.Then, depth, f)
			walk(s.Else, depth, f)
		}
	}
}
