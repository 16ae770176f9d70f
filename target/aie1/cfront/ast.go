package cfront

// The syntax tree of the C++ that AIE kernel authors write. It keeps what the source says
// (including the positions of every name, for error messages); meaning is given by the
// lowering to the kernel IR (lower.go).

// TypeName is a type as written: a base name ("v16int16", "unsigned int", "input_window",
// "aie::vector", "adf::input_buffer", ...) with its template arguments, pointer depth,
// reference and array dimensions.
type TypeName struct {
	Pos      Pos
	Base     string
	Args     []*TArg // template arguments: input_window<int16>, aie::vector<float, 8>
	Ptr      int     // number of '*'
	Ref      bool    // '&' (buffer ports, array-reference parameters)
	Const    bool    // a const qualifier was written
	Restrict bool    // __restrict was written
	Static   bool    // static storage
	Dims     []Expr  // array dimensions of a declarator: T x[4][8]; nil entry: T x[]
}

// TArg is a template argument: a type or an expression.
type TArg struct {
	Type *TypeName
	Expr Expr
}

func (t *TypeName) String() string {
	s := t.Base
	if len(t.Args) > 0 {
		s += "<...>"
	}
	for i := 0; i < t.Ptr; i++ {
		s += "*"
	}
	if t.Ref {
		s += "&"
	}
	return s
}

// Expr is an expression.
type Expr interface{ exprPos() Pos }

// Ident is a use of a name; Name may be qualified (aie::zeros). TArgs are explicit template
// arguments (aie::zeros<float, 8>, std::numeric_limits<float>).
type Ident struct {
	Pos   Pos
	Name  string
	TArgs []*TArg
	HasTA bool // template arguments were written (possibly none: f<>)
}

// IntLit is an integer literal. Text is as written (0x73727170, 4u, 'a', ...).
type IntLit struct {
	Pos      Pos
	Text     string
	Value    uint64
	Unsigned bool // a u/U suffix, or a hex/octal value that does not fit in int
}

// FloatLit is a floating-point literal (0.5f, 1e-3); the subset computes in float.
type FloatLit struct {
	Pos   Pos
	Text  string
	Value float32
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

// Call is a call of a named function (an intrinsic, a window function, an AIE API function,
// operator+) or of a member function (Recv.Fun(...)).
type Call struct {
	Pos   Pos // of the function name
	Fun   string
	TArgs []*TArg // explicit template arguments: aie::load_v<8>(p)
	HasTA bool
	Recv  Expr // the object of a member call, nil for a free function
	Arrow bool // Recv->Fun
	Args  []Expr
	Rpar  Pos
}

// Member is x.name or x->name (a data member).
type Member struct {
	Pos   Pos // of the '.' or '->'
	X     Expr
	Name  string
	Arrow bool
}

// Index is x[i].
type Index struct {
	Pos   Pos // of '['
	X     Expr
	Index Expr
}

// Cast is (type) x, or a named cast static_cast<type>(x) (Named holds the keyword).
type Cast struct {
	Pos   Pos // of '('
	Type  *TypeName
	X     Expr
	Named string
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

// InitList is a braced initializer { a, b, ... }.
type InitList struct {
	Pos   Pos
	Elems []Expr
}

// SizeOf is sizeof(type) or sizeof expr.
type SizeOf struct {
	Pos  Pos
	Type *TypeName
	X    Expr
}

func (e *Ident) exprPos() Pos    { return e.Pos }
func (e *IntLit) exprPos() Pos   { return e.Pos }
func (e *FloatLit) exprPos() Pos { return e.Pos }
func (e *Unary) exprPos() Pos    { return e.Pos }
func (e *Postfix) exprPos() Pos  { return e.X.exprPos() }
func (e *Binary) exprPos() Pos   { return e.X.exprPos() }
func (e *Assign) exprPos() Pos   { return e.L.exprPos() }
func (e *Call) exprPos() Pos {
	if e.Recv != nil {
		return e.Recv.exprPos()
	}
	return e.Pos
}
func (e *Member) exprPos() Pos   { return e.X.exprPos() }
func (e *Index) exprPos() Pos    { return e.X.exprPos() }
func (e *Cast) exprPos() Pos     { return e.Pos }
func (e *Paren) exprPos() Pos    { return e.Pos }
func (e *Cond) exprPos() Pos     { return e.C.exprPos() }
func (e *InitList) exprPos() Pos { return e.Pos }
func (e *SizeOf) exprPos() Pos   { return e.Pos }

// ExprPos returns the position where an expression starts.
func ExprPos(e Expr) Pos { return e.exprPos() }

// Stmt is a statement.
type Stmt interface{ stmtPos() Pos }

// Declarator is one name of a declaration, with its initializer.
type Declarator struct {
	Pos  Pos
	Name string
	Ptr  int    // extra '*' written before this name
	Ref  bool   // '&' before this name
	Dims []Expr // array dimensions written after the name
	Init Expr   // = x, = {..}, {..} or (args) (then an InitList with Paren set)
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

// Pragma is a chess pragma or attribute: written between a for header and its body
// (chess_prepare_for_pipelining, chess_loop_range(4, )), as a C++ attribute before a loop
// ([[chess::min_loop_count(4)]]), or as a statement (chess_separator_scheduler()).
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

// IfStmt is if (cond) then [else els]. Constexpr marks `if constexpr`.
type IfStmt struct {
	Pos       Pos
	Cond      Expr
	Then      Stmt
	Else      Stmt // nil without else
	Constexpr bool
}

// ReturnStmt is return [x];
type ReturnStmt struct {
	Pos Pos
	X   Expr
}

// PragmaStmt is a chess directive used as a statement: chess_separator_scheduler(), or a
// pragma attribute that applies to the next statement.
type PragmaStmt struct {
	Pos    Pos
	Pragma *Pragma
}

// Block is { stmts }.
type Block struct {
	Pos   Pos
	Stmts []Stmt
	Rbr   Pos
}

// EmptyStmt is a lone ';' (for example after a macro whose body ends in ';').
type EmptyStmt struct{ Pos Pos }

func (s *DeclStmt) stmtPos() Pos   { return s.Pos }
func (s *ExprStmt) stmtPos() Pos   { return s.Pos }
func (s *ForStmt) stmtPos() Pos    { return s.Pos }
func (s *IfStmt) stmtPos() Pos     { return s.Pos }
func (s *ReturnStmt) stmtPos() Pos { return s.Pos }
func (s *PragmaStmt) stmtPos() Pos { return s.Pos }
func (s *Block) stmtPos() Pos      { return s.Pos }
func (s *EmptyStmt) stmtPos() Pos  { return s.Pos }

// Param is a function parameter.
type Param struct {
	Pos  Pos
	Type *TypeName
	Name string
}

// FuncDecl is a function definition: a kernel function, a kernel class's member function
// (Class is the class, as instantiated), or a helper.
type FuncDecl struct {
	Pos    Pos
	Result *TypeName
	Name   string
	Class  string // for Class::Name definitions
	Params []*Param
	Body   *Block
}

// File is a parsed translation unit after instantiation: the kernel function (or member
// function) chosen and what it refers to.
type File struct {
	Funcs []*FuncDecl
	// Kernel is the function to lower (nil: the file's only function).
	Kernel *FuncDecl
	// Class is the kernel class the function belongs to (nil for a free function).
	Class *ClassDecl
	// Globals are the file-scope variables, in order.
	Globals []*DeclStmt
	// Files are the local headers the preprocessor read; Notes the ignored constructs.
	Files []string
	Notes []string
	// Instance is the kernel as the emulation harness names it ("MacFloat<float, 28, 128, 1>",
	// "SecondOrderSection<1>", or the function name) and CtorArgs the constructor arguments.
	Instance string
	CtorArgs []Expr
	helpers  []*helper
}

// ClassDecl is a (possibly instantiated) kernel class.
type ClassDecl struct {
	Pos     Pos
	Name    string // as instantiated: MacFloat<float, 28, 128, 1>
	Fields  []*Field
	Ctors   []*Ctor
	Methods []*FuncDecl
	// Registered is the member REGISTER_FUNCTION names; Params the REGISTER_PARAMETER names.
	Registered string
	Params     []string
}

// Field is a data member.
type Field struct {
	Decl *DeclStmt
}

// Ctor is a constructor: its parameters, member initializers and body.
type Ctor struct {
	Pos    Pos
	Params []*Param
	Inits  []*MemberInit
	Body   *Block
}

// MemberInit is one entry of a constructor's member initializer list: name(args) or name{args}.
type MemberInit struct {
	Pos  Pos
	Name string
	Args []Expr
}
