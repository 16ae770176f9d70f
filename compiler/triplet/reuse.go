package triplet

import (
	"fmt"
	"sort"
	"strings"
)

// Node is a reuse-graph node: one distinct access with its element offsets.
type Node struct {
	Access  Access
	Offsets []int
	Lo, Hi  int // smallest and largest offset
}

// Graph is a reuse graph (seed 000 section III-B): an undirected graph over the loads of one
// tensor. For vector loads an edge joins two loads whose address ranges overlap (they have
// elements in common, or interleave as the two channels of a (C/2) block do); for scalar
// operands an edge joins two scalars adjacent in memory.
type Graph struct {
	Tensor string
	Scalar bool
	Nodes  []Node
	Edges  [][2]int
}

// Components returns the connected components (node indices, each sorted; components ordered
// by their lowest offset).
func (g *Graph) Components() [][]int {
	parent := make([]int, len(g.Nodes))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, e := range g.Edges {
		a, b := find(e[0]), find(e[1])
		if a != b {
			parent[a] = b
		}
	}
	groups := map[int][]int{}
	for i := range g.Nodes {
		r := find(i)
		groups[r] = append(groups[r], i)
	}
	var out [][]int
	for _, m := range groups {
		sort.Ints(m)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return g.Nodes[out[i][0]].Lo < g.Nodes[out[j][0]].Lo })
	return out
}

// NewGraph builds the reuse graph of a list of accesses to one tensor (duplicates merge).
func NewGraph(p *Plan, tensor string, accs []Access) *Graph {
	g := &Graph{Tensor: tensor}
	seen := map[string]int{}
	for _, a := range accs {
		if a.Tensor != tensor {
			continue
		}
		offs := p.Offsets(a)
		key := fmt.Sprint(offs)
		if _, ok := seen[key]; ok {
			continue
		}
		g.Scalar = a.Scalar()
		seen[key] = len(g.Nodes)
		lo, hi := offs[0], offs[0]
		for _, o := range offs {
			lo, hi = min(lo, o), max(hi, o)
		}
		g.Nodes = append(g.Nodes, Node{Access: a, Offsets: offs, Lo: lo, Hi: hi})
	}
	for i := range g.Nodes {
		for j := i + 1; j < len(g.Nodes); j++ {
			a, b := g.Nodes[i], g.Nodes[j]
			var edge bool
			if g.Scalar {
				edge = a.Lo-b.Lo == 1 || b.Lo-a.Lo == 1
			} else {
				edge = a.Lo <= b.Hi && b.Lo <= a.Hi
			}
			if edge {
				g.Edges = append(g.Edges, [2]int{i, j})
			}
		}
	}
	return g
}

// JoinAdjacent adds an edge between vector loads that touch end to end, so that adjacent
// vectors become one larger load. The 8-bit datapath needs it: its X operand gathers eight
// 16-element vectors (a channel each) that do not overlap.
func (g *Graph) JoinAdjacent() {
	if g.Scalar {
		return
	}
	for i := range g.Nodes {
		for j := i + 1; j < len(g.Nodes); j++ {
			a, b := g.Nodes[i], g.Nodes[j]
			if a.Hi+1 == b.Lo || b.Hi+1 == a.Lo {
				g.Edges = append(g.Edges, [2]int{i, j})
			}
		}
	}
}

// Buffer is a register operand built from aligned vector loads: Parts loads of LoadElems
// elements each, from element offset Start (relative to the tensor's iteration address),
// covering the accesses in Nodes. A composite buffer (two components, e.g. two input rows in
// one X register) lists a start per part.
type Buffer struct {
	Tensor    string
	Starts    []int // element offset loaded into each part (part i holds [Starts[i], Starts[i]+LoadElems))
	LoadElems int
	Nodes     []int // graph nodes it serves
	ID        int
}

// NoPart marks a part of a composite buffer that is not loaded (never selected).
const NoPart = -1 << 40

// Elems is the buffer's size in elements.
func (b *Buffer) Elems() int { return len(b.Starts) * b.LoadElems }

// Pos returns the position of a tensor element offset inside the buffer (-1 if absent).
func (b *Buffer) Pos(off int) int {
	for i, s := range b.Starts {
		if s != NoPart && off >= s && off < s+b.LoadElems {
			return i*b.LoadElems + off - s
		}
	}
	return -1
}

// Holds reports whether every offset is in the buffer.
func (b *Buffer) Holds(offs []int) bool {
	for _, o := range offs {
		if b.Pos(o) < 0 {
			return false
		}
	}
	return true
}

func (b *Buffer) String() string {
	var parts []string
	for _, s := range b.Starts {
		if s == NoPart {
			parts = append(parts, "-")
			continue
		}
		parts = append(parts, fmt.Sprintf("%d:%d", s, s+b.LoadElems-1))
	}
	return fmt.Sprintf("%s[%s]", b.Tensor, strings.Join(parts, " "))
}

// Buffers turns the components of a graph into aligned loads: each component is covered by
// buffers of loadElems-element parts starting on align-element boundaries, at most maxParts
// parts per buffer (the widest X register, the Z register; Datapath). A node whose range does
// not fit one buffer is an error.
func (g *Graph) Buffers(loadElems, align, maxParts int) ([]*Buffer, error) {
	var out []*Buffer
	for _, comp := range g.Components() {
		nodes := append([]int(nil), comp...)
		sort.Slice(nodes, func(i, j int) bool { return g.Nodes[nodes[i]].Lo < g.Nodes[nodes[j]].Lo })
		var cur *Buffer
		for _, ni := range nodes {
			n := g.Nodes[ni]
			if cur != nil {
				end := cur.Starts[0] + maxParts*loadElems
				if n.Hi < end {
					for cur.Starts[len(cur.Starts)-1]+loadElems <= n.Hi {
						cur.Starts = append(cur.Starts, cur.Starts[len(cur.Starts)-1]+loadElems)
					}
					cur.Nodes = append(cur.Nodes, ni)
					continue
				}
			}
			start := floorDiv(n.Lo, align) * align
			if n.Hi-start >= maxParts*loadElems {
				return nil, fmt.Errorf("%v spans %d elements from an aligned start, more than a %d-element register", n.Access, n.Hi-start+1, maxParts*loadElems)
			}
			cur = &Buffer{Tensor: g.Tensor, Starts: []int{start}, LoadElems: loadElems, Nodes: []int{ni}, ID: len(out)}
			for cur.Starts[len(cur.Starts)-1]+loadElems <= n.Hi {
				cur.Starts = append(cur.Starts, cur.Starts[len(cur.Starts)-1]+loadElems)
			}
			out = append(out, cur)
		}
	}
	return out, nil
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
