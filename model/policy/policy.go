// Package policy holds the dispatch policies shared by every model that dispatches: one file per policy and one line
// per policy in Registry. A policy sees the servers' loads through *sim.Levels (the true queue lengths, or a stale
// board for models that show the dispatcher old information) and draws its own randomness from the run's dispatch
// stream.
package policy

import (
	"fmt"
	"math"

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
// (its sojourn time: the round trip a client measures when the balancer-to-server hop takes no time).
type Observer interface {
	Done(k int, rtt, now float64)
}

// Servers is what a policy knows about the servers from its configuration.
type Servers struct {
	N int // number of servers, ≥ 1
	// Weight is each server's static weight (nginx's `weight=`, Envoy's load_balancing_weight), all > 0 and finite;
	// nil means all equal. Models default it to the servers' service rates.
	Weight []float64
}

// weight returns server k's static weight (1 when all are equal).
func (s Servers) weight(k int) float64 {
	if s.Weight == nil {
		return 1
	}
	return s.Weight[k]
}

// Args are the typed arguments of every policy; each policy reads the ones its Entry lists.
type Args struct {
	D           int  // jsq_d: number of servers sampled, 1 ≤ D ≤ n
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
		Doc: "jsq_d: servers sampled per arrival, 1 ≤ d ≤ n; null for other policies"},
	{Name: "replacement", Kind: model.Bool, Policy: true, Default: model.BoolValue(false),
		Doc: "jsq_d: sample with replacement (default false: d distinct servers); null for other policies"},
	{Name: "choice_count", Kind: model.Int, Policy: true, Default: model.IntValue(2),
		Doc: "least_request: hosts sampled with replacement per pick (Envoy choice_count, default 2), ≥ 1; null for other policies"},
	{Name: "full_scan", Kind: model.Bool, Policy: true, Default: model.BoolValue(false),
		Doc: "least_request: scan every host instead of sampling (Envoy selection_method FULL_SCAN); null for other policies"},
	{Name: "active_request_bias", Kind: model.Float, Policy: true, Default: model.FloatValue(1),
		Doc: "least_request with unequal weights: dynamic weight = weight/(active+1)^bias, bias ≥ 0 (Envoy, default 1); null for other policies"},
	{Name: "tau", Kind: model.Float, Policy: true, Unit: "mean service times",
		Doc: "peak_ewma: decay time constant of the RTT estimate, > 0 (tower decay, Finagle decayTime); null for other policies"},
	{Name: "default_rtt", Kind: model.Float, Policy: true, Unit: "mean service times", Default: model.FloatValue(1),
		Doc: "peak_ewma: RTT estimate before the first response, ≥ 0 (tower default_rtt; default 1); null for other policies"},
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
	}
}

// Check validates the arguments e takes for the servers s; the error is a model.Issue naming the argument, or
// "weights" when a weighted policy cannot use the servers' weights (the model names its own parameter).
func (e Entry) Check(a Args, s Servers) error {
	n := s.N
	bad := func(arg, format string, v ...any) error {
		return model.Issue{Param: arg, Message: fmt.Sprintf(format, v...)}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case e.Takes("d") && (a.D < 1 || a.D > n):
		return bad("d", "%d: need 1 ≤ d ≤ n (n = %d)", a.D, n)
	case e.Takes("choice_count") && (a.ChoiceCount < 1 || a.ChoiceCount > maxChoiceCount):
		return bad("choice_count", "%d: need 1 ≤ choice_count ≤ %d", a.ChoiceCount, maxChoiceCount)
	case e.Takes("active_request_bias") && !(a.ActiveRequestBias >= 0 && finite(a.ActiveRequestBias)):
		return bad("active_request_bias", "%v: need a finite bias ≥ 0", a.ActiveRequestBias)
	case e.Takes("tau") && !(a.Tau > 0 && finite(a.Tau)):
		return bad("tau", "%v: need a finite decay time > 0", a.Tau)
	case e.Takes("default_rtt") && !(a.DefaultRTT >= 0 && finite(a.DefaultRTT)):
		return bad("default_rtt", "%v: need a finite default RTT ≥ 0", a.DefaultRTT)
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
