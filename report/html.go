package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
)

// The page: one file, the SVG inline, the plots' font embedded once (so text is measured and
// drawn with the same face on any machine), no script, no link to anything outside the file.
var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"inline": inlineSVG,
	"join":   func(s []string) string { return strings.Join(s, SeriesSep) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sumac report</title>
<style>
{{.FontFace}}
body { font-family: "{{.Family}}", sans-serif; margin: 1.5em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
figure.plot { margin: 1em 0; }
figure.plot svg { max-width: 100%; height: auto; display: block; }
figure.plot figcaption { font-size: 0.85em; color: #555; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.15em 0.5em; text-align: left; }
td.num { text-align: right; }
.note { font-size: 0.9em; color: #444; }
.missing { background: #fff6e0; border: 1px solid #e8c872; padding: 0.6em 1em; }
code { font-size: 0.9em; }
</style>
</head>
<body>
<h1>sumac report</h1>
<p class="note">{{len .Docs}} document(s) read{{range .Docs}}; <code>{{.Name}}</code> ({{.Kind}}){{end}}.</p>
{{- if .Missing}}
<div class="missing" id="missing"><strong>Not drawn:</strong>
<ul>{{range .Missing}}<li>{{.}}</li>{{end}}</ul></div>
{{- end}}
{{- range .Sections}}
<section id="{{.Figure.Name}}">
<h2>{{.Title}}</h2>
{{- if .Caption}}<p>{{.Caption}}</p>{{end}}
{{- $fig := .Figure.Name}}
{{- range .Plots}}
<figure class="plot" id="{{$fig}}-{{.Name}}" data-series="{{join .Series}}">
{{inline .SVG}}
</figure>
{{- end}}
{{- with .Table}}
<table><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{- range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}
</table>
{{- end}}
{{- range .Notes}}<p class="note">{{.}}</p>{{end}}
</section>
{{- end}}
{{- if .Unused}}
<h2>Documents no figure reads</h2>
<ul>{{range .Unused}}<li><code>{{.Name}}</code> ({{.Kind}})</li>{{end}}</ul>
{{- end}}
</body>
</html>
`))

// SeriesSep separates the series names in a figure's data-series attribute.
const SeriesSep = "|"

var prolog = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)

// inlineSVG strips the XML prolog and comment vgsvg writes before <svg>, so the drawing can sit
// inside HTML.
func inlineSVG(b []byte) template.HTML {
	return template.HTML(prolog.ReplaceAll(b, nil))
}

// fontFace is the CSS @font-face rule embedding the plots' font, and its family name.
func fontFace() (css template.CSS, family string, err error) {
	face := font.DefaultCache.Lookup(plotFont, 10)
	var buf sfnt.Buffer
	family, err = face.Face.Name(&buf, sfnt.NameIDFamily)
	if err != nil {
		return "", "", err
	}
	var raw bytes.Buffer
	if _, err := face.Face.WriteSourceTo(nil, &raw); err != nil {
		return "", "", err
	}
	rule := fmt.Sprintf("@font-face { font-family: %q; font-weight: normal; font-style: normal; src: url(data:font/ttf;base64,%s) format(\"truetype\"); }",
		family, base64.StdEncoding.EncodeToString(raw.Bytes()))
	return template.CSS(rule), family, nil
}

// WriteHTML writes the page.
func (p *Page) WriteHTML(w io.Writer) error {
	css, family, err := fontFace()
	if err != nil {
		return err
	}
	return pageTmpl.Execute(w, struct {
		*Page
		FontFace template.CSS
		Family   string
	}{p, css, family})
}
