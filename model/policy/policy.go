// Package policy holds the dispatch policies shared by every model that dispatches: one file per policy and one line
// per policy in Registry. A policy sees one request and a View of the servers (their loads as its dispatcher sees
// them: the true queue lengths or outstanding counts, or a stale board; and which servers are eligible) and draws its
// own randomness from the run's dispatch stream. Each policy file declares its typed configuration (the arguments it
// takes, their defaults and ranges, each check beside the rule of the source it follows), its build function, and the
// facts models may ask of it (Traits) in place of switching on its identity.
//
// Times are in the model's time unit (the supermarket's mean service times, the fleet's ticks).
package policy

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"lbsweep/model"
	"lbsweep/model/sim"
)

// Request is the request being dispatched, as a policy sees it. The supermarket family's jobs have no key and one
// client, so their requests are Request{Now: t}.
type Request struct {
	// Key is the request's key (a user id, a cache key): what hashing and affinity policies map to a server. Models
	// without keys leave it 0.
	Key uint64
	// Client is the issuing client, ≥ 0 (0 in models with one client or an open-loop stream).
	Client int32
	// Attempt counts the earlier attempts of the same request: 0 for its first attempt, i for its i-th retry or hedge.
	Attempt int32
	// Now is the dispatch time, in the model's time unit.
	Now float64
}

// View is what a policy sees of the servers when it picks. It is passed by value (four words, in registers), so a
// model builds it at each pick from what it keeps, and a pick allocates nothing.
type View struct {
	// Loads holds one level per server, 0 ≤ k < Loads.N(): the load as this dispatcher sees it (the true queue lengths
	// in the supermarket, the outstanding requests in the fleet, the board as last read in the bulletin board).
	Loads *sim.Levels
	// Eligible, when not nil, has one entry per server, false excluding the server from this pick (an open breaker,
	// an ejected outlier, a server outside the dispatcher's subset); nil means every server is eligible. At least one
	// server must be eligible. Only policies whose Traits.Eligibility is true honor it: a model that restricts
	// eligibility must refuse the others.
	Eligible []bool
}

// eligible reports whether server k may be picked in v.
func (v View) eligible(k int) bool { return v.Eligible == nil || v.Eligible[k] }

// Policy picks a server, 0 ≤ k < v.Loads.N(), for the request req (an eligible one, for policies whose
// Traits.Eligibility is true). A Policy value holds one run's policy state (a round-robin cursor, smooth WRR's
// current weights, peak-EWMA estimates) and is not safe for concurrent use.
type Policy interface {
	Pick(v View, req Request, r *sim.Rand) int
}

// Outcome is how a request sent to a server ended, as a policy that learns from responses is told (Observer). The
// request-level world's outcomes (see DESIGN.md, "The request-level world"); a model reports the ones it has.
type Outcome uint8

// Outcomes.
const (
	// OK: the server answered with a success (2xx), after the latency reported.
	OK Outcome = iota
	// Error: the server answered with a failure (a 500), which takes time like a success: the fleet's broken servers
	// (seed 000 §5.1).
	Error
	// Rejected: the server refused the request at admission (a 503 from a concurrency limiter or a full bounded
	// queue), usually fast.
	Rejected
	// Timeout: the balancer stopped waiting (a 504 at the balancer) after the latency reported, the timeout; the
	// server may still be working on it.
	Timeout
	// Cancelled: the request was withdrawn before its answer (a hedge whose twin answered first, a client that gave
	// up): its latency says nothing about the server's speed.
	Cancelled
)

// outcomeNames are the Outcomes' names, in order.
var outcomeNames = []string{"ok", "error", "rejected", "timeout", "cancelled"}

// String returns the outcome's snake_case name ("ok", "error", "rejected", "timeout", "cancelled").
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", o)
}

// Observer is implemented by policies that learn from responses (peak_ewma's round-trip times, ewma_success's
// success rate). The model calls Observe once per request sent, in time order, when the policy's Traits.Observe says:
// at completion, with now the time the answer came and latency its round trip (the sojourn time where the hop to the
// server takes no time); or at dispatch, right after Pick, with now the dispatch time and the request's eventual
// latency and outcome (seed 000 §5.6's observe, "generous to the balancer"; only models that know them at dispatch can
// run such a policy). Models where nothing fails report OK.
type Observer interface {
	Observe(server int, latency, now float64, outcome Outcome)
}

// Sampler is implemented by policies that compare a set of candidates per pick (the scoring policies, with or without
// power of d choices). Candidates returns the last pick's candidates in the order they were compared (every eligible
// server for a full scan); the slice is the policy's own and valid until the next Pick. It is instrumentation, as
// seed 000 §5.3's self.last: models use it to count how often a server won a sample it appeared in, and it changes no
// decision.
type Sampler interface {
	Candidates() []int
}

// Servers is what a policy knows about the servers from its configuration.
type Servers struct {
	N int // number of servers, ≥ 1
	// Weight is each server's static weight (nginx's `weight=`, Envoy's load_balancing_weight), all > 0 and finite;
	// nil means all equal. Models default it to the servers' service rates and pass nil when all are equal.
	Weight []float64
	// Latency is each server's configured response time in the model's time unit (its mean service time; for a
	// server that fails every request, how long a failure takes), all > 0 and finite; nil means all 1. The seed's
	// EWMA policies start their estimates here (see ewma).
	Latency []float64
}

// Class is one class of identical servers as a model declares it to its policy: how many, their static weight and
// their configured latency (see Servers).
type Class struct {
	Count           int
	Weight, Latency float64
}

// ClassServers expands server classes, in list order, into the Servers a policy is built over: one latency per
// server, and one weight per server, or nil when every class has the same weight (a policy then treats them as
// equal).
func ClassServers(cs []Class) Servers {
	n := 0
	equal := true
	for _, c := range cs {
		n += c.Count
		equal = equal && c.Weight == cs[0].Weight
	}
	s := Servers{N: n, Latency: make([]float64, 0, n)}
	if !equal {
		s.Weight = make([]float64, 0, n)
	}
	for _, c := range cs {
		for range c.Count {
			s.Latency = append(s.Latency, c.Latency)
			if !equal {
				s.Weight = append(s.Weight, c.Weight)
			}
		}
	}
	return s
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

// weights returns the static weights, one per server (all 1 when equal).
func (s Servers) weights() []float64 {
	w := make([]float64, s.N)
	for k := range w {
		w[k] = s.weight(k)
	}
	return w
}

// checkWeights validates s.Weight for a weighted policy; the error is a model.Issue for "weights" (the model names its
// own parameter).
func (s Servers) checkWeights() error {
	if s.Weight == nil {
		return nil
	}
	if len(s.Weight) != s.N {
		return issue("weights", "%d weights for %d servers", len(s.Weight), s.N)
	}
	sum := 0.0
	for k, w := range s.Weight {
		if !(w > 0 && finite(w)) {
			return issue("weights", "server %d: weight %v, need a finite weight > 0", k, w)
		}
		sum += w
	}
	// smooth WRR adds them up at every pick (nginx's total): an infinite sum would make every current weight −Inf.
	if !finite(sum) {
		return issue("weights", "the weights sum to %v: need a finite sum", sum)
	}
	return nil
}

// issue is a model.Issue for the argument arg.
func issue(arg, format string, v ...any) error {
	return model.Issue{Param: arg, Message: fmt.Sprintf(format, v...)}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Tie is how a scoring policy breaks a tie on the lowest score (the `tie` argument; values in Params' choice order).
type Tie uint8

// Tie rules.
const (
	// TieFirst: the first tied candidate in the order compared, which is list order for a full scan and the random
	// sample order with d (Python's min over the fleet or over rng.sample: seed 000 §5.3).
	TieFirst Tie = iota
	// TieRandom: uniformly at random among the tied candidates.
	TieRandom
	// TieKey: the tied candidate k with the highest KeyTieWeight(Request.Key, k): rendezvous hashing among the tied
	// (seed 001: "a tie-breaking rule based on the request's key, so that requests for the same key that find equal
	// loads land on the same backend"). No random number is drawn; the policy becomes keyed (Traits.Keyed).
	TieKey
)

// When is when a model reports a request's latency and outcome to a policy that observes (Traits.Observe; the
// `observe` argument chooses between AtCompletion and AtDispatch).
type When uint8

// Observation times.
const (
	// Never: the policy does not observe (it is no Observer).
	Never When = iota
	// AtCompletion: when the response arrives, as a real client does (observe = "completion").
	AtCompletion
	// AtDispatch: right after Pick, with the request's eventual latency and outcome, as seed 000's toy does (§5.6;
	// observe = "dispatch"). Only models that know them at dispatch can run it (the fleet); the others refuse it.
	AtDispatch
)

// Split is how a policy shares the arrivals among the servers when its picks ignore the loads.
type Split uint8

// Splits.
const (
	// LoadAware: the picks read the loads (in View.Loads, or through the latencies an Observer is told, which grow
	// with the servers' queues), so the share each server gets is not fixed in advance.
	LoadAware Split = iota
	// SplitEqual: the picks ignore the loads and every server gets 1/n of the arrivals in the long run.
	SplitEqual
	// SplitWeighted: the picks ignore the loads and server k gets Weight[k]/ΣWeight of the arrivals (1/n when
	// Servers.Weight is nil).
	SplitWeighted
	// SplitByKey: the picks ignore the loads and follow the request's key (ring_hash): server k gets the popularity
	// of the keys it owns, which depends on the key law and the ring, so no share is known from the servers alone.
	// Such a policy is Keyed; a model that computes shares from the Split must compute them from its keys or
	// declare none.
	SplitByKey
)

// Sequence names the deterministic pick order of a policy that cycles through the servers whatever the loads.
type Sequence uint8

// Sequences.
const (
	// NoSequence: the picks are random or read the loads (or the policy names no closed-form order).
	NoSequence Sequence = iota
	// RoundRobinSequence: 0, 1, …, n−1, 0, … (round_robin; smooth_wrr and wrr_expanded with equal weights give the
	// same sequence exactly: a test checks it). With Poisson arrivals each server then sees Erlang-n gaps (E_n/M/1).
	RoundRobinSequence
	// ExpandedSequence: the expanded list of the integer weights (IntegerWeights), server i w_i times in a row,
	// cycled (wrr_expanded with unequal weights); its smoothness has the closed form in model/wrrseq.
	ExpandedSequence
	// SmoothSequence: nginx's smooth weighted round robin over unequal weights (smooth_wrr): w_i picks of server i
	// per cycle of Σw, spread out; no closed form for its deviation.
	SmoothSequence
)

// Family is the theory family a policy's pick law belongs to, so that models can choose a closed form without
// knowing which policy it is. A policy need not declare one (NoFamily costs only the theory columns); it must never
// declare a family whose law it does not follow.
type Family uint8

// Families.
const (
	// NoFamily: no declared law.
	NoFamily Family = iota
	// FamilyRandom: every pick uniform over the servers and independent of everything else, so Poisson arrivals
	// split into n independent Poisson streams (n independent M/M/1 queues for exponential servers).
	FamilyRandom
	// FamilyJSQd: Traits.D servers sampled uniformly, the shortest queue joined, ties uniformly at random (the
	// mean-field fixed point s_i = λ^((d^i−1)/(d−1)) as n → ∞; with or without replacement, the same limit).
	FamilyJSQd
	// FamilyJSQ: the shortest queue over every server, ties uniformly at random.
	FamilyJSQ
	// FamilyLatencyScore: the lowest configured-then-observed latency estimate × (outstanding + 1) over Traits.D
	// distinct uniformly sampled servers (D = 0: every server), outcomes ignored, estimates starting at the servers'
	// configured latencies (seed 000's ewma): a server that answers faster than every other serves wins every sample
	// it is in (seed 000 §6.3).
	FamilyLatencyScore
)

// Traits are the facts about a configured policy that models use in place of its identity: whether its split of the
// arrivals is fixed (the instability check of unequal servers), its pick order and theory family (which closed form
// applies), whether it honors eligibility, when it observes, and what a pick costs. The zero value is a load-aware
// policy with no declared law that ignores eligibility, never observes and reads nothing.
type Traits struct {
	// Split is LoadAware unless the picks ignore the loads entirely (a registry test runs every policy on two
	// different views with the same random numbers and checks the picks agree exactly when Split is not LoadAware).
	// A load-blind policy whose long-run shares are neither equal nor ∝ weight nor by key has no Split to declare
	// yet: add one (and teach the supermarket's shares about it) rather than declare LoadAware.
	Split Split
	// Sequence is the deterministic pick order, when there is one with a name.
	Sequence Sequence
	// Family is the theory family of the pick law; D is its sample size (FamilyJSQd: d ≥ 1; FamilyLatencyScore: d,
	// 0 for every server).
	Family Family
	D      int
	// Eligibility reports whether Pick honors View.Eligible (never picks an ineligible server; a registry test checks
	// it). Models that restrict eligibility must refuse policies without it.
	Eligibility bool
	// Observe is when the model must report responses (Never unless the policy is an Observer).
	Observe When
	// Reads bounds the servers one pick reads with no eligibility mask: n for a full scan, d for a sample of d, 1 for
	// jsq (its sorted levels give the shortest queue in O(1)), 0 for the policies that read none; the work per pick,
	// in server reads.
	Reads int
	// Keyed reports whether Pick reads Request.Key (the hashing policies, and the key tie-break). A model whose
	// requests carry no key must refuse keyed policies (CheckUnkeyed): every request would have key 0.
	Keyed bool
}

// PickEvents is the work of one pick in simulated events, for the models' Cost: a server read costs about a fifth of
// an event (smooth_wrr at n = 1000 in the supermarket: 5 ns a read, against the engine's 25 ns an event, 2026-12-02
// on the project's 2-core machine), so a pick costs Reads/5 events on top of its arrival's. A full scan of 10^5
// servers is thus 2·10^4 events a pick, and `sweep plan` no longer counts such a run as free.
func (t Traits) PickEvents() float64 { return float64(t.Reads) / 5 }

// CheckUnkeyed returns a model.Issue naming "policy" when t is a keyed policy's traits (Traits.Keyed), for the models
// whose requests carry no key (the supermarket family, the fleet, the WRR sequence); nil otherwise. name is the
// policy's registered name, quoted in the message.
func CheckUnkeyed(t Traits, name string) error {
	if !t.Keyed {
		return nil
	}
	return issue("policy", "%s reads the request's key, but this model's requests carry none (every key would be 0): "+
		"use a keyed model (resilience with keys) or a policy that ignores keys (tie = key also reads the key)", name)
}

// Config is one policy's typed arguments, as its build function decodes them from a point. Each policy file declares
// its own (JSQdConfig, LeastRequestConfig, …).
type Config interface {
	// Check validates the arguments for the servers s; the error is a model.Issue naming the argument, or "weights"
	// when a weighted policy cannot use the servers' weights (the model names its own parameter). Rules quote their
	// source.
	Check(s Servers) error
	// New returns one run's policy (one dispatcher's state) for the servers s; s must have passed Check.
	New(s Servers) Policy
	// Traits returns the facts models may ask of the policy over the servers s (s must have passed Check).
	Traits(s Servers) Traits
}

// The argument columns, indices into Params and Values.
const (
	argD = iota
	argReplacement
	argChoiceCount
	argFullScan
	argActiveRequestBias
	argTau
	argDefaultRTT
	argTie
	argAlpha
	argObserve
	argMinRingSize
	argEpsilon
	argCandidates
	numArgs
)

// Params declares the policy arguments' columns, in this order (the results columns d, replacement, choice_count,
// full_scan, active_request_bias, tau, default_rtt, tie, alpha, observe, min_ring_size, epsilon, candidates: null for
// the policies that do not take
// them). Which policy takes which, and with what default, is the policy's own declaration (Entry.Args).
var Params = []model.Param{
	argD: {Name: "d", Kind: model.Int, Policy: true,
		Doc: "jsq_d: servers sampled per arrival, 1 ≤ d ≤ n; least_outstanding, ewma, ewma_success, least_latency: power of d choices over the policy's score, d distinct servers sampled per arrival, 1 ≤ d ≤ n (null: every server, in list order); null for other policies"},
	argReplacement: {Name: "replacement", Kind: model.Bool, Policy: true,
		Doc: "jsq_d: sample with replacement (default false: d distinct servers); null for other policies"},
	argChoiceCount: {Name: "choice_count", Kind: model.Int, Policy: true,
		Doc: "least_request: hosts sampled with replacement per pick (Envoy choice_count, default 2), ≥ 1; null for other policies"},
	argFullScan: {Name: "full_scan", Kind: model.Bool, Policy: true,
		Doc: "least_request: scan every host instead of sampling (Envoy selection_method FULL_SCAN); null for other policies"},
	argActiveRequestBias: {Name: "active_request_bias", Kind: model.Float, Policy: true,
		Doc: "least_request with unequal weights: dynamic weight = weight/(active+1)^bias, 0 ≤ bias ≤ 8 (Envoy, default 1; Envoy sets no upper bound); null for other policies"},
	argTau: {Name: "tau", Kind: model.Float, Policy: true, Unit: "model time units",
		Doc: "peak_ewma, least_latency: decay time constant of the RTT estimate, > 0 (tower decay, Finagle decayTime; least_latency's default 1000 is seed 004's 1 s in ms); null for other policies"},
	argDefaultRTT: {Name: "default_rtt", Kind: model.Float, Policy: true, Unit: "model time units",
		Doc: "peak_ewma, least_latency: RTT estimate before the first response, ≥ 0 (tower default_rtt; default 1); null for other policies"},
	argTie: {Name: "tie", Kind: model.Enum, Choices: []string{"first", "random", "key"}, Policy: true,
		Doc: "least_outstanding, ewma, ewma_success, least_latency: a tie on the lowest score goes to the first candidate (first: list order, or the random sample order with d; Python's min, seed 000 §5.3), to a uniformly random one (random), or to the tied candidate with the highest hash of (request key, server) (key: rendezvous among the tied, seed 001's key-based tie-break; a keyed policy); null for other policies"},
	argAlpha: {Name: "alpha", Kind: model.Float, Policy: true,
		Doc: "ewma, ewma_success: weight of each observed latency, estimate ← (1−α)·estimate + α·latency, 0 < α ≤ 1 (seed 000 §5.4, default 0.2); null for other policies"},
	argObserve: {Name: "observe", Kind: model.Enum, Choices: []string{"completion", "dispatch"}, Policy: true,
		Doc: "ewma, ewma_success: when a request's latency (and outcome) is observed: completion (when the response arrives, as real clients) or dispatch (its eventual latency at once, as seed 000's toy; fleet only); null for other policies"},
	argMinRingSize: {Name: "min_ring_size", Kind: model.Int, Policy: true, Unit: "ring entries",
		Doc: "ring_hash, bounded_load, hash_p2c: entries in the whole hash ring (Envoy v1.31.0 RingHash minimum_ring_size, default 1024; each server gets about min_ring_size·weight share, at least one), 1 ≤ min_ring_size ≤ 8388608 (Envoy's bound); null for other policies"},
	argEpsilon: {Name: "epsilon", Kind: model.Float, Policy: true,
		Doc: "bounded_load: load slack ε > 0, each server's cap ⌈(1+ε)(in flight + 1)/servers⌉ (Mirrokni, Thorup & Zadimoghaddam 2018; seed 004's default 0.25; Envoy's hash_balance_factor and HAProxy's hash-balance-factor are 100·(1+ε)); null for other policies"},
	argCandidates: {Name: "candidates", Kind: model.Int, Policy: true,
		Doc: "hash_p2c: size k of the key's candidate set, the first k distinct eligible servers clockwise on the ring, 1 ≤ k ≤ n (default 2; k = 1 is ring_hash, k = n two choices); null for other policies"},
}

// Values are a point's policy arguments, one per column of Params in its order; null where the policy does not take
// the argument, or takes it with no default and the spec left it out.
type Values []model.Value

// Arg declares one argument a policy takes: a column of Params and the policy's default for it.
type Arg struct {
	Name string // a column of Params
	// Default is the value when the spec does not set the argument. Valid = false: no default, so the argument is
	// Required or null has a meaning the policy documents (d for the scoring policies: every server).
	Default  model.Value
	Required bool // the spec must set it
}

// Entry registers one policy: its name, doc, parameters and build function.
type Entry struct {
	Name string // snake_case, as specs and Parquet write it; never changes once released
	Doc  string // what it does and its source
	Args []Arg  // the arguments it takes, in Params order
	// Build decodes the argument values v (Params order, Entry.Args' defaults applied) into the policy's Config.
	Build func(v Values) Config
}

// Registry lists every policy, in the order `sweep -list` prints them. Index i is the policy's value in a model's
// "policy" parameter (model.Enum over Names()).
var Registry = []Entry{
	{Name: "random", Doc: randomDoc, Build: buildRandom},
	{Name: "round_robin", Doc: roundRobinDoc, Build: buildRoundRobin},
	{Name: "jsq_d", Doc: jsqdDoc, Args: jsqdArgs, Build: buildJSQd},
	{Name: "jsq", Doc: jsqDoc, Build: buildJSQ},
	{Name: "smooth_wrr", Doc: smoothWRRDoc, Build: buildSmoothWRR},
	{Name: "wrr_expanded", Doc: wrrExpandedDoc, Build: buildWRRExpanded},
	{Name: "least_request", Doc: leastRequestDoc, Args: leastRequestArgs, Build: buildLeastRequest},
	{Name: "peak_ewma", Doc: peakEWMADoc, Args: peakEWMAArgs, Build: buildPeakEWMA},
	{Name: "least_outstanding", Doc: leastOutstandingDoc, Args: leastOutstandingArgs, Build: buildLeastOutstanding},
	{Name: "ewma", Doc: ewmaDoc, Args: ewmaArgs, Build: buildEWMA},
	{Name: "ewma_success", Doc: ewmaSuccessDoc, Args: ewmaArgs, Build: buildEWMASuccess},
	{Name: "least_latency", Doc: leastLatencyDoc, Args: leastLatencyArgs, Build: buildLeastLatency},
	{Name: "ring_hash", Doc: ringHashDoc, Args: ringHashArgs, Build: buildRingHash},
	{Name: "bounded_load", Doc: boundedLoadDoc, Args: boundedLoadArgs, Build: buildBoundedLoad},
	{Name: "hash_p2c", Doc: hashP2CDoc, Args: hashP2CArgs, Build: buildHashP2C},
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

// Arg returns e's declaration of the argument named name, and whether e takes it.
func (e Entry) Arg(name string) (Arg, bool) {
	for _, a := range e.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

// Takes reports whether e takes the argument named name.
func (e Entry) Takes(name string) bool {
	_, ok := e.Arg(name)
	return ok
}

// Requires reports whether e takes the argument named name and it has no default.
func (e Entry) Requires(name string) bool {
	a, ok := e.Arg(name)
	return ok && a.Required
}

// ArgNames returns the names of the arguments e takes, in Params order.
func (e Entry) ArgNames() []string {
	names := make([]string, len(e.Args))
	for i, a := range e.Args {
		names[i] = a.Name
	}
	return names
}

// Signature describes e's arguments for `sweep -list`: "d (required), replacement = false", or "-" for none.
func (e Entry) Signature() string {
	if len(e.Args) == 0 {
		return "-"
	}
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		p := Params[slices.IndexFunc(Params, func(p model.Param) bool { return p.Name == a.Name })]
		switch {
		case a.Required:
			parts[i] = a.Name + " (required)"
		case a.Default.Valid:
			parts[i] = a.Name + " = " + p.Format(a.Default)
		default:
			parts[i] = a.Name
		}
	}
	return strings.Join(parts, ", ")
}

// Values reads e's arguments from point p of a model whose parameters ps include Params (by name): the arguments e
// takes, with e's defaults where p leaves them null; null for the arguments e does not take.
func (e Entry) Values(ps []model.Param, p model.Point) Values {
	v := make(Values, numArgs)
	for _, a := range e.Args {
		i := slices.IndexFunc(Params, func(p model.Param) bool { return p.Name == a.Name })
		if j := model.Index(ps, a.Name); j >= 0 && p[j].Valid {
			v[i] = p[j]
		} else {
			v[i] = a.Default
		}
	}
	return v
}

// Configure decodes e's configuration from point p of a model whose parameters ps include Params (see Values).
func (e Entry) Configure(ps []model.Param, p model.Point) Config { return e.Build(e.Values(ps, p)) }
