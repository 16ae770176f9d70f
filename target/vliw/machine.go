// Package vliw is the generation-neutral VLIW layer of sumac's AI Engine targets: machine
// descriptions as data (issue slots, bundle formats, register files and their aliased views,
// data-memory banks, hardware-loop rules), the bundle program representation, the reader of
// the assembly syntax the public hand-written kernels use, a cycle engine that executes
// bundles with exposed pipelines (no interlocks: a read sees whatever has landed in the
// register by then) and rejects hazards, and the modulo-scheduling helpers the kernel
// generators share.
//
// What an operation does is not known here: an ISA (package xdna for the AIE2 family)
// supplies each mnemonic's slots and its semantics as functions of pipeline stages, and a
// Machine supplies the numbers. The engine only knows stages, bytes, banks and loops.
package vliw

import (
	"fmt"
	"sort"
	"strings"
)

// Slot is one issue slot of a VLIW bundle.
type Slot struct {
	Name   string   // LLVM's name (lda, ldb, st, alu, mv, lng, vec)
	Bits   int      // encoding width in bits
	Nop    string   // the assembly no-op that fills the slot (nopa, nopb, ...)
	Covers []string // slots this one occupies as well (lng = alu + mv); nil: just itself
}

// Format is one bundle encoding: a byte size and the slots it can carry.
type Format struct {
	Bytes int
	Slots []string
}

// RegFile is one physical register file: Count registers of Bytes bytes each.
type RegFile struct {
	Name  string
	Count int
	Bytes int
}

// Loc is a run of bytes in one register file's storage (file index, byte offset, length).
type Loc struct{ File, Off, Len int }

// Reg is a named register: a view onto bytes of one or more files, in the order the view's
// bytes are numbered (an aliased wider or narrower name is just another view).
type Reg struct {
	Name  string
	Class string // e.g. "r", "p", "x", "ex", "dm", "bm"
	Locs  []Loc
	Bytes int
}

// Overlaps reports whether two views share a byte.
func (r *Reg) Overlaps(o *Reg) bool {
	for _, a := range r.Locs {
		for _, b := range o.Locs {
			if a.File == b.File && a.Off < b.Off+b.Len && b.Off < a.Off+a.Len {
				return true
			}
		}
	}
	return false
}

func (r *Reg) String() string { return r.Name }

// LoopRule is the distance the zero-overhead loop's set-up (writes of ls, le, lc) must keep.
type LoopRule struct {
	// MinBytesToStart: bytes from the set-up bundle's address to the loop's first bundle.
	MinBytesToStart int
	// MinBytesToEnd: bytes from the set-up bundle's address to the loop's last bundle.
	MinBytesToEnd int
	Source        string // which source the rule follows
}

// Machine is a machine description. Build one with NewMachine and the Add* methods.
type Machine struct {
	Name     string
	Slots    []Slot
	Formats  []Format
	NopBytes int // size of a bundle holding no operation
	// LoopEndBytes is the size the last bundle of a hardware loop must have (0: any).
	LoopEndBytes int
	LoopAlign    int // loop start and end bundles sit on this alignment (bytes; 0: none)
	Files        []RegFile
	Loop         LoopRule
	// BranchDelay is the number of bundles a jump or return executes after itself.
	BranchDelay int
	MemBytes    int // data memory the core addresses (bytes)
	BankBytes   int // bytes per memory bank: accesses to one bank in one cycle conflict
	ClockGHz    float64

	regs     []*Reg
	byName   map[string]*Reg
	slotIdx  map[string]int
	fileIdx  map[string]int
	formatOK map[string]int // cache: sorted slot set -> bytes
}

// NewMachine starts a description.
func NewMachine(name string) *Machine {
	return &Machine{Name: name, byName: map[string]*Reg{}, slotIdx: map[string]int{}, fileIdx: map[string]int{}, formatOK: map[string]int{}}
}

// AddSlot adds an issue slot.
func (m *Machine) AddSlot(s Slot) {
	m.slotIdx[s.Name] = len(m.Slots)
	m.Slots = append(m.Slots, s)
}

// SlotByName returns a slot.
func (m *Machine) SlotByName(name string) (Slot, bool) {
	i, ok := m.slotIdx[name]
	if !ok {
		return Slot{}, false
	}
	return m.Slots[i], true
}

// AddFile adds a register file and returns its index.
func (m *Machine) AddFile(name string, count, bytes int) int {
	m.fileIdx[name] = len(m.Files)
	m.Files = append(m.Files, RegFile{Name: name, Count: count, Bytes: bytes})
	return len(m.Files) - 1
}

// File returns a file's index (-1 if absent).
func (m *Machine) File(name string) int {
	if i, ok := m.fileIdx[name]; ok {
		return i
	}
	return -1
}

// AddReg adds a named view. Names are case-insensitive.
func (m *Machine) AddReg(name, class string, locs ...Loc) *Reg {
	n := 0
	for _, l := range locs {
		n += l.Len
	}
	r := &Reg{Name: strings.ToLower(name), Class: class, Locs: locs, Bytes: n}
	if _, dup := m.byName[r.Name]; dup {
		panic("vliw: register " + r.Name + " defined twice") // description bug
	}
	m.byName[r.Name] = r
	m.regs = append(m.regs, r)
	return r
}

// AddRegs adds count registers prefix0..prefixN-1 each covering one whole register of a file.
func (m *Machine) AddRegs(prefix, class, file string) {
	f := m.fileIdx[file]
	for i := 0; i < m.Files[f].Count; i++ {
		m.AddReg(fmt.Sprintf("%s%d", prefix, i), class, Loc{File: f, Off: i * m.Files[f].Bytes, Len: m.Files[f].Bytes})
	}
}

// AddParts adds views that split each register of a file into equal parts named by suffixes
// (e.g. file x, parts "wl","wh" gives wl0 = x0 bytes 0..31, wh0 = x0 bytes 32..63).
func (m *Machine) AddParts(file, class string, names []string) {
	f := m.fileIdx[file]
	rb := m.Files[f].Bytes
	pb := rb / len(names)
	for i := 0; i < m.Files[f].Count; i++ {
		for j, nm := range names {
			m.AddReg(fmt.Sprintf("%s%d", nm, i), class, Loc{File: f, Off: i*rb + j*pb, Len: pb})
		}
	}
}

// Reg looks a register up by name.
func (m *Machine) Reg(name string) (*Reg, bool) {
	r, ok := m.byName[strings.ToLower(name)]
	return r, ok
}

// MustReg looks a register up and panics if the description lacks it (generator use).
func (m *Machine) MustReg(name string) *Reg {
	r, ok := m.Reg(name)
	if !ok {
		panic("vliw: " + m.Name + " has no register " + name)
	}
	return r
}

// Regs returns every named view.
func (m *Machine) Regs() []*Reg { return m.regs }

// FormatBytes returns the size of the smallest format that carries operations in the given
// slots (slot names; an empty set is a no-op bundle), or an error if no format does.
func (m *Machine) FormatBytes(slots []string) (int, error) {
	if len(slots) == 0 {
		return m.NopBytes, nil
	}
	s := append([]string(nil), slots...)
	sort.Strings(s)
	key := strings.Join(s, "+")
	if b, ok := m.formatOK[key]; ok {
		if b < 0 {
			return 0, fmt.Errorf("no %s bundle format carries the slots %s", m.Name, key)
		}
		return b, nil
	}
	best := -1
	for _, f := range m.Formats {
		if best >= 0 && f.Bytes >= best {
			continue
		}
		if containsAll(f.Slots, s) {
			best = f.Bytes
		}
	}
	m.formatOK[key] = best
	if best < 0 {
		return 0, fmt.Errorf("no %s bundle format carries the slots %s", m.Name, key)
	}
	return best, nil
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		ok := false
		for _, h := range have {
			if h == w {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// Bank returns the memory bank of a byte address.
func (m *Machine) Bank(addr int) int { return addr / m.BankBytes }
