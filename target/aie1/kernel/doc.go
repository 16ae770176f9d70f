// Package kernel is the AIE1 kernel IR: what an AI Engine kernel written in C++ with intrinsics
// says, as data.
//
// A Kernel has typed parameters (windows, pointers, scalars) and a body of statements. A
// statement is either an Instr (one operation in three-address form: an Op, an optional
// destination variable and operands that are variables or immediates) or a structured Loop
// (a C `for` with a known or computed trip count and the chess pragmas
// chess_prepare_for_pipelining / chess_loop_range). Variables are mutable, like the C++
// variables they come from (`ar0 = upd_w(ar0, 0, ...)` reads and writes ar0); each has one
// of the types in types.go: scalar, vector, accumulator, pointer or window.
//
// Operands of intrinsics appear in the order of the C++ intrinsic's signature (AIE intrinsics
// reference, e.g. group vect_mult_16x16), so the front end and the emitter map calls 1:1.
// ResultType gives the type rule of every op; Validate checks a whole kernel.
//
// The exact semantics of every op (sem_*.go) are functions on fixed-size values (Vec, Acc)
// that never allocate, shared by the interpreter (package target/aie1/interp) and the cycle simulator.
package kernel
