package claims

import (
	"math"
	"testing"

	"lbsweep/results"
)

// Format words each outcome in each style; these are the bytes of sweep check's lines, REPORT.md's rows and plot's
// notes (the commands' golden tests and the committed REPORT.md pin them end to end).
func TestFormat(t *testing.T) {
	claim := Expect{Source: "seed §1 | table 2", Metric: "queue_tail", Level: 2,
		Where: []results.Cond{{Column: "policy", Text: "jsq_d"}, {Column: "d", Text: "2"}}}
	known := claim
	known.KnownFailure = "the seed's | rounding"
	m := Estimate{N: 3, Mean: 0.4321, Half: 0.0123, Alpha: 0.05}
	pass := Verdict{Expect: claim, Measured: m, Target: "0.43 ± 0.01", Status: Pass}
	fail := Verdict{Expect: claim, Measured: m, Target: "0.5 ± 0.01", Reason: "measured value outside the claim"}
	knownFail, knownPass := fail, pass
	knownFail.Expect, knownPass.Expect = known, known
	for _, c := range []struct {
		v     Verdict
		out   Outcome
		style Style
		want  string
	}{
		{pass, Reproduced, Line, "s: seed §1 | table 2: queue_tail[i=2] = 0.4321 ± 0.012 (n = 3, 95% CI); claim 0.43 ± 0.01: ok"},
		{fail, Failed, Line, "s: seed §1 | table 2: queue_tail[i=2] = 0.4321 ± 0.012 (n = 3, 95% CI); claim 0.5 ± 0.01: FAIL: measured value outside the claim"},
		{knownFail, FailedAsDeclared, Line, "s: seed §1 | table 2: queue_tail[i=2] = 0.4321 ± 0.012 (n = 3, 95% CI); claim 0.5 ± 0.01: not reproduced, as declared (the seed's | rounding): measured value outside the claim"},
		{knownPass, PassedThoughKnown, Line, "s: seed §1 | table 2: queue_tail[i=2] = 0.4321 ± 0.012 (n = 3, 95% CI); claim 0.43 ± 0.01: PASSES, but is declared a known failure: remove known_failure"},
		{pass, Reproduced, Markdown, `| seed §1 \| table 2 | policy = jsq_d, d = 2 | queue_tail, i = 2 | 0.43 ± 0.01 | 0.4321 ± 0.012 (n = 3) | reproduced |`},
		{fail, Failed, Markdown, `| seed §1 \| table 2 | policy = jsq_d, d = 2 | queue_tail, i = 2 | 0.5 ± 0.01 | 0.4321 ± 0.012 (n = 3) | **not reproduced**: measured value outside the claim |`},
		{knownFail, FailedAsDeclared, Markdown, `| seed §1 \| table 2 | policy = jsq_d, d = 2 | queue_tail, i = 2 | 0.5 ± 0.01 | 0.4321 ± 0.012 (n = 3) | **not reproduced** (known: the seed's \| rounding): measured value outside the claim |`},
		{knownPass, PassedThoughKnown, Markdown, `| seed §1 \| table 2 | policy = jsq_d, d = 2 | queue_tail, i = 2 | 0.43 ± 0.01 | 0.4321 ± 0.012 (n = 3) | reproduced (declared a known failure: update the spec) |`},
		{pass, Reproduced, Note, ""},
		{fail, Failed, Note, "s: claim not reproduced: seed §1 | table 2: measured value outside the claim"},
		{knownFail, FailedAsDeclared, Note, "s: claim not reproduced, as the spec declares (known_failure): seed §1 | table 2"},
		{knownPass, PassedThoughKnown, Note, ""},
	} {
		if got := c.v.Outcome(); got != c.out {
			t.Errorf("%+v: outcome %d, want %d", c.v, got, c.out)
		}
		if got := Format("s", c.v, c.style); got != c.want {
			t.Errorf("style %d, outcome %d:\n got %s\nwant %s", c.style, c.out, got, c.want)
		}
	}
	// One run: no interval. The Markdown style selects all rows when the claim has no where.
	one := Verdict{Expect: Expect{Source: "x", Metric: "jobs"}, Measured: Estimate{N: 1, Mean: 7, Half: math.NaN(), Alpha: 0.05}, Target: "-", Status: Pass}
	if got, want := Format("s", one, Line), "s: x: jobs = 7 (n = 1); claim -: ok"; got != want {
		t.Errorf("n = 1, Line: %q, want %q", got, want)
	}
	if got, want := Format("s", one, Markdown), "| x | all | jobs | - | 7 (n = 1) | reproduced |"; got != want {
		t.Errorf("n = 1, Markdown: %q, want %q", got, want)
	}
}
