package interp

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Config is the input of a run.
type Config struct {
	// Data is the initial contents of windows and pointer buffers by parameter name; a
	// region longer than its data is zero-filled.
	Data map[string][]byte
	// Sizes gives region sizes in bytes; by default the length of Data[name].
	Sizes map[string]int
	// Scalars are the values of scalar parameters (a float parameter: math.Float32bits).
	Scalars map[string]int64
	// Round and Sat are the shift-round-saturate modes of srs/lsrs/bsrs/ubsrs. The zero
	// values are num.Floor, the tile's reset rounding (UG1079 "Rounding and Saturation
	// Modes"), and num.Saturate, sumac's default narrowing (package num).
	Round num.Round
	Sat   num.Sat
	// MaxSteps bounds the number of executed instructions (0: 2e9).
	MaxSteps int64
	// OnNarrow, if set, is called before every srs/lsrs/bsrs/ubsrs with the accumulator
	// lanes it narrows, in execution order (the accumulators "before narrowing"). The slice
	// is reused: copy it to keep it.
	OnNarrow func(in *kernel.Instr, lanes []num.Acc)
	// CycleReads are the values successive reads of the cycle counter return (the cycle
	// simulator's, so that a kernel that stores them computes what the hardware would); reads
	// past the end return 0.
	CycleReads []int64

	limit int // memory limit in bytes (Measure raises it)
}

// UninitRead is a variable read before any write; it read as zero.
type UninitRead struct {
	Var  string
	Type kernel.Type
	Pos  kernel.Pos // the first instruction that read it
}

func (u UninitRead) String() string {
	if u.Pos.IsValid() {
		return fmt.Sprintf("%v: %s (%v) read before written, taken as zero", u.Pos, u.Var, u.Type)
	}
	return fmt.Sprintf("%s (%v) read before written, taken as zero", u.Var, u.Type)
}

// Result is the outcome of a run.
type Result struct {
	Regions []Region
	// Data is the final contents of every region by parameter name.
	Data map[string][]byte
	// Accs holds the final value of every accumulator variable that was written, by name
	// (its lanes; fpmac accumulators are v8float vectors and appear in Vectors).
	Accs map[string][]num.Acc
	// Vectors holds the final value of every vector variable that was written.
	Vectors map[string][]byte
	// MACs counts multiplications issued: lanes x columns of every executed mul/mac/msc,
	// whether or not a column's operands are useful (sumac cannot know which are).
	MACs int64
	// MACOps counts executed MAC instructions.
	MACOps int64
	// Uninit lists variables read before being written (each once, in order of the read).
	Uninit []UninitRead
	// Narrowed and Saturated count lanes through srs/lsrs/bsrs/ubsrs and how many of them
	// saturation changed.
	Narrowed, Saturated int64
	// Steps is the number of executed instructions.
	Steps int64
	// Extent is, per region, the end (exclusive byte offset) of the furthest access; per
	// stream, the bytes read or written.
	Extent map[string]int
	// CycleReads counts reads of the cycle counter.
	CycleReads int
	// Wrapped lists the windows whose position wrapped around their end (ADF windows are
	// circular).
	Wrapped []string
	// OutsideReads lists the loads that read bytes outside their window or buffer, one
	// entry per instruction (its first such read), in order of that first read.
	OutsideReads []OutsideRead
}

// OutsideRead is a load that read bytes outside its window or buffer but inside the data
// memory the core reaches. The load units address all 128 KB of the four memory modules
// around the core (AM009 "Load and Store Unit": addresses 0x0000 to 0x1FFFF) and nothing in
// them knows a buffer's bounds (UG1603 "Load and Store Using Pointers": with pointers,
// avoiding out-of-bound accesses is the designer's responsibility), so such a load returns
// whatever the memory holds at those addresses. sumac's memory image holds every window and
// buffer where Place put it and zeros everywhere else: the harness lays the g++ emulation's
// buffers out at the same addresses in an image of the same size, and the cycle simulator
// starts from the same image, so the three read the same bytes. A write outside its region
// stays an error, and so does a read of bytes that belong to an array with storage of its
// own (a local, static or global array: where the vendor's linker puts it is not modelled,
// and the g++ emulation keeps it outside the image).
type OutsideRead struct {
	Pos    kernel.Pos
	Access string // the access, e.g. "load v8float at b_ptr[8]"
	Region string // the window or buffer the pointer points into
	Kind   string // "window", "buffer"
	Size   int    // its size in bytes
	// Off and End are the bytes read, relative to the region's start (either may lie
	// outside [0, Size)); Addr is the absolute address of the first.
	Off, End int64
	Addr     int64
	// Holds says what the bytes outside the region held: other regions' bytes or zeros.
	Holds string
	// Count is the number of times the instruction read outside its region.
	Count int64
}

func (o OutsideRead) String() string {
	var out string
	switch {
	case o.Off < 0 && o.End > int64(o.Size):
		out = fmt.Sprintf("bytes [%d, 0) and [%d, %d)", o.Off, o.Size, o.End)
	case o.Off < 0:
		out = fmt.Sprintf("bytes [%d, %d)", o.Off, min(o.End, 0))
	default:
		out = fmt.Sprintf("bytes [%d, %d)", max(o.Off, int64(o.Size)), o.End)
	}
	s := fmt.Sprintf("%s reads bytes [%d, %d) of %s %s (%d bytes, at 0x%x): %s are outside it; the hardware returns what memory holds there, here %s",
		o.Access, o.Off, o.End, o.Kind, o.Region, o.Size, o.Addr-o.Off, out, o.Holds)
	if o.Count > 1 {
		s += fmt.Sprintf(" (%d such reads by this instruction)", o.Count)
	}
	if o.Pos.IsValid() {
		return o.Pos.String() + ": " + s
	}
	return s
}

// Error is a run-time error at an instruction (out-of-region access, misalignment,
// division by zero, a bad intrinsic parameter, the step limit).
type Error struct {
	Pos kernel.Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos.IsValid() {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Msg
}

// Run compiles and runs k once.
func Run(k *kernel.Kernel, cfg Config) (*Result, error) {
	p, err := Compile(k)
	if err != nil {
		return nil, err
	}
	return p.Run(cfg)
}

// Measure runs k with every window and buffer whose size cfg does not give made large
// (1 MB each, placed beyond the 128 KB limit), and returns the extent of each region
// actually used: the sizes that "what the kernel consumes" implies. Reads of those regions
// see zeros.
func Measure(k *kernel.Kernel, cfg Config) (map[string]int, error) {
	p, err := Compile(k)
	if err != nil {
		return nil, err
	}
	const big = 1 << 20
	sizes := map[string]int{}
	for n, s := range cfg.Sizes {
		sizes[n] = s
	}
	for _, prm := range k.Params {
		if prm.Array > 0 && prm.Port != kernel.PortPointer {
			continue // an array parameter or a buffer with extents: its size is declared
		}
		if prm.Type.IsWindow() || prm.Type.IsPointer() || prm.Type.IsStream() && !prm.Type.Out {
			if _, ok := sizes[prm.Name]; !ok {
				sizes[prm.Name] = big
			}
		}
	}
	cfg.Sizes = sizes
	cfg.limit = (len(k.Params) + 1) * big
	r, err := p.Run(cfg)
	if err != nil {
		return nil, err
	}
	return r.Extent, nil
}

// machine state of one run
type machine struct {
	p       *Program
	cfg     *Config
	ints    []int64 // scalar, pointer and window-position slots (floats as float32 bits)
	ptrReg  []int32 // region of a pointer slot (-1: none)
	vecs    []kernel.Vec
	accs    []kernel.AccVal
	written []bool // by variable ID
	mem     []byte
	regs    []Region
	extent  []int
	round   num.Round
	sat     num.Sat
	res     *Result
	narrow  [16]num.Acc
	streams []stream // by stream slot value
	cycles  int
	wrapped map[string]bool
	pending map[int32]bool  // window slots whose position wrapped since their last access
	outside map[*cinstr]int // instructions that read outside their region: index in res.OutsideReads
}

// stream is one stream parameter: input bytes and a read position, or output bytes.
type stream struct {
	name string
	data []byte
	pos  int
	out  bool
}

func (m *machine) fail(ci *cinstr, format string, a ...any) error {
	var pos kernel.Pos
	if ci != nil && ci.src != nil {
		pos = ci.src.Pos
	}
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, a...)}
}

// use marks a read of variable id; a never-written variable is reported once.
func (m *machine) use(id int32, ci *cinstr) {
	if m.written[id] {
		return
	}
	m.written[id] = true // report once; the value stays zero
	v := m.p.k.Vars[id]
	var pos kernel.Pos
	if ci != nil && ci.src != nil {
		pos = ci.src.Pos
	}
	m.res.Uninit = append(m.res.Uninit, UninitRead{Var: v.Name, Type: v.Type, Pos: pos})
}

// scalar reads a scalar operand as an integer of its own type (floats: their bits).
func (m *machine) scalar(o *operand, ci *cinstr) int64 {
	if o.imm {
		return o.val
	}
	m.use(o.id, ci)
	return m.ints[o.slot]
}

// numAs reads a scalar operand converted to computation type ct (Int32, UInt32 or Float32);
// the result is an integer, or float32 bits for Float32.
func (m *machine) numAs(o *operand, ct kernel.Elem, ci *cinstr) int64 {
	if o.imm {
		return kernel.Convert(o.val, o.elem, ct) // o.elem: Int32 or Float32
	}
	m.use(o.id, ci)
	return kernel.Convert(m.ints[o.slot], o.elem, ct)
}

// setScalar stores v (of computation type from, integer or float bits) into a scalar slot
// of type to, converting as C assignment does.
func setScalar(dst *int64, v int64, from, to kernel.Elem) {
	*dst = kernel.Convert(v, from, to)
}

func (m *machine) vec(o *operand, ci *cinstr) *kernel.Vec {
	m.use(o.id, ci)
	return &m.vecs[o.slot]
}

func (m *machine) acc(o *operand, ci *cinstr) *kernel.AccVal {
	m.use(o.id, ci)
	return &m.accs[o.slot]
}

// memLimit is the size of a run's memory image: the 128 KB the core reaches (target/aie1
// ReachBytes), or the larger limit of a measuring run.
func memLimit(limit int) int {
	return max(limit, aie1.ReachBytes)
}

// access checks a memory access of n bytes at absolute address addr in region r; load says
// whether it reads. what describes the access for a message; it is called only then. A load
// that leaves its region but stays inside the memory image reads the image (OutsideRead).
func (m *machine) access(ci *cinstr, what func() string, r int32, addr int64, n int, align int, load bool) error {
	if r < 0 {
		return m.fail(ci, "%s through a pointer that points into no window or buffer", what())
	}
	reg := &m.regs[r]
	off := addr - int64(reg.Addr)
	if off < 0 || off+int64(n) > int64(reg.Size) {
		if !load || addr < 0 || addr+int64(n) > int64(memLimit(m.cfg.limit)) {
			return m.fail(ci, "%s: bytes [%d, %d) are outside %s %s (%d bytes)", what(), off, off+int64(n), kindName(reg), reg.Name, reg.Size)
		}
		if err := m.outsideRead(ci, what, r, addr, n); err != nil {
			return err
		}
	}
	if align > 1 && addr%int64(align) != 0 {
		return m.fail(ci, "%s: address 0x%x (offset %d in %s) is not %d-byte aligned (AIE vector loads and stores are 128-bit aligned)", what(), addr, off, reg.Name, align)
	}
	if e := min(int(off)+n, reg.Size); e > m.extent[r] {
		m.extent[r] = e
	}
	return nil
}

// outsideRead admits a load of bytes [addr, addr+n) that leaves region r, inside the memory
// image, and notes it (once per instruction, with a count); it fails when the region is an
// array with storage of its own or the bytes outside it belong to one (OutsideRead).
func (m *machine) outsideRead(ci *cinstr, what func() string, r int32, addr int64, n int) error {
	reg := &m.regs[r]
	off := addr - int64(reg.Addr)
	if i, ok := m.outside[ci]; ok {
		m.res.OutsideReads[i].Count++
		return nil
	}
	if reg.Storage {
		return m.fail(ci, "%s: bytes [%d, %d) are outside array %s (%d bytes); sumac reads past windows and buffers only (where the linker puts an array with storage of its own, and what lies next to it, is not modelled)", what(), off, off+int64(n), reg.Name, reg.Size)
	}
	var holds []string
	zeros := int64(0)
	for a := addr; a < addr+int64(n); {
		if a >= int64(reg.Addr) && a < int64(reg.Addr)+int64(reg.Size) {
			a = int64(reg.Addr) + int64(reg.Size)
			continue
		}
		q := m.regionAt(a)
		if q < 0 {
			zeros++
			a++
			continue
		}
		o := &m.regs[q]
		if o.Storage {
			return m.fail(ci, "%s: bytes [%d, %d) are outside %s %s (%d bytes) and read array %s, whose place in data memory sumac does not model (the linker puts an array with storage of its own)", what(), off, off+int64(n), kindName(reg), reg.Name, reg.Size, o.Name)
		}
		e := min(addr+int64(n), int64(o.Addr)+int64(o.Size))
		holds = append(holds, fmt.Sprintf("bytes [%d, %d) of %s %s", a-int64(o.Addr), e-int64(o.Addr), kindName(o), o.Name))
		a = e
	}
	if zeros > 0 {
		holds = append(holds, fmt.Sprintf("%d zero bytes (no window or buffer there)", zeros))
	}
	if m.outside == nil {
		m.outside = map[*cinstr]int{}
	}
	m.outside[ci] = len(m.res.OutsideReads)
	var pos kernel.Pos
	if ci != nil && ci.src != nil {
		pos = ci.src.Pos
	}
	m.res.OutsideReads = append(m.res.OutsideReads, OutsideRead{Pos: pos, Access: what(), Region: reg.Name, Kind: kindName(reg),
		Size: reg.Size, Off: off, End: off + int64(n), Addr: addr, Holds: strings.Join(holds, ", "), Count: 1})
	return nil
}

// regionAt is the region holding byte a (-1: none).
func (m *machine) regionAt(a int64) int32 {
	for i := range m.regs {
		if r := &m.regs[i]; a >= int64(r.Addr) && a < int64(r.Addr)+int64(r.Size) {
			return int32(i)
		}
	}
	return -1
}

func kindName(r *Region) string {
	switch {
	case r.Window:
		return "window"
	case r.Storage:
		return "array"
	}
	return "buffer"
}

// accessAlign is the alignment a memory access of a value type needs: vectors 16 bytes
// (UG1079 "AI Engine Tile Interface": 128- or 256-bit accesses with 128-bit alignment),
// scalars their own size.
func accessAlign(t kernel.Type) int {
	if t.IsVector() {
		return 16
	}
	return t.Bytes()
}
