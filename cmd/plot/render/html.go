package render

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"strings"

	"lbsweep/experiments/claims"
)

// HTMLReport writes the reproduction report as one self-contained HTML page (plot's OUT/index.html): the claim
// counts, a table of contents with each spec's verdict counts, then per spec, as Report has it, its description, a
// link to its spec file and to its dataset's files, its figures, its tables and its claims with their verdicts.
//
// The page loads nothing: the CSS is inline, the text uses the reader's system fonts, and each figure is embedded
// as a data: URI of its SVG, read from figs by its name in Section.Figures (figs is the report's directory; a
// figure that cannot be read, or is not .svg, is an error). The links (spec, dataset, each figure's SVG) are
// relative, so they work from a checkout and on a forge's file view alike. The layout is responsive: figures fill
// the column (two side by side on a laptop, one on a phone) and every table scrolls sideways on its own when it is
// wider than the screen. All text is escaped by html/template. The output depends only on sections and the
// figures' bytes (no timestamps), so it changes only when they do.
func HTMLReport(w io.Writer, sections []Section, figs fs.FS) error {
	p := htmlPage{UnstableNote: UnstableNote}
	for _, s := range sections {
		hs := htmlSection{Section: s, Model: s.Spec.Model.Name(), SHA: s.Spec.SHA256[:12]}
		for _, name := range s.Figures {
			if path.Ext(name) != ".svg" {
				return fmt.Errorf("render: figure %s: not an SVG file", name)
			}
			b, err := fs.ReadFile(figs, name)
			if err != nil {
				return fmt.Errorf("render: figure %s: %w", name, err)
			}
			// The bytes are base64 (no quotes, no markup), so the URL is safe in an attribute as it is.
			hs.Figures = append(hs.Figures, htmlFigure{name, template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(b))})
		}
		for _, v := range s.Verdicts {
			o := v.Outcome()
			c := htmlClaim{Row: v.Row(), Class: outcomeClass[o]}
			c.Head, c.Rest = c.Verdict, ""
			for _, head := range []string{claims.NotReproduced, claims.InconclusiveText, "reproduced"} {
				if rest, ok := strings.CutPrefix(c.Verdict, head); ok {
					c.Head, c.Rest = head, rest
					break
				}
			}
			hs.Claims = append(hs.Claims, c)
			hs.Counts.add(o)
			p.Counts.add(o)
		}
		p.Sections = append(p.Sections, hs)
	}
	return htmlTemplate.Execute(w, p)
}

// htmlPage is the template's data.
type htmlPage struct {
	Counts       outcomeCounts // over every section
	Sections     []htmlSection
	UnstableNote string
}

// htmlSection is one spec's part of the page.
type htmlSection struct {
	Section
	Model   string // the spec's model's name
	SHA     string // the first 12 hexadecimal digits of the spec file's SHA-256
	Figures []htmlFigure
	Claims  []htmlClaim
	Counts  outcomeCounts
}

// htmlFigure is an embedded figure.
type htmlFigure struct {
	Name string       // its file name beside the page
	Src  template.URL // its data: URI
}

// htmlClaim is one row of a claims table.
type htmlClaim struct {
	claims.Row
	Class      string // outcomeClass of its outcome
	Head, Rest string // Row.Verdict split after its first words ("reproduced", "not reproduced"), set in bold
}

// outcomeCounts counts verdicts by outcome.
type outcomeCounts struct {
	Reproduced, Failed, FailedAsDeclared, PassedThoughKnown, Inconclusive int
}

func (c *outcomeCounts) add(o claims.Outcome) {
	switch o {
	case claims.Reproduced:
		c.Reproduced++
	case claims.Failed:
		c.Failed++
	case claims.FailedAsDeclared:
		c.FailedAsDeclared++
	case claims.PassedThoughKnown:
		c.PassedThoughKnown++
	case claims.Undecided:
		c.Inconclusive++
	}
}

// Total is the number of verdicts counted.
func (c outcomeCounts) Total() int {
	return c.Reproduced + c.Failed + c.FailedAsDeclared + c.PassedThoughKnown + c.Inconclusive
}

// outcomeClass is the CSS class of each outcome's claims (the colour of its verdict).
var outcomeClass = map[claims.Outcome]string{
	claims.Reproduced:        "ok",
	claims.Failed:            "fail",
	claims.FailedAsDeclared:  "known",
	claims.PassedThoughKnown: "stale",
	claims.Undecided:         "undecided",
}

var htmlTemplate = template.Must(template.New("index.html").Parse(htmlText))

// htmlText is the page. The CSS uses no external resource; widths are relative so the page reads on a phone
// (390 px) as on a laptop.
const htmlText = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>lbsweep reproduction report</title>
<style>
:root { color-scheme: light; --line: #d0d7de; --muted: #57606a; --head: #f6f8fa;
  --ok: #1a7f37; --fail: #cf222e; --fail-bg: #ffebe9; --known: #9a6700; --known-bg: #fff8c5; --stale: #8250df; --stale-bg: #fbefff;
  --undecided: #0550ae; --undecided-bg: #ddf4ff; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; color: #1f2328; background: #fff;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 84rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.4rem; margin: 3rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 .25rem; }
p { margin: .5rem 0; }
a { color: #0969da; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: .875em; overflow-wrap: anywhere; }
.meta { color: var(--muted); font-size: .9rem; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 34rem), 1fr)); gap: 1rem; margin: 1rem 0; }
figure { margin: 0; }
figure img { display: block; width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
figcaption { font-size: .8rem; color: var(--muted); overflow-wrap: anywhere; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .5rem 0 1rem; max-width: 100%; }
table { border-collapse: collapse; font-size: .875rem; }
th, td { border: 1px solid var(--line); padding: .3rem .55rem; text-align: left; vertical-align: top; }
thead th { background: var(--head); }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tbody th { font-weight: normal; white-space: nowrap; }
table.claims td { min-width: 7rem; }
table.claims td.source { min-width: 16rem; }
table.claims td.verdict { min-width: 12rem; }
tr.o-fail { background: var(--fail-bg); }
tr.o-known { background: var(--known-bg); }
tr.o-stale { background: var(--stale-bg); }
tr.o-undecided { background: var(--undecided-bg); }
td.measured { white-space: nowrap; }
.ok, tr.o-ok td.verdict strong { color: var(--ok); }
.fail, tr.o-fail td.verdict strong { color: var(--fail); }
.known, tr.o-known td.verdict strong { color: var(--known); }
.stale, tr.o-stale td.verdict strong { color: var(--stale); }
.undecided, tr.o-undecided td.verdict strong { color: var(--undecided); }
.zero { color: var(--muted); }
thead th.num { white-space: normal; vertical-align: bottom; }
table.toc td.verdicts { min-width: 9rem; }
.top { font-size: .85rem; }
@media (max-width: 40rem) {
  main { padding: .75rem .75rem 2rem; }
  h1 { font-size: 1.4rem; }
  h2 { font-size: 1.2rem; margin-top: 2rem; }
  table { font-size: .8rem; }
  th, td { padding: .25rem .35rem; }
  table.claims td.source { min-width: 12rem; }
}
</style>
</head>
<body>
<main id="top">
<h1>lbsweep reproduction report</h1>
<p>Generated by <code>plot</code> from the datasets of the specs below.
{{with .Counts}}{{.Reproduced}} of {{.Total}} claims reproduced{{if .Failed}}, <strong class="fail">{{.Failed}} not reproduced</strong>{{end}};
{{.FailedAsDeclared}} declared not to reproduce (see each){{if .Inconclusive}}; <strong class="undecided">{{.Inconclusive}} inconclusive</strong> (the CI too wide to tell){{end}}{{if .PassedThoughKnown}}; <strong class="stale">{{.PassedThoughKnown}} reproduced though declared known failures</strong>{{end}}.{{end}}
Measured values are means over the selected runs with Student-t confidence intervals across replications.
The same report in Markdown is <a href="REPORT.md">REPORT.md</a>.</p>
<nav aria-label="Contents">
<h2 id="contents">Contents</h2>
<div class="scroll">
<table class="toc">
<thead><tr><th>experiment</th><th class="num">claims</th><th>verdicts</th><th>model</th><th class="num">runs</th><th class="num">figures</th><th class="num">tables</th></tr></thead>
<tbody>
{{- range .Sections}}
<tr><th scope="row"><a href="#{{.Spec.Name}}">{{.Spec.Name}}</a></th>
<td class="num">{{.Counts.Total}}</td><td class="verdicts">{{template "verdicts" .Counts}}</td><td>{{.Model}}</td><td class="num">{{.Spec.Runs}}</td><td class="num">{{len .Figures}}</td><td class="num">{{len .Tables}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
</nav>
{{range .Sections}}
<section id="{{.Spec.Name}}">
<h2>{{.Spec.Name}}</h2>
{{- with .Spec.Description}}
<p>{{.}}</p>
{{- end}}
<p class="meta">Spec <a href="{{.SpecFile.Href}}"><code>{{.SpecFile.Text}}</code></a> (SHA-256 {{.SHA}}…), model <code>{{.Model}}</code>, {{.Spec.Runs}} runs ({{.Spec.Points}} points × {{.Spec.Replications}} replications).
Dataset{{range .DataFiles}} <a href="{{.Href}}"><code>{{.Text}}</code></a>{{end}}.
{{- if .Counts.Total}} {{.Counts.Total}} claims: {{template "verdicts" .Counts}}.{{end}}</p>
{{- if .Figures}}
<div class="figures">
{{- range .Figures}}
<figure><img src="{{.Src}}" alt="figure {{.Name}}"><figcaption><a href="{{.Name}}">{{.Name}}</a></figcaption></figure>
{{- end}}
</div>
{{- end}}
{{- range .Tables}}
<h3>{{.Title}}</h3>
{{- with .Where}}
<p>Runs where {{.}}.</p>
{{- end}}
<div class="scroll">
<table>
<thead><tr>{{range $i, $h := .Header}}<th{{if $i}} class="num"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range $i, $c := .}}{{if $i}}<td class="num">{{$c}}</td>{{else}}<th scope="row">{{$c}}</th>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- if .Unstable}}
<p class="meta">{{$.UnstableNote}}</p>
{{- end}}
{{- end}}
<h3>Claims</h3>
{{- if .Claims}}
<div class="scroll">
<table class="claims">
<thead><tr><th>source</th><th>rows</th><th>metric</th><th>claim</th><th>measured</th><th>verdict</th></tr></thead>
<tbody>
{{- range .Claims}}
<tr class="o-{{.Class}}"><td class="source">{{.Source}}</td><td>{{.Rows}}</td><td>{{.Metric}}</td><td>{{.Target}}</td><td class="measured">{{.Measured}}</td><td class="verdict"><strong>{{.Head}}</strong>{{.Rest}}</td></tr>
{{- end}}
</tbody>
</table>
</div>
{{- else}}
<p>No claims declared.</p>
{{- end}}
<p class="top"><a href="#top">↑ contents</a></p>
</section>
{{end}}
</main>
</body>
</html>
{{- define "verdicts"}}{{/* an outcomeCounts as "N reproduced, N not reproduced, ...", naming only the outcomes it has */ -}}
{{if .Reproduced}}<span class="ok">{{.Reproduced}} reproduced</span>{{else}}<span class="zero">0 reproduced</span>{{end -}}
{{if .Failed}}, <strong class="fail">{{.Failed}} not reproduced</strong>{{end -}}
{{if .FailedAsDeclared}}, <span class="known">{{.FailedAsDeclared}} known {{if eq .FailedAsDeclared 1}}failure{{else}}failures{{end}}</span>{{end -}}
{{if .Inconclusive}}, <strong class="undecided">{{.Inconclusive}} inconclusive</strong>{{end -}}
{{if .PassedThoughKnown}}, <strong class="stale">{{.PassedThoughKnown}} reproduced though declared known {{if eq .PassedThoughKnown 1}}failure{{else}}failures{{end}}</strong>{{end -}}
{{end}}`
