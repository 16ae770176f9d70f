package kernel

import (
	"fmt"
	"strings"
)

// String prints the kernel as C-like pseudo code, one instruction a line (for debugging
// and test failures; the C++ emitter is package target/aie1/cemit).
func (k *Kernel) String() string {
	var sb strings.Builder
	var ps []string
	for _, p := range k.Params {
		ps = append(ps, p.Type.String()+" "+p.Name)
	}
	fmt.Fprintf(&sb, "kernel %s(%s) {\n", k.Name, strings.Join(ps, ", "))
	for _, v := range k.Vars {
		switch {
		case v.Storage != nil:
			fmt.Fprintf(&sb, "  %v %s[%d]; // %v array\n", v.Type.Pointee(), v.Name, v.Storage.Bytes/v.Type.Pointee().Bytes(), v.Storage.Kind)
		case !v.Param:
			fmt.Fprintf(&sb, "  %v %s;\n", v.Type, v.Name)
		}
	}
	printBody(&sb, k.Body, 1)
	sb.WriteString("}\n")
	return sb.String()
}

func printBody(sb *strings.Builder, body []Stmt, depth int) {
	ind := strings.Repeat("  ", depth)
	for _, s := range body {
		switch s := s.(type) {
		case *Instr:
			sb.WriteString(ind + s.String() + "\n")
		case *Loop:
			iv := "_"
			if s.Var != nil {
				iv = s.Var.Name
			}
			var pr []string
			if s.Pipelined {
				pr = append(pr, "chess_prepare_for_pipelining")
			}
			if s.HasRange {
				mx := ""
				if s.RangeMax != 0 {
					mx = fmt.Sprint(s.RangeMax)
				}
				pr = append(pr, fmt.Sprintf("chess_loop_range(%d,%s)", s.RangeMin, mx))
			}
			fmt.Fprintf(sb, "%sfor (%s = %v; %s %v %v; %s += %v) %s{\n", ind, iv, s.Start, iv, s.Cmp, s.Limit, iv, s.Step, strings.Join(append(pr, ""), " "))
			printBody(sb, s.Body, depth+1)
			sb.WriteString(ind + "}\n")
		case *If:
			fmt.Fprintf(sb, "%sif (%v) {\n", ind, s.Cond)
			printBody(sb, s.Then, depth+1)
			if len(s.Else) > 0 {
				sb.WriteString(ind + "} else {\n")
				printBody(sb, s.Else, depth+1)
			}
			sb.WriteString(ind + "}\n")
		}
	}
}

// String prints one instruction as pseudo code.
func (in *Instr) String() string {
	var args []string
	for _, a := range in.Args {
		args = append(args, a.String())
	}
	var rhs string
	switch {
	case in.Op == OpMov:
		rhs = strings.Join(args, ", ")
	case in.Op.IsUnary() && len(args) == 1:
		sym := in.Op.Info().Name
		if in.Op == OpNeg {
			sym = "-"
		}
		rhs = sym + args[0]
	case in.Op.IsScalarArith() && len(args) == 2:
		rhs = args[0] + " " + in.Op.Info().Name + " " + args[1]
	case in.Op == OpSelect && len(args) == 3:
		rhs = args[0] + " ? " + args[1] + " : " + args[2]
	default:
		name := in.Op.Info().Name
		if in.Dst != nil {
			if n := CallName(in.Op, in.Dst.Type); n != "" {
				name = n
			}
		}
		rhs = name + "(" + strings.Join(args, ", ") + ")"
	}
	if in.Dst != nil {
		return in.Dst.Name + " = " + rhs + ";"
	}
	return rhs + ";"
}
