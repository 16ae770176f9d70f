package cfront

// The syntax tree of the C++ subset that AIE kernel authors write. It keeps what the source
// says (including the positions of every name, for error messages); meaning is given by the
// lowering to the kernel IR (lower.go).

// TypeName is a type as written: a base name ("v16int16", "unsigned int",
// "input_window_int16", ...) and a pointer depth.
type TypeName struct {
	Pos      Pos
	Base     string
	Ptr      int  // number of '*'
	Const    bool // a const qualifier was written
	Restrict bool // __restrict was written
}

func (t *TypeName) String() string {
	s := t.Base
	for i := 0; i < t.Ptr; i++ {
		s += "*"
	}
	return s
}

// Expr is an expression.
type Expr interface{ exprPos() Pos }

// Ident is a use of a name.
type Ident struct {
	Pos  Pos
	Name string
}

// IntLit is an integer literal. Text is as written (0x73727170, 4u, ...).
type IntLit struct {
	Pos      Pos
	Text     string
	Value    uint64
	Unsigned bool // a u/U suffix, or a hex/octal value that does not fit in int
}

// Unary is a prefix operator: - + ! ~ * (dereference) & (address of) ++ --.
type Unary struct {
	Pos Pos
	Op  string
	X   Expr
}

// Postfix is x++ or x--.
type Postfix struct {
	Pos Pos
	Op  string
	X   Expr
}

// Binary is x op y for the arithmetic, shift, comparison, bitwise and logical operators.
type Binary struct {
	Pos  Pos // of the operator
	Op   string
	X, Y Expr
}

// Assign is x = y or a compound assignment (+=, -=, ...).
type Assign struct {
	Pos  Pos // of the operator
	Op   string
	L, R Expr
}

// Call is a call of a named function: an intrinsic, a window function, or operator+.
type Call struct {
	Pos  Pos // of the function name
	Fun  string
	Args []Expr
	Rpar Pos
}

// Index is x[i].
type Index struct {
	Pos   Pos // of '['
	X     Expr
	Index Expr
}

// Cast is (type) x.
type Cast struct {
	Pos  Pos // of '('
	Type *TypeName
	X    Expr
}

// Paren is (x); kept so the emitter and error messages can follow the source.
type Paren struct {
	Pos Pos
	X   Expr
}

// Cond is c ? x : y.
type Cond struct {
	Pos     Pos
	C, X, Y Expr
}

func (e *Ident) exprPos() Pos   { return e.Pos }
func (e *IntLit) exprPos() Pos  { return e.Pos }
func (e *Unary) exprPos() Pos   { return e.Pos }
func (e *Postfix) exprPos() Pos { return e.X.exprPos() }
func (e *Binary) exprPos() Pos  { return e.X.exprPos() }
func (e *Assign) exprPos() Pos  { return e.L.exprPos() }
func (e *Call) exprPos() Pos    { return e.Pos }
func (e *Index) exprPos() Pos   { return e.X.exprPos() }
func (e *Cast) exprPos() Pos    { return e.Pos }
func (e *Paren) exprPos() Pos   { return e.Pos }
func (e *Cond) exprPos() Pos    { return e.C.exprPos() }

// ExprPos returns the position where an expression starts.
func ExprPos(e Expr) Pos { return e.exprPos() }

// Stmt is a statement.
type Stmt interface{ stmtPos() Pos }

// Declarator is one name of a declaration, with its initializer.
type Declarator struct {
	Pos  Pos
	Name string
	Ptr  int // extra '*' written before this name
	Init Expr
}

// DeclStmt declares variables of one type: "v32int16 ar0, ar1;".
type DeclStmt struct {
	Pos   Pos
	Type  *TypeName
	Names []*Declarator
}

// ExprStmt is an expression evaluated for its effect.
type ExprStmt struct {
	Pos Pos
	X   Expr
}

// Pragma is a chess loop pragma written between a for header and its body.
type Pragma struct {
	Pos  Pos
	Name string // chess_prepare_for_pipelining, chess_loop_range, chess_unroll_loop, ...
	Args []Expr // nil where the source leaves an argument empty (chess_loop_range(4, ))
}

// ForStmt is for (init; cond; post) pragmas body.
type ForStmt struct {
	Pos     Pos
	Init    Stmt // *DeclStmt or *ExprStmt or nil
	Cond    Expr
	Post    Expr
	Pragmas []*Pragma
	Body    Stmt
}

// Block is { stmts }.
type Block struct {
	Pos   Pos
	Stmts []Stmt
	Rbr   Pos
}

// EmptyStmt is a lone ';' (for example after a macro whose body ends in ';').
type EmptyStmt struct{ Pos Pos }

func (s *DeclStmt) stmtPos() Pos  { return s.Pos }
func (s *ExprStmt) stmtPos() Pos  { return s.Pos }
func (s *ForStmt) stmtPos() Pos   { return s.Pos }
func (s *Block) stmtPos() Pos     { return s.Pos }
func (s *EmptyStmt) stmtPos() Pos { return s.Pos }

// Param is a function parameter.
type Param struct {
	Pos  Pos
	Type *TypeName
	Name string
}

// FuncDecl is a kernel function definition.
type FuncDecl struct {
	Pos    Pos
	Result string // "void"
	Name   string
	Params []*Param
	Body   *Block
}

// File is a parsed translation unit: the kernel functions it defines.
type File struct {
	Funcs []*FuncDecl
}
