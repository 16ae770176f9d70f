// Package report turns the JSON documents sumac writes (with --json) into a static HTML page of
// figures: one self-contained index.html, SVG drawn with gonum.org/v1/plot, no script and no
// network, so that it opens offline in any browser.
//
// The package is two registries. Kinds recognise documents: each kind says how to tell its
// documents from the others (RegisterKind), by the fields of the JSON the command has always
// written, or, for documents written from now on, by a top-level "document" field naming the
// kind. Figures draw from documents: each figure names the kinds it reads and builds one section
// of the page (Register). A figure lives in its own file (fig_*.go) and registers itself in
// init; a later part of sumac adds a figure the same way, without touching the others. The page
// says which figures had nothing to read and which command writes what they need.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/compiler/tune"
)

// TagField is the top-level field by which a JSON object names its kind:
// {"document": "versal-sweep", ...}. Documents that predate the convention are recognised by
// their fields instead (kinds.go).
const TagField = "document"

// Kind recognises one kind of JSON document.
type Kind struct {
	Name string // e.g. "tune"
	// Writer is the command that writes such a document, for messages and the page.
	Writer string
	// Match reports whether a decoded document (encoding/json into any) is of this kind.
	// Documents tagged with TagField are matched by name before any Match runs. Nil: only by tag.
	Match func(v any) bool
}

// Figure is one section of the page, drawn from the documents of the kinds it reads.
type Figure struct {
	Name  string // unique, lower-case; the section's HTML id and its SVG files' prefix
	Title string
	// Order places the section on the page (ascending; ties by Name).
	Order int
	// Reads are the kinds of document it draws from; Build runs when at least one is given.
	// A figure with no Reads finds its own data (e.g. a store) and always runs.
	Reads []string
	// Missing tells, when no document of Reads is given, what to run to get one.
	Missing string
	// Build draws the section. It returns (nil, nil) when the documents hold nothing it draws
	// (e.g. a tune document of no vyasa36 workload for the vyasa36 roofline).
	Build func(c *Context) (*Section, error)
}

// Context is what a figure's Build sees.
type Context struct {
	docs []*Doc
	Opt  *Options
}

// Docs returns the given documents of one kind, in the order given.
func (c *Context) Docs(kind string) []*Doc {
	var out []*Doc
	for _, d := range c.docs {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

// Section is a figure as built: a title, a caption, plots, an optional table and notes.
type Section struct {
	Title   string
	Caption string
	Plots   []*Plot
	Table   *Table
	Notes   []string // one sentence each: what was left out and why, mismatches, sources
}

// Plot is one SVG drawing of a section.
type Plot struct {
	Name string // unique within the section
	// Series are the legend entries the drawing shows; the browser test checks each is drawn.
	Series []string
	SVG    []byte // a complete SVG document as gonum's vgsvg writes it
}

// Table is a small table under the plots.
type Table struct {
	Header []string
	Rows   [][]string
}

// Options configure Build.
type Options struct {
	// Tune is what figures that run the tuner use (the schedule space): evaluator, store,
	// workers. A nil Target means the registry's aie1.
	Tune tune.Options
	// Space names the workloads whose schedule space is drawn (default: see fig_space.go).
	Space []string
	// Log, if set, receives progress lines.
	Log func(format string, a ...any)
}

func (o *Options) logf(format string, a ...any) {
	if o != nil && o.Log != nil {
		o.Log(format, a...)
	}
}

var (
	kinds   = map[string]Kind{}
	figures = map[string]Figure{}
)

// RegisterKind adds a kind of document. A duplicate name panics (a programming error, caught by
// any test).
func RegisterKind(k Kind) {
	if _, dup := kinds[k.Name]; dup || k.Name == "" {
		panic("report: duplicate or empty kind " + k.Name)
	}
	kinds[k.Name] = k
}

// Register adds a figure. A duplicate name panics (a programming error).
func Register(f Figure) {
	if _, dup := figures[f.Name]; dup || f.Name == "" || f.Build == nil {
		panic("report: duplicate, unnamed or empty figure " + f.Name)
	}
	figures[f.Name] = f
}

// Kinds lists the registered kinds by name.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Figures lists the registered figures in page order.
func Figures() []Figure {
	out := make([]Figure, 0, len(figures))
	for _, f := range figures {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Doc is one JSON document and its kind.
type Doc struct {
	Name string // where it came from (a path), for messages
	Kind string
	Data []byte // the JSON text
}

// Decode unmarshals the document into v.
func (d *Doc) Decode(v any) error {
	if err := json.Unmarshal(d.Data, v); err != nil {
		return fmt.Errorf("%s (%s document): %v", d.Name, d.Kind, err)
	}
	return nil
}

// Recognise tells a document's kind: by its TagField if it has one, else by the one registered
// kind whose Match accepts it. Unknown, ambiguous and malformed documents are errors.
func Recognise(data []byte) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return "", fmt.Errorf("more than one JSON document")
	}
	if o, ok := v.(map[string]any); ok {
		if t, ok := o[TagField].(string); ok {
			if _, known := kinds[t]; !known {
				return "", fmt.Errorf("%s %q: unknown kind (known: %s)", TagField, t, kindNames())
			}
			return t, nil
		}
	}
	if a, ok := v.([]any); ok && len(a) == 0 {
		return "", fmt.Errorf("an empty array: nothing tells what it is")
	}
	var match []string
	for _, k := range Kinds() {
		if k.Match != nil && k.Match(v) {
			match = append(match, k.Name)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("not a document sumac writes (known: %s)", kindNames())
	case 1:
		return match[0], nil
	}
	return "", fmt.Errorf("ambiguous: matches kinds %s", strings.Join(match, ", "))
}

func kindNames() string {
	var n []string
	for _, k := range Kinds() {
		n = append(n, k.Name)
	}
	return strings.Join(n, ", ")
}

// Parse recognises one document.
func Parse(name string, data []byte) (*Doc, error) {
	k, err := Recognise(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &Doc{Name: name, Kind: k, Data: data}, nil
}

// ReadFile reads and recognises one document.
func ReadFile(path string) (*Doc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Page is the built report.
type Page struct {
	Sections []*PageSection
	// Missing: one line per figure that had no document to read, saying what to run.
	Missing []string
	// Unused: documents no figure reads (recognised, listed on the page).
	Unused []*Doc
	Docs   []*Doc
}

// PageSection is a built section with the figure that made it.
type PageSection struct {
	Figure Figure
	*Section
}

// Build runs every registered figure on the documents.
func Build(docs []*Doc, opt Options) (*Page, error) {
	p := &Page{Docs: docs}
	read := map[*Doc]bool{}
	for _, f := range Figures() {
		c := &Context{Opt: &opt}
		for _, d := range docs {
			for _, k := range f.Reads {
				if d.Kind == k {
					c.docs = append(c.docs, d)
					read[d] = true
				}
			}
		}
		if len(c.docs) == 0 && len(f.Reads) > 0 {
			p.Missing = append(p.Missing, fmt.Sprintf("%s: %s", f.Title, f.Missing))
			continue
		}
		opt.logf("drawing %s", f.Name)
		s, err := f.Build(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Name, err)
		}
		if s == nil {
			p.Missing = append(p.Missing, fmt.Sprintf("%s: the documents given hold nothing it draws; %s", f.Title, f.Missing))
			continue
		}
		if s.Title == "" {
			s.Title = f.Title
		}
		p.Sections = append(p.Sections, &PageSection{Figure: f, Section: s})
	}
	for _, d := range docs {
		if !read[d] {
			p.Unused = append(p.Unused, d)
		}
	}
	return p, nil
}

// Write builds the page and writes DIR/index.html, and each plot also as DIR/SECTION-PLOT.svg.
func Write(dir string, docs []*Doc, opt Options) (*Page, error) {
	p, err := Build(docs, opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), b.Bytes(), 0o644); err != nil {
		return nil, err
	}
	for _, s := range p.Sections {
		for _, pl := range s.Plots {
			if err := os.WriteFile(filepath.Join(dir, s.Figure.Name+"-"+pl.Name+".svg"), pl.SVG, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}
