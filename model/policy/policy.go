// Package policy holds the dispatch policies shared by every model that dispatches: one file per policy and one line
// per policy in Registry. A policy sees the servers' loads through *sim.Levels (the true queue lengths, or a stale
// board for models that show the dispatcher old information) and draws its own randomness from the run's dispatch
// stream.
package policy

import (
	"fmt"
	"math"
	"slices"

	"lbsweep/model"
	"lbsweep/model/sim"
)

// Policy picks the server, 0 ≤ k < l.N(), for one job arriving at time now (in the model's time unit). A Policy value
// holds one run's policy state (a round-robin cursor, smooth WRR's current weights, peak-EWMA estimates) and is not
// safe for concurrent use.
type Policy interface {
	Pick(l *sim.Levels, r *sim.Rand, now float64) int
}

// Observer is implemented by policies that learn from responses (peak EWMA's round-trip times). The model calls Done
// once per completed job, in time order: the job sent to server k completed at time now after rtt in the system
// (its sojourn time: the round trip a client measures when the balancer-to-server hop takes no time). A model whose
// requests can fail calls OutcomeObserver.Result instead when the policy has it.
type Observer interface {
	Done(k int, rtt, now float64)
}

// OutcomeObserver is implemented by policies that learn from responses and their outcomes (ewma_success's success
// rate). Models whose requests can fail (fleet) call Result once per response, in time order, in place of
// Observer.Done: the request sent to server k was answered at time now after latency, and ok is false for a failure
// (an error answer, which takes time like a success: seed 000 §5.1). Models where nothing fails call Done, which such
// a policy treats as a success.
type OutcomeObserver interface {
	Result(k int, latency, now float64, ok bool)
}

// Foreseer is implemented by policies that can learn a request's latency and outcome at dispatch, before it has
// happened, as seed 000's toy does (§5.6: observe is called with the eventual latency of a request that has just been
// scheduled, "generous to the balancer"). Only a model that knows the completion time when it dispatches can call
// Foresee (fleet: FIFO servers with the service time drawn at dispatch); it does so right after Pick, with now the
// dispatch time. Models that cannot must refuse the arguments for which Entry.Foresees is true.
type Foreseer interface {
	Foresee(k int, latency, now float64, ok bool)
}

// Sampler is implemented by policies that compare a set of candidates per pick (the scoring policies, with or without
// power of d choices). Candidates returns the last pick's candidates in the order they were compared (every server
// for a full scan); the slice is the policy's own and valid until the next Pick. It is instrumentation, as seed 000
// §5.3's self.last: models use it to count how often a server won a sample it appeared in, and it changes no decision.
type Sampler interface {
	Candidates() []int
}

// Servers is what a policy knows about the servers from its configuration.
type Servers struct {
	N int // number of servers, ≥ 1
	// Weight is each server's static weight (nginx's `weight=`, Envoy's load_balancing_weight), all > 0 and finite;
	// nil means all equal. Models default it to the servers' service rates.
	Weight []float64
	// Latency is each server's configured response time in the model's time unit (its mean service time; for a
	// server that fails every request, how long a failure takes), all > 0 and finite; nil means all 1. The seed's
	// EWMA policies start their estimates here (see ewma).
	Latency []float64
}

// latency returns server k's configured response time (1 when not given).
func (s Servers) latency(k int) float64 {
	if s.Latency == nil {
		return 1
	}
	return s.Latency[k]
}

// weight returns server k's static weight (1 when all are equal).
func (s Servers) weight(k int) float64 {
	if s.Weight == nil {
		return 1
	}
	return s.Weight[k]
}

// Tie is how a scoring policy breaks a tie on the lowest score (the `tie` argument; values in Params' choice order).
type Tie uint8

// Tie rules.
const (
	// TieFirst: the first tied candidate in the order compared, which is list order for a full scan and the random
	// sample order with d (Python's min over the fleet or over rng.sample: seed 000 §5.3).
	TieFirst Tie = iota
	// TieRandom: uniformly at random among the tied candidates.
	TieRandom
)

// Observe is when an EWMA policy observes a request's latency and outcome (the `observe` argument; values in Params'
// choice order).
type Observe uint8

// Observation times.
const (
	// ObserveCompletion: when the response arrives, as a real client does (OutcomeObserver, Observer).
	ObserveCompletion Observe = iota
	// ObserveDispatch: at dispatch, with the request's eventual latency and outcome, as seed 000's toy does (§5.6;
	// Foreseer). Only models that know them at dispatch can run it.
	ObserveDispatch
)

// Args are the typed arguments of every policy; each policy reads the ones its Entry lists.
type Args struct {
	// D is jsq_d's number of servers sampled, 1 ≤ D ≤ n; for the scoring policies (least_outstanding, ewma,
	// ewma_success) the power-of-d sample size, 0 (d not set) meaning every server in list order.
	D           int
	Replacement bool // jsq_d: sample with replacement (Envoy's least-request sampling)
	// least_request (Envoy): ChoiceCount hosts sampled with replacement (≥ 1, default 2); FullScan scans every host
	// instead; ActiveRequestBias (≥ 0, default 1) is the exponent of the dynamic weight w/(active+1)^bias used when
	// the static weights differ.
	ChoiceCount       int
	FullScan          bool
	ActiveRequestBias float64
	// peak_ewma (tower, Finagle): Tau > 0 is the decay time constant of the RTT estimate, DefaultRTT ≥ 0 the estimate
	// before any response (both in the model's time unit).
	Tau        float64
	DefaultRTT float64
	// Tie breaks ties on the lowest score (least_outstanding, ewma, ewma_success).
	Tie Tie
	// Alpha (ewma, ewma_success) is the weight of each observed latency, est ← (1−α)·est + α·latency, 0 < α ≤ 1.
	Alpha float64
	// Observe (ewma, ewma_success) is when latencies and outcomes are observed.
	Observe Observe
}

// Entry registers one policy.
type Entry struct {
	Name string   // snake_case, as specs and Parquet write it; never changes once released
	Doc  string   // what it does and its source
	Args []string // names of the Params it takes
	// Required lists the arguments that have no default.
	Required []string
	// Weighted policies read Servers.Weight; the others ignore it.
	Weighted bool
	New      func(a Args, s Servers) Policy
}

// Params declares the policy arguments; they become nullable results columns (null for policies that do not take
// them).
var Params = []model.Param{
	{Name: "d", Kind: model.Int, Policy: true,
		Doc: "jsq_d: servers sampled per arrival, 1 ≤ d ≤ n; least_outstanding, ewma, ewma_success: power of d choices over the policy's score, d distinct servers sampled per arrival, 1 ≤ d ≤ n (null: every server, in list order); null for other policies"},
	{Name: "replacement", Kind: model.Bool, Policy: true, Default: model.BoolValue(false),
		Doc: "jsq_d: sample with replacement (default false: d distinct servers); null for other policies"},
	{Name: "choice_count", Kind: model.Int, Policy: true, Default: model.IntValue(2),
		Doc: "least_request: hosts sampled with replacement per pick (Envoy choice_count, default 2), ≥ 1; null for other policies"},
	{Name: "full_scan", Kind: model.Bool, Policy: true, Default: model.BoolValue(false),
		Doc: "least_request: scan every host instead of sampling (Envoy selection_method FULL_SCAN); null for other policies"},
	{Name: "active_request_bias", Kind: model.Float, Policy: true, Default: model.FloatValue(1),
		Doc: "least_request with unequal weights: dynamic weight = weight/(active+1)^bias, bias ≥ 0 (Envoy, default 1); null for other policies"},
	{Name: "tau", Kind: model.Float, Policy: true, Unit: "model time units",
		Doc: "peak_ewma: decay time constant of the RTT estimate, > 0 (tower decay, Finagle decayTime); null for other policies"},
	{Name: "default_rtt", Kind: model.Float, Policy: true, Unit: "model time units", Default: model.FloatValue(1),
		Doc: "peak_ewma: RTT estimate before the first response, ≥ 0 (tower default_rtt; default 1); null for other policies"},
	{Name: "tie", Kind: model.Enum, Choices: []string{"first", "random"}, Policy: true, Default: model.IntValue(int64(TieFirst)),
		Doc: "least_outstanding, ewma, ewma_success: a tie on the lowest score goes to the first candidate (first: list order, or the random sample order with d; Python's min, seed 000 §5.3) or to a uniformly random one (random); null for other policies"},
	{Name: "alpha", Kind: model.Float, Policy: true, Default: model.FloatValue(0.2),
		Doc: "ewma, ewma_success: weight of each observed latency, estimate ← (1−α)·estimate + α·latency, 0 < α ≤ 1 (seed 000 §5.4, default 0.2); null for other policies"},
	{Name: "observe", Kind: model.Enum, Choices: []string{"completion", "dispatch"}, Policy: true, Default: model.IntValue(int64(ObserveCompletion)),
		Doc: "ewma, ewma_success: when a request's latency (and outcome) is observed: completion (when the response arrives, as real clients) or dispatch (its eventual latency at once, as seed 000's toy; fleet only); null for other policies"},
}

// ArgsOf reads the policy arguments from point p of a model whose parameters ps include Params (by name); arguments
// the model lacks or that are null stay zero.
func ArgsOf(ps []model.Param, p model.Point) Args {
	get := func(name string) model.Value {
		if i := model.Index(ps, name); i >= 0 {
			return p[i]
		}
		return model.Value{}
	}
	return Args{
		D:                 int(get("d").I),
		Replacement:       get("replacement").B,
		ChoiceCount:       int(get("choice_count").I),
		FullScan:          get("full_scan").B,
		ActiveRequestBias: get("active_request_bias").F,
		Tau:               get("tau").F,
		DefaultRTT:        get("default_rtt").F,
		Tie:               Tie(get("tie").I),
		Alpha:             get("alpha").F,
		Observe:           Observe(get("observe").I),
	}
}

// Foresees reports whether e with arguments a observes requests at dispatch (observe = dispatch), which only a model
// that knows a request's latency and outcome when it dispatches can run (see Foreseer).
func (e Entry) Foresees(a Args) bool { return e.Takes("observe") && a.Observe == ObserveDispatch }

// Check validates the arguments e takes for the servers s; the error is a model.Issue naming the argument, or
// "weights" when a weighted policy cannot use the servers' weights (the model names its own parameter).
func (e Entry) Check(a Args, s Servers) error {
	n := s.N
	bad := func(arg, format string, v ...any) error {
		return model.Issue{Param: arg, Message: fmt.Sprintf(format, v...)}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case e.Takes("d") && (a.D != 0 || slices.Contains(e.Required, "d")) && (a.D < 1 || a.D > n):
		return bad("d", "%d: need 1 ≤ d ≤ n (n = %d)", a.D, n)
	case e.Takes("choice_count") && (a.ChoiceCount < 1 || a.ChoiceCount > maxChoiceCount):
		return bad("choice_count", "%d: need 1 ≤ choice_count ≤ %d", a.ChoiceCount, maxChoiceCount)
	case e.Takes("active_request_bias") && !(a.ActiveRequestBias >= 0 && finite(a.ActiveRequestBias)):
		return bad("active_request_bias", "%v: need a finite bias ≥ 0", a.ActiveRequestBias)
	case e.Takes("tau") && !(a.Tau > 0 && finite(a.Tau)):
		return bad("tau", "%v: need a finite decay time > 0", a.Tau)
	case e.Takes("default_rtt") && !(a.DefaultRTT >= 0 && finite(a.DefaultRTT)):
		return bad("default_rtt", "%v: need a finite default RTT ≥ 0", a.DefaultRTT)
	case e.Takes("alpha") && !(a.Alpha > 0 && a.Alpha <= 1):
		return bad("alpha", "%v: need 0 < alpha ≤ 1", a.Alpha)
	}

	if e.Weighted && s.Weight != nil {
		if len(s.Weight) != n {
			return bad("weights", "%d weights for %d servers", len(s.Weight), n)
		}
		for k, w := range s.Weight {
			if !(w > 0 && finite(w)) {
				return bad("weights", "server %d: weight %v, need a finite weight > 0", k, w)
			}
		}
		if e.Name == "wrr_expanded" {
			if _, err := IntegerWeights(s.Weight); err != nil {
				return bad("weights", "wrr_expanded: %v", err)
			}
		}
	}
	return nil
}

// maxChoiceCount bounds Envoy's choice_count (a pick costs choice_count reads).
const maxChoiceCount = 1 << 20

// ID is a policy's enum value: its index in Registry, as a model's "policy" parameter holds it.
type ID int64

// The registered policies' IDs, in Registry order (a test checks they match the names).
const (
	Random ID = iota
	RoundRobin
	JSQd
	JSQ
	SmoothWRR
	WRRExpanded
	LeastRequest
	PeakEWMA
	LeastOutstanding
	EWMA
	EWMASuccess
)

// Registry lists every policy, in the order `sweep -list` prints them. Index i is the policy's ID.
var Registry = []Entry{
	{Name: "random", Doc: randomDoc, New: newRandom},
	{Name: "round_robin", Doc: roundRobinDoc, New: newRoundRobin},
	{Name: "jsq_d", Doc: jsqdDoc, Args: []string{"d", "replacement"}, Required: []string{"d"}, New: newJSQd},
	{Name: "jsq", Doc: jsqDoc, New: newJSQ},
	{Name: "smooth_wrr", Doc: smoothWRRDoc, Weighted: true, New: newSmoothWRR},
	{Name: "wrr_expanded", Doc: wrrExpandedDoc, Weighted: true, New: newWRRExpanded},
	{Name: "least_request", Doc: leastRequestDoc, Args: []string{"choice_count", "full_scan", "active_request_bias"}, Weighted: true, New: newLeastRequest},
	{Name: "peak_ewma", Doc: peakEWMADoc, Args: []string{"tau", "default_rtt"}, Required: []string{"tau"}, New: newPeakEWMA},
	{Name: "least_outstanding", Doc: leastOutstandingDoc, Args: []string{"d", "tie"}, New: newLeastOutstanding},
	{Name: "ewma", Doc: ewmaDoc, Args: []string{"d", "tie", "alpha", "observe"}, New: newEWMA},
	{Name: "ewma_success", Doc: ewmaSuccessDoc, Args: []string{"d", "tie", "alpha", "observe"}, New: newEWMASuccess},
}

// Names returns the registered names in Registry order (the choices of a model's "policy" parameter).
func Names() []string {
	names := make([]string, len(Registry))
	for i, e := range Registry {
		names[i] = e.Name
	}
	return names
}

// Lookup returns the entry named name.
func Lookup(name string) (Entry, bool) {
	for _, e := range Registry {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Takes reports whether e takes the argument named arg.
func (e Entry) Takes(arg string) bool {
	for _, a := range e.Args {
		if a == arg {
			return true
		}
	}
	return false
}
