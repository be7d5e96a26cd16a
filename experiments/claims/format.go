package claims

import (
	"fmt"
	"strings"

	"lbsweep/results"
)

// Outcome classifies a verdict against what its spec declares.
type Outcome uint8

// Outcomes. Failed and PassedThoughKnown fail `sweep check` (Verdict.OK); Undecided is counted apart.
const (
	Reproduced        Outcome = iota // passes, and no known failure is declared
	Failed                           // fails, and no known failure is declared
	FailedAsDeclared                 // fails, as the spec's known_failure declares
	PassedThoughKnown                // passes, although the spec declares it a known failure
	Undecided                        // inconclusive: the CI is too wide to tell (known failure declared or not)
)

// Outcome returns v's outcome.
func (v Verdict) Outcome() Outcome {
	known := v.Expect.KnownFailure != ""
	switch {
	case v.Status == Invalid:
		return Failed
	case v.Status == Inconclusive:
		return Undecided
	case v.Status == Pass && known:
		return PassedThoughKnown
	case v.Status == Pass:
		return Reproduced
	case known:
		return FailedAsDeclared
	default:
		return Failed
	}
}

// Style is how Format writes a verdict.
type Style uint8

// Styles of Format.
const (
	// Line is `sweep check`'s line, "SPEC: SOURCE: METRIC[i=L] = MEAN ± HALF (n = N, P% CI); claim TARGET: VERDICT",
	// VERDICT being "ok", "FAIL: REASON", "not reproduced, as declared (WHY): REASON", "INCONCLUSIVE: REASON" or
	// "PASSES, but is declared a known failure: remove known_failure"; a quantified claim adds "[COUNT]" before it.
	Line Style = iota
	// Markdown is REPORT.md's claims-table row "| SOURCE | ROWS | METRIC, i = L | TARGET | MEAN ± HALF (n = N) |
	// VERDICT |" (the header is MarkdownHeader), cells escaped for Markdown.
	Markdown
	// Note is plot's one-line note on stderr, "SPEC: claim not reproduced: SOURCE: REASON" (or "..., as the spec
	// declares (known_failure): SOURCE"); it is "" for a claim that passes.
	Note
)

// MarkdownHeader is the header of the claims table whose rows Format writes in the Markdown style, with its
// delimiter row and a newline after each.
const MarkdownHeader = "| source | rows | metric | claim | measured | verdict |\n|---|---|---|---|---|---|\n"

// Row is a verdict as the cells of the report's claims table (MarkdownHeader's columns), in plain text: Format's
// Markdown style writes them escaped for Markdown, plot's index.html for HTML.
type Row struct {
	Source   string // Expect.Source
	Rows     string // the claim's rows, RowsText of Expect.Where
	Metric   string // Expect.Metric, "METRIC, i = L" for a list column's level L
	Target   string // Verdict.Target
	Measured string // "MEAN ± HALF (n = N)"
	// Verdict is "reproduced", "not reproduced: REASON", "not reproduced (known: WHY): REASON" (WHY the spec's
	// known_failure), "inconclusive: REASON" or "reproduced (declared a known failure: update the spec)", with
	// " (COUNT)" after the first word for a quantified claim; Verdict.Outcome classifies it.
	Verdict string
}

// InconclusiveText is how Row.Verdict of an inconclusive claim begins (REPORT.md sets it in italics).
const InconclusiveText = "inconclusive"

// NotReproduced is how Row.Verdict of a failed claim begins (REPORT.md sets it in bold).
const NotReproduced = "not reproduced"

// Row returns v's cells in the report's claims table.
func (v Verdict) Row() Row {
	e := v.Expect
	r := Row{Source: e.Source, Rows: RowsText(e.Where), Metric: e.Metric, Target: v.Target, Measured: estimate(v.Measured, false), Verdict: "reproduced"}
	if e.Level > 0 {
		r.Metric = fmt.Sprintf("%s, i = %d", e.Metric, e.Level)
	}
	count := ""
	if v.Count != "" {
		count = " (" + v.Count + ")"
	}
	r.Verdict += count
	switch v.Outcome() {
	case PassedThoughKnown:
		r.Verdict = "reproduced" + count + " (declared a known failure: update the spec)"
	case FailedAsDeclared:
		r.Verdict = NotReproduced + count + " (known: " + e.KnownFailure + "): " + v.Reason
	case Failed:
		r.Verdict = NotReproduced + count + ": " + v.Reason
	case Undecided:
		r.Verdict = InconclusiveText + count + ": " + v.Reason
	}
	return r
}

// Format renders verdict v of a claim of the spec named spec in style s, without a final newline. It is the one
// place that words verdicts and estimates: a mean is written %.5g, a CI half-width %.2g, n the runs it is over.
func Format(spec string, v Verdict, s Style) string {
	e := v.Expect
	switch s {
	case Markdown:
		r := v.Row()
		verdict := MarkdownCell(r.Verdict)
		if rest, ok := strings.CutPrefix(r.Verdict, NotReproduced); ok {
			verdict = "**" + NotReproduced + "**" + MarkdownCell(rest)
		} else if rest, ok := strings.CutPrefix(r.Verdict, InconclusiveText); ok {
			verdict = "*" + InconclusiveText + "*" + MarkdownCell(rest)
		}
		return fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", MarkdownCell(r.Source), MarkdownCell(r.Rows), MarkdownCell(r.Metric), MarkdownCell(r.Target), MarkdownCell(r.Measured), verdict)
	case Note:
		switch v.Outcome() {
		case FailedAsDeclared:
			return fmt.Sprintf("%s: claim not reproduced, as the spec declares (known_failure): %s", spec, e.Source)
		case Failed:
			return fmt.Sprintf("%s: claim not reproduced: %s: %s", spec, e.Source, v.Reason)
		case Undecided:
			return fmt.Sprintf("%s: claim inconclusive: %s: %s", spec, e.Source, v.Reason)
		}
		return ""
	default:
		metric := e.Metric
		if e.Level > 0 {
			metric = fmt.Sprintf("%s[i=%d]", metric, e.Level)
		}
		verdict := "ok"
		switch v.Outcome() {
		case PassedThoughKnown:
			verdict = "PASSES, but is declared a known failure: remove known_failure"
		case FailedAsDeclared:
			verdict = "not reproduced, as declared (" + e.KnownFailure + "): " + v.Reason
		case Failed:
			verdict = "FAIL: " + v.Reason
		case Undecided:
			verdict = "INCONCLUSIVE: " + v.Reason
		}
		if v.Count != "" {
			verdict = "[" + v.Count + "] " + verdict
		}
		return fmt.Sprintf("%s: %s: %s = %s; claim %s: %s", spec, e.Source, metric, estimate(v.Measured, true), v.Target, verdict)
	}
}

// estimate renders "mean ± half (n = N)", with ", P% CI" inside the parentheses when level is set, or "mean (n = N)"
// for N < 2.
func estimate(e Estimate, level bool) string {
	switch {
	case e.N < 2:
		return fmt.Sprintf("%.5g (n = %d)", e.Mean, e.N)
	case level:
		return fmt.Sprintf("%.5g ± %.2g (n = %d, %.4g%% CI)", e.Mean, e.Half, e.N, 100*(1-e.Alpha))
	}
	return fmt.Sprintf("%.5g ± %.2g (n = %d)", e.Mean, e.Half, e.N)
}

// RowsText renders a row selection as "col = v, col = v", or "all" when it is empty (REPORT.md, tables' captions).
func RowsText(cs []results.Cond) string {
	if len(cs) == 0 {
		return "all"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Column + " = " + c.Text
	}
	return strings.Join(parts, ", ")
}

// MarkdownCell makes s safe inside a Markdown table cell: pipes escaped, line breaks and other control characters as
// spaces.
func MarkdownCell(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.ReplaceAll(s, "|", "\\|")
}
