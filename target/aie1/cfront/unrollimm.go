package cfront

import "github.com/sumacdev/sumac/target/aie1/kernel"

// macCounter reports whether the counter of a loop appears in the data-selection parameters
// of a MAC intrinsic in the loop's body: its arguments after the accumulator, the X buffer
// and xstart (zstart, the offsets, steps and squares), which must be compile-time constants
// (UG1079 "MAC Intrinsics": zstart "must be a compile time constant"). A loop of constant
// trip count written so (`for (int i = 0; i < KW; i++) acc = fpmac(acc, x, i, 0x76543210,
// w, i, 0);`) compiles only when the compiler unrolls it, so the front end unrolls it as for
// chess_flatten_loop (flattenLoop).
func macCounter(s Stmt, iv string) bool {
	found := false
	var expr func(e Expr, inParam bool)
	expr = func(e Expr, inParam bool) {
		if e == nil || found {
			return
		}
		switch x := e.(type) {
		case *Ident:
			if inParam && x.Name == iv {
				found = true
			}
		case *Call:
			first := len(x.Args)
			if op, _, _, ok := kernel.LookupCall(x.Fun); ok && x.Recv == nil && op.IsMAC() {
				first = 2 // X buffer, xstart
				if op.Info().Acc {
					first = 3
				}
			}
			if x.Recv != nil {
				expr(x.Recv, inParam)
			}
			for i, a := range x.Args {
				expr(a, inParam || i >= first)
			}
		case *Assign:
			expr(x.L, inParam)
			expr(x.R, inParam)
		case *Unary:
			expr(x.X, inParam)
		case *Postfix:
			expr(x.X, inParam)
		case *Binary:
			expr(x.X, inParam)
			expr(x.Y, inParam)
		case *Index:
			expr(x.X, inParam)
			expr(x.Index, inParam)
		case *Cast:
			expr(x.X, inParam)
		case *Paren:
			expr(x.X, inParam)
		case *Cond:
			expr(x.C, inParam)
			expr(x.X, inParam)
			expr(x.Y, inParam)
		case *Member:
			expr(x.X, inParam)
		case *InitList:
			for _, y := range x.Elems {
				expr(y, inParam)
			}
		}
	}
	var stmt func(s Stmt)
	stmt = func(s Stmt) {
		if s == nil || found {
			return
		}
		switch x := s.(type) {
		case *Block:
			for _, y := range x.Stmts {
				stmt(y)
			}
		case *DeclStmt:
			for _, d := range x.Names {
				expr(d.Init, false)
			}
		case *ExprStmt:
			expr(x.X, false)
		case *ForStmt:
			stmt(x.Init)
			expr(x.Cond, false)
			expr(x.Post, false)
			stmt(x.Body)
		case *IfStmt:
			expr(x.Cond, false)
			stmt(x.Then)
			stmt(x.Else)
		}
	}
	stmt(s)
	return found
}
