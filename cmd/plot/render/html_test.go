package render

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"golang.org/x/net/html"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
)

// hostile is text that is markup if written unescaped: a script, an element with a handler, an entity, quotes.
const hostile = `<script>alert("x")</script> <img src=x onerror=alert(1)> & 'q' </td></table>`

// htmlSections is two report sections over tabSpec: "tab" with a figure, its tables (the first retitled hostile),
// hostile links and one claim of each outcome (the first's source hostile), and "bare" with no figure, table or
// claim. figs holds the figure's SVG.
func htmlSections(t *testing.T) ([]Section, fstest.MapFS) {
	t.Helper()
	text := strings.Replace(tabSpec, `seed = 1`, "seed = 1\ndescription = '''"+hostile+"'''", 1)
	s, err := experiments.Parse("tab.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	data := tabTable(t, s)
	sec := Section{Spec: s, Figures: []string{"tab-mean.svg"},
		SpecFile:  Link{Text: "experiments/" + hostile + ".toml", Href: "../experiments/" + hostile + ".toml"},
		DataFiles: []Link{{Text: "results/tab/runs.parquet", Href: "../results/tab/runs.parquet"}, {Text: "results/tab/part-2-of-2.parquet", Href: "../results/tab/part-2-of-2.parquet"}},
	}
	for _, tb := range s.Tables {
		tab, err := MakeTable(s, tb, data)
		if err != nil {
			t.Fatal(err)
		}
		sec.Tables = append(sec.Tables, tab)
	}
	sec.Tables[0].Title = hostile
	est := claims.Estimate{N: 2, Mean: 1.5, Half: 0.25, Alpha: 0.05}
	for _, v := range []claims.Verdict{
		{Expect: claims.Expect{Source: hostile, Metric: "mean_sojourn"}, Measured: est, Target: "< 2", Status: claims.Pass},
		{Expect: claims.Expect{Source: "fails", Metric: "queue_tail", Level: 2}, Measured: est, Target: "> 3", Reason: "1.5 is not > 3"},
		{Expect: claims.Expect{Source: "known", Metric: "mean_sojourn", KnownFailure: "the source rounds"}, Measured: est, Target: "≈ 9", Reason: "off"},
		{Expect: claims.Expect{Source: "stale", Metric: "mean_sojourn", KnownFailure: "was off once"}, Measured: est, Target: "< 2", Status: claims.Pass},
	} {
		sec.Verdicts = append(sec.Verdicts, v)
	}
	bare, err := experiments.Parse("bare.toml", strings.Replace(tabSpec, `name = "tab"`, `name = "bare"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	svg := []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>`)
	return []Section{sec, {Spec: bare, SpecFile: Link{Text: "bare.toml", Href: "bare.toml"}}}, fstest.MapFS{"tab-mean.svg": {Data: svg}}
}

// walk calls f on n and every node below it, in document order.
func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// textOf is the text below n, as a browser shows it before whitespace collapsing.
func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

// The page parses to the intended tree: every string from the specs and datasets is text, never markup; the only
// embedded content is the figures as data: URIs of their exact bytes; nothing is loaded from elsewhere; the contents
// link each section, give its verdict counts; the spec and dataset links are the sections' own; and two writes are
// byte-identical.
func TestHTMLReport(t *testing.T) {
	secs, figs := htmlSections(t)
	var a, b bytes.Buffer
	if err := HTMLReport(&a, secs, figs); err != nil {
		t.Fatal(err)
	}
	if err := HTMLReport(&b, secs, figs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same sections differ")
	}
	doc, err := html.Parse(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}

	var (
		sections, hrefs, srcs []string
		texts                 []string // the text of every p, h2, h3, td, th and code element
		claimRows             []string // class of each claims-table row
		tocRows               [][]string
	)
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script", "link", "iframe", "object", "embed", "base":
			t.Errorf("the page holds a <%s> element", n.Data)
		case "section":
			id, _ := attr(n, "id")
			sections = append(sections, id)
		case "a":
			h, _ := attr(n, "href")
			hrefs = append(hrefs, h)
		case "img":
			s, _ := attr(n, "src")
			srcs = append(srcs, s)
		case "p", "h2", "h3", "td", "th", "code":
			texts = append(texts, textOf(n))
		case "table":
			if c, _ := attr(n, "class"); c == "toc" {
				walk(n, func(r *html.Node) {
					if r.Type == html.ElementNode && r.Data == "tr" && r.Parent.Data == "tbody" {
						var cells []string
						for c := r.FirstChild; c != nil; c = c.NextSibling {
							if c.Type == html.ElementNode {
								cells = append(cells, textOf(c))
							}
						}
						tocRows = append(tocRows, cells)
					}
				})
			}
			if c, _ := attr(n, "class"); c == "claims" {
				walk(n, func(r *html.Node) {
					if r.Type == html.ElementNode && r.Data == "tr" && r.Parent.Data == "tbody" {
						c, _ := attr(r, "class")
						claimRows = append(claimRows, c)
					}
				})
			}
		}
		for _, at := range n.Attr {
			if strings.HasPrefix(at.Key, "on") || at.Key == "style" {
				t.Errorf("<%s> has attribute %s=%q", n.Data, at.Key, at.Val)
			}
		}
	})

	if !slices.Equal(sections, []string{"tab", "bare"}) {
		t.Errorf("sections %q, want tab then bare (the order given)", sections)
	}
	want := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(figs["tab-mean.svg"].Data)
	if !slices.Equal(srcs, []string{want}) {
		t.Errorf("images %q, want the one figure as a data: URI of its bytes", srcs)
	}
	for _, h := range hrefs {
		if strings.Contains(h, "://") || strings.HasPrefix(h, "//") {
			t.Errorf("link %q leaves the page's directory", h)
		}
	}
	unescaped := map[string]bool{}
	for _, h := range hrefs {
		u, err := url.PathUnescape(h)
		if err != nil {
			t.Errorf("link %q: %v", h, err)
		}
		unescaped[u] = true
	}
	for _, h := range []string{"#tab", "#bare", "#top", "REPORT.md", "tab-mean.svg", secs[0].SpecFile.Href, secs[0].DataFiles[0].Href, secs[0].DataFiles[1].Href, "bare.toml"} {
		if !unescaped[h] {
			t.Errorf("no link to %q in %q", h, hrefs)
		}
	}
	// The hostile strings are text: the description, a table title, a claim's source, the spec's path.
	count := 0
	for _, s := range texts {
		count += strings.Count(s, hostile)
	}
	if count < 4 {
		t.Errorf("the hostile text appears %d times as text, want ≥ 4 (description, table title, claim source, spec path):\n%s", count, a.String())
	}
	if !slices.Equal(claimRows, []string{"o-ok", "o-fail", "o-known", "o-stale"}) {
		t.Errorf("claims rows %q, want one of each outcome in order", claimRows)
	}
	// experiment, claims, verdicts, model, runs, figures, tables
	wantTOC := [][]string{
		{"tab", "4", "1 reproduced, 1 not reproduced, 1 known failure, 1 reproduced though declared known failure", "supermarket", "8", "1", "3"},
		{"bare", "0", "0 reproduced", "supermarket", "8", "0", "0"},
	}
	if !slices.EqualFunc(tocRows, wantTOC, slices.Equal) {
		t.Errorf("contents rows %q, want %q", tocRows, wantTOC)
	}
	// Every table's text, cell by cell, as MakeTable computed it.
	for _, tab := range secs[0].Tables {
		for _, row := range append([][]string{tab.Header}, tab.Rows...) {
			for _, c := range row {
				if !slices.Contains(texts, c) {
					t.Errorf("table %q: no cell %q", tab.Title, c)
				}
			}
		}
	}
	for _, s := range []string{"not reproduced: 1.5 is not > 3", "queue_tail, i = 2", "1.5 ± 0.25 (n = 2)", "No claims declared."} {
		if !slices.Contains(texts, s) {
			t.Errorf("no cell or paragraph %q", s)
		}
	}
}

// A figure that cannot be read, or is not SVG, is an error naming it; nothing is half-embedded silently.
func TestHTMLReportFigureErrors(t *testing.T) {
	secs, figs := htmlSections(t)
	for _, name := range []string{"tab-missing.svg", "tab-mean.png"} {
		secs[0].Figures = []string{name}
		if err := HTMLReport(&bytes.Buffer{}, secs, figs); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("figure %s: error %v, want one naming it", name, err)
		}
	}
}
