package policy

import (
	"lbsweep/model"
	"lbsweep/model/sim"
)

const ewmaDoc = "seed 000's peak-EWMA: score = estimate·(outstanding+1), the lowest wins (ties: tie), each observed " +
	"latency moving the estimate with a fixed weight, estimate ← (1−α)·estimate + α·latency, from the server's " +
	"configured latency; reads latencies, never outcomes. Unlike peak_ewma (tower/Finagle) it has no peak rule and no " +
	"decay in time, and scores every server unless d is set (seed 000 §5.4, §5.6)"

const ewmaSuccessDoc = "seed 000's fix (PeakEwmaOverSuccess): ewma's score divided by the server's Laplace-smoothed " +
	"success rate (ok+1)/(ok+err+2), ok and err counted as responses are observed; the one score that reads " +
	"outcomes (seed 000 §5.5, §6.4)"

// ewma is seed 000's PeakEwma (§5.4) and, with success set, its PeakEwmaOverSuccess (§5.5). Per server it keeps a
// latency estimate; the score is estimate·(outstanding + 1), outstanding being the server's level in sim.Levels (the
// requests sent to it and not yet answered), divided for ewma_success by the Laplace-smoothed success rate
// (ok + 1)/(ok + err + 2), and the scorer takes the lowest (every server, or d sampled; ties by tie).
//
// An observation of latency x sets estimate = (1 − α)·estimate + α·x, the toy's observe line for line, whatever the
// outcome: ewma never reads it (§5.4: "observe takes ok and ignores it"), ewma_success counts OK in ok and every
// other outcome in err (the toy has only the two). Both are told either at completion or, with observe = dispatch, at
// dispatch with the request's eventual latency and outcome, as the toy does (§5.6: observe is called right after
// dispatch with the latency of a request that has just been scheduled); Traits.Observe tells the model which, and
// Observe itself learns whenever it is called.
//
// How it differs from tower's and Finagle's peak EWMA (peak_ewma here; tower 0.4.13 tower/src/load/peak_ewma.rs):
// those weight a response by 1 − e^(−Δ/τ) with Δ the time since the last update and decay the estimate toward 0
// while a server is silent, and a response above the estimate replaces it at once (the peak rule). The seed's has a
// fixed weight α per observation, no decay in time and no peak rule (a high latency moves the estimate by α of the
// difference, like a low one), despite its name; and it scores every server rather than two (P2C) unless d is set.
//
// Starting estimates: each server's configured latency (Servers.Latency: its mean service time, or for a server that
// fails every request, its error latency). The seed's listing does not show the initial value, but its pinned
// results need it: under first-wins ties equal starting values would send the first request to ok0 and an early one
// to ok2, yet its split is [4, 1, 0, 6402] (ok2 never used) and with slots > 1 no request at all reaches a healthy
// backend (§6.1, §7.5).
type ewma struct {
	scorer
	alpha   float64
	success bool
	est     []float64 // latency estimate per server, in the model's time unit
	ok, err []int64   // ewma_success: observed successes and failures per server
}

// ewmaArgs are the arguments of ewma and ewma_success: the scoring rule's d and tie, alpha (default 0.2, seed 000
// §5.4) and observe (default completion).
var ewmaArgs = append(append([]Arg(nil), scoreArgs...),
	Arg{Name: "alpha", Default: model.FloatValue(0.2)},
	Arg{Name: "observe", Default: model.IntValue(0)}, // "completion"
)

// EWMAConfig is the configuration of ewma and ewma_success.
type EWMAConfig struct {
	ScoreConfig
	// Alpha is the weight of each observed latency, estimate ← (1−α)·estimate + α·latency (`alpha`, default 0.2),
	// 0 < Alpha ≤ 1.
	Alpha float64
	// Observe is when latencies and outcomes are observed (`observe`): AtCompletion (default) or AtDispatch.
	Observe When
	// Success divides the score by the Laplace-smoothed success rate: ewma_success (not an argument).
	Success bool
}

// observeChoices maps the `observe` argument's choices (Params order: completion, dispatch) to When.
var observeChoices = []When{AtCompletion, AtDispatch}

func buildEWMA(v Values) Config {
	return EWMAConfig{ScoreConfig: scoreConfigOf(v), Alpha: v[argAlpha].F, Observe: observeChoices[v[argObserve].I]}
}

func buildEWMASuccess(v Values) Config {
	c := buildEWMA(v).(EWMAConfig)
	c.Success = true
	return c
}

// Check implements Config: d, alpha and observe.
func (c EWMAConfig) Check(s Servers) error {
	if err := c.check(s); err != nil {
		return err
	}
	// seed 000 §5.4 has est = (1 − alpha)·est + alpha·latency with alpha = 0.2 and states no range; ours is (0, 1],
	// where the estimate learns (alpha > 0) and never overshoots the observation (alpha ≤ 1).
	if !(c.Alpha > 0 && c.Alpha <= 1) {
		return issue("alpha", "%v: need 0 < alpha ≤ 1", c.Alpha)
	}
	if c.Observe != AtCompletion && c.Observe != AtDispatch {
		return issue("observe", "%d: need completion or dispatch", c.Observe)
	}
	return nil
}

// New implements Config.
func (c EWMAConfig) New(s Servers) Policy {
	p := &ewma{scorer: newScorer(c.ScoreConfig, s.N), alpha: c.Alpha, success: c.Success, est: make([]float64, s.N)}
	for k := range p.est {
		p.est[k] = s.latency(k)
	}
	if c.Success {
		p.ok, p.err = make([]int64, s.N), make([]int64, s.N)
	}
	return p
}

// Traits implements Config: the candidate rule's facts (load-aware unless d = 1, eligibility honored), observing
// when Observe says; ewma (not ewma_success, which reads outcomes) declares the latency-score family with its d.
func (c EWMAConfig) Traits(s Servers) Traits {
	t := c.traits(s)
	t.Observe = c.Observe
	if !c.Success {
		t.Family, t.D = FamilyLatencyScore, c.D
	}
	return t
}

func (p *ewma) score(l *sim.Levels, k int) float64 {
	x := p.est[k] * float64(l.Len(k)+1)
	if p.success {
		rate := float64(p.ok[k]+1) / float64(p.ok[k]+p.err[k]+2)
		x /= rate
	}
	return x
}

// Pick implements Policy.
func (p *ewma) Pick(v View, req Request, r *sim.Rand) int { return p.pick(v, req.Key, r, p) }

// Observe implements Observer: the estimate moves toward latency; ewma_success counts the outcome (OK a success,
// anything else a failure).
func (p *ewma) Observe(k int, latency, _ float64, outcome Outcome) {
	p.est[k] = (1-p.alpha)*p.est[k] + p.alpha*latency
	if p.success {
		if outcome == OK {
			p.ok[k]++
		} else {
			p.err[k]++
		}
	}
}

// Estimates returns the latency estimates, one per server (the policy's own slice: read, do not keep). Tests use it
// to compare the policy's state across twin worlds (seed 000 §6.1).
func (p *ewma) Estimates() []float64 { return p.est }

// Outcomes returns ewma_success's observed successes and failures per server (nil for ewma).
func (p *ewma) Outcomes() (ok, err []int64) { return p.ok, p.err }
