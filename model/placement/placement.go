// Package placement is the static key-placement model: m keys placed on n servers by one consistent-hashing scheme of
// lbsweep/model/hashing (Envoy's ring hash, Maglev, jump, rendezvous, multi-probe, bounded loads), with no queues and
// no time. A run measures how evenly the keys (and, under Zipf popularity, their traffic) spread over the servers,
// what fraction of keys move when one server joins or leaves and how many of those moves were necessary, and what the
// scheme costs to build and to look up (issue 16 part 1; seed 002 §8).
//
// Randomness: the servers' positions (their "names") and the keys' hashes are seeded by the run seed, so
// replications are independent hash draws; nothing else is random. Keys are the integers 0 … m−1, hashed with
// hashing.Key; with Zipf(s) popularity, key k has probability ∝ (k+1)^−s, so popularity rank is independent of
// placement.
package placement

import (
	"fmt"
	"math"

	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/results/schema"
)

// Scheme is the `scheme` parameter's value (index into its choices).
type Scheme int64

// Schemes, as the `scheme` parameter's choices (index = value).
const (
	Ring Scheme = iota
	Maglev
	Jump
	Rendezvous
	MultiProbe
	Bounded
)

var schemeNames = []string{"ring", "maglev", "jump", "rendezvous", "multi_probe", "bounded"}

// Change is the `change` parameter's value: the membership change whose key movement a run measures.
type Change int64

// Changes: one server joins (index n, weight the mean of the others), or the last one (index n−1) leaves; jump
// hash can only lose its last bucket without moving other keys, and the others are symmetric in the index.
const (
	Join Change = iota
	Leave
)

// Model is the placement model; its zero value is ready to use and safe for concurrent runs.
type Model struct{}

const (
	pScheme = iota
	pN
	pM
	pMinRingSize
	pPerHost
	pTableSize
	pProbes
	pEpsilon
	pWeights
	pZipfS
	pChange
	pReference
)

var params = []model.Param{
	pScheme:      {Name: "scheme", Kind: model.Enum, Choices: schemeNames, Default: model.IntValue(int64(Ring)), Doc: "ring: Envoy v1.31.0 RING_HASH (or ketama with per_host); maglev: Envoy's Maglev table; jump: Lamping & Veach; rendezvous: highest random weight; multi_probe: Appleton & O'Reilly; bounded: bounded loads on the ring (Mirrokni, Thorup & Zadimoghaddam)"},
	pN:           {Name: "n", Kind: model.Int, Default: model.IntValue(100), Doc: "servers before the change, 2 ≤ n ≤ 10^5 (maglev: n+1 ≤ table_size)"},
	pM:           {Name: "m", Kind: model.Int, Default: model.IntValue(1000000), Unit: "keys", Doc: "keys placed, 1 ≤ m ≤ 10^8"},
	pMinRingSize: {Name: "min_ring_size", Kind: model.Int, Optional: true, Unit: "entries", Doc: "ring, bounded: Envoy minimum_ring_size, entries in the whole ring (1 ≤ · ≤ 8M); filled with Envoy's default 1024 unless per_host is given; null for other schemes"},
	pPerHost:     {Name: "per_host", Kind: model.Int, Optional: true, Unit: "entries", Doc: "ring, bounded: ketama-style entries per host (1 ≤ · ≤ 10^4, per_host·(n+1) ≤ 8M), instead of min_ring_size; null otherwise"},
	pTableSize:   {Name: "table_size", Kind: model.Int, Optional: true, Unit: "slots", Doc: "maglev: prime table size M ≤ 5000011 (Envoy's bound; filled with Envoy's default 65537); null for other schemes"},
	pProbes:      {Name: "probes", Kind: model.Int, Optional: true, Doc: "multi_probe: probes per key, 1 ≤ k ≤ 1000 (filled with the paper's 21); null for other schemes"},
	pEpsilon:     {Name: "epsilon", Kind: model.Float, Optional: true, Doc: "bounded: ε ≥ 0, capacity ⌈(1+ε)m/n⌉ (Envoy hash_balance_factor and HAProxy hash-balance-factor f: ε = f/100 − 1); filled with 0.25 (seed 004); null for other schemes"},
	pWeights:     {Name: "weights", Kind: model.List, Optional: true, Doc: "one weight > 0 per server (n values) for ring, maglev, rendezvous, bounded (where every server must get a ring entry); a joining server gets their mean; null for equal"},
	pZipfS:       {Name: "zipf_s", Kind: model.Float, Optional: true, Doc: "Zipf exponent s ≥ 0 of the keys' popularity (key k ∝ (k+1)^−s) for the traffic columns; null: no traffic columns"},
	pChange:      {Name: "change", Kind: model.Enum, Choices: []string{"join", "leave"}, Default: model.IntValue(int64(Join)), Doc: "join: server n joins; leave: server n−1 leaves"},
	pReference:   {Name: "ptm_reference", Kind: model.Float, Optional: true, Doc: "a reference peak-to-mean ratio ≥ 1 (e.g. a published median): share_ptm_below_reference says whether a run's share_peak_to_mean is at or below it, so a claim on its mean tests a quantile; null: no such column"},
}

// The metric columns.
var (
	colKeysPTM     = schema.Column{Name: "keys_peak_to_mean", Type: schema.Float64, Doc: "most keys on one server / (m/n), before the change"}
	colKeysCV      = schema.Column{Name: "keys_cv", Type: schema.Float64, Doc: "standard deviation of keys per server over the n servers (population) / (m/n)"}
	colTrafficPTM  = schema.Column{Name: "traffic_peak_to_mean", Type: schema.Float64, Doc: "largest server's expected share of Zipf(zipf_s) traffic × n; null without zipf_s"}
	colTrafficCV   = schema.Column{Name: "traffic_cv", Type: schema.Float64, Doc: "standard deviation of the servers' traffic shares × n; null without zipf_s"}
	colMoved       = schema.Column{Name: "moved_fraction", Type: schema.Float64, Doc: "fraction of the m keys whose server differs after the change"}
	colNecessary   = schema.Column{Name: "moved_necessary", Type: schema.Float64, Doc: "fraction of the moved keys that moved to the joining (from the leaving) server; 1 for a monotone scheme; null if none moved"}
	colLookups     = schema.Column{Name: "lookups_per_key", Type: schema.Float64, Doc: "mean work per key before the change: ring, maglev 1 table lookup; jump: generator steps; rendezvous: n scores; multi_probe: probes ring searches; bounded: ring entries visited"}
	colLookupsMax  = schema.Column{Name: "lookups_max", Type: schema.Int64, Doc: "the most work one key took (bounded: the longest walk)"}
	colEntries     = schema.Column{Name: "table_entries", Type: schema.Int64, Unit: "entries", Doc: "entries in the lookup structure: ring entries, Maglev slots, one point per server (multi_probe), n names (rendezvous), 0 (jump)"}
	colBuildOps    = schema.Column{Name: "build_ops", Type: schema.Int64, Doc: "work to build it: hash evaluations (ring: one per entry; rendezvous, multi_probe: n) or, for maglev, 2n hashes plus the slot probes of the fill; jump: 0"}
	colEntriesMin  = schema.Column{Name: "entries_per_host_min", Type: schema.Int64, Unit: "entries", Doc: "ring, bounded, maglev: fewest entries a server owns (Envoy's min_hashes_per_host / min_entries_per_host); null otherwise"}
	colEntriesMax  = schema.Column{Name: "entries_per_host_max", Type: schema.Int64, Unit: "entries", Doc: "ring, bounded, maglev: most entries a server owns; null otherwise"}
	colCap         = schema.Column{Name: "capacity", Type: schema.Int64, Unit: "keys", Doc: "bounded: ⌈(1+ε)m/n⌉ (equal weights; the largest c_s with weights), at most m, which no server exceeded (Run fails otherwise); null otherwise"}
	colSharePTM    = schema.Column{Name: "share_peak_to_mean", Type: schema.Float64, Doc: "ring: n × the largest server's share of the hash space (its arcs); maglev: n × its slots / M; exact, without the keys' sampling noise; null for other schemes"}
	colBelowRef    = schema.Column{Name: "share_ptm_below_reference", Type: schema.Bool, Doc: "share_peak_to_mean ≤ ptm_reference; null without either"}
	colThMoved     = schema.Column{Name: "theory_moved_fraction", Type: schema.Float64, Doc: "the necessary fraction: 1/(n+1) on a join, 1/n on a leave (equal weights); what a monotone scheme moves in expectation (ring: when no host's entry count changes)"}
	colThPTMMedian = schema.Column{Name: "theory_peak_to_mean_median", Type: schema.Float64, Doc: "ring (equal weights, e entries per every host): median of share_peak_to_mean, n·max of Dirichlet(e, …, e) shares; jump: median of keys_peak_to_mean for Multinomial(m; 1/n) counts; null otherwise"}
	colThPTMLo     = schema.Column{Name: "theory_peak_to_mean_lo", Type: schema.Float64, Doc: "the same law's 2.5% quantile"}
	colThPTMHi     = schema.Column{Name: "theory_peak_to_mean_hi", Type: schema.Float64, Doc: "the same law's 97.5% quantile"}
	colThPTMMean   = schema.Column{Name: "theory_peak_to_mean_mean", Type: schema.Float64, Doc: "ring as above: the law's mean; null otherwise"}
	colThCDFRef    = schema.Column{Name: "theory_share_ptm_cdf_at_reference", Type: schema.Float64, Doc: "ring as above: P(share_peak_to_mean ≤ ptm_reference) by the law; null otherwise"}
	colBelowThMed  = schema.Column{Name: "share_ptm_below_theory_median", Type: schema.Bool, Doc: "ring as above: share_peak_to_mean ≤ theory_peak_to_mean_median (its mean over runs estimates the law's CDF there, 1/2)"}
)

var metrics = schema.New(colKeysPTM, colKeysCV, colTrafficPTM, colTrafficCV, colMoved, colNecessary, colLookups, colLookupsMax,
	colEntries, colBuildOps, colEntriesMin, colEntriesMax, colCap, colSharePTM, colBelowRef, colThMoved, colThPTMMedian,
	colThPTMLo, colThPTMHi, colThPTMMean, colThCDFRef, colBelowThMed)

// Name implements model.Model.
func (Model) Name() string { return "placement" }

// Doc implements model.Model.
func (Model) Doc() string {
	return "m keys on n servers by a consistent-hashing scheme (ring, Maglev, jump, rendezvous, multi-probe, bounded loads): balance, keys moved by a join or leave, build and lookup cost"
}

// Params implements model.Model.
func (Model) Params() []model.Param { return params }

// Metrics implements model.Model.
func (Model) Metrics() []schema.Column { return metrics.Columns() }

func usesRing(s Scheme) bool { return s == Ring || s == Bounded }

// Resolve implements model.Resolver: the scheme's own knobs get their sources' defaults (min_ring_size 1024 unless
// per_host is given, table_size 65537, probes 21, epsilon 0.25), so every run's row names its whole configuration.
func (Model) Resolve(p model.Point) error {
	s := Scheme(p[pScheme].I)
	if usesRing(s) && !p[pMinRingSize].Valid && !p[pPerHost].Valid {
		p[pMinRingSize] = model.IntValue(hashing.DefaultMinRingSize)
	}
	if s == Maglev && !p[pTableSize].Valid {
		p[pTableSize] = model.IntValue(hashing.DefaultTableSize)
	}
	if s == MultiProbe && !p[pProbes].Valid {
		p[pProbes] = model.IntValue(hashing.DefaultProbes)
	}
	if s == Bounded && !p[pEpsilon].Valid {
		p[pEpsilon] = model.FloatValue(0.25)
	}
	return nil
}

// Check implements model.Model.
func (Model) Check(p model.Point, _ model.CheckOptions) ([]string, error) {
	s, n, m := Scheme(p[pScheme].I), p[pN].I, p[pM].I
	only := func(i int, ok bool, who string) error {
		if p[i].Valid && !ok {
			return model.Issue{Param: params[i].Name, Message: "used by " + who + " only; leave it null for scheme " + schemeNames[s]}
		}
		return nil
	}
	switch {
	case n < 2 || n > 100000:
		return nil, model.Issue{Param: "n", Message: fmt.Sprintf("%d servers: need 2 ≤ n ≤ 10^5", n)}
	case m < 1 || m > 100000000:
		return nil, model.Issue{Param: "m", Message: fmt.Sprintf("%d keys: need 1 ≤ m ≤ 10^8", m)}
	}
	for _, e := range []error{
		only(pMinRingSize, usesRing(s), "ring and bounded"),
		only(pPerHost, usesRing(s), "ring and bounded"),
		only(pTableSize, s == Maglev, "maglev"),
		only(pProbes, s == MultiProbe, "multi_probe"),
		only(pEpsilon, s == Bounded, "bounded"),
		only(pWeights, s != Jump && s != MultiProbe, "ring, maglev, rendezvous and bounded"),
	} {
		if e != nil {
			return nil, e
		}
	}
	if usesRing(s) {
		if p[pMinRingSize].Valid == p[pPerHost].Valid {
			return nil, model.Issue{Param: "min_ring_size", Message: "give min_ring_size or per_host, not both"}
		}
		if p[pMinRingSize].Valid && (p[pMinRingSize].I < 1 || p[pMinRingSize].I > hashing.DefaultMaxRingSize) {
			return nil, model.Issue{Param: "min_ring_size", Message: fmt.Sprintf("%d: need 1 ≤ min_ring_size ≤ %d (Envoy's maximum_ring_size)", p[pMinRingSize].I, hashing.DefaultMaxRingSize)}
		}
		if p[pPerHost].Valid && (p[pPerHost].I < 1 || p[pPerHost].I > 10000) {
			return nil, model.Issue{Param: "per_host", Message: fmt.Sprintf("%d: need 1 ≤ per_host ≤ 10^4", p[pPerHost].I)}
		}
		// The ring after a join has per_host·(n+1) entries, 28 bytes each while it is built: bounded like Envoy's
		// ring by maximum_ring_size (per_host 10^4 on 10^5 hosts asked for 10^9 entries, tens of GB).
		if p[pPerHost].Valid && p[pPerHost].I*(n+1) > hashing.DefaultMaxRingSize {
			return nil, model.Issue{Param: "per_host", Message: fmt.Sprintf("%d entries per host on n+1 = %d hosts: need per_host·(n+1) ≤ %d (Envoy's maximum_ring_size)", p[pPerHost].I, n+1, hashing.DefaultMaxRingSize)}
		}
	}
	if s == Maglev {
		c := hashing.MaglevConfig{N: int(n) + 1, TableSize: int(p[pTableSize].I)}
		if err := c.Validate(); err != nil {
			return nil, model.Issue{Param: "table_size", Message: err.Error()}
		}
	}
	if s == MultiProbe && (p[pProbes].I < 1 || p[pProbes].I > 1000) {
		return nil, model.Issue{Param: "probes", Message: fmt.Sprintf("%d: need 1 ≤ probes ≤ 1000", p[pProbes].I)}
	}
	if s == Bounded && (!(p[pEpsilon].F >= 0) || math.IsInf(p[pEpsilon].F, 0)) {
		return nil, model.Issue{Param: "epsilon", Message: fmt.Sprintf("%v: need a finite ε ≥ 0", p[pEpsilon].F)}
	}
	if p[pWeights].Valid {
		w := p[pWeights].L
		if len(w) != int(n) {
			return nil, model.Issue{Param: "weights", Message: fmt.Sprintf("%d weights for n = %d servers", len(w), n)}
		}
		for i, x := range w {
			if !(x > 0) || math.IsInf(x, 0) {
				return nil, model.Issue{Param: "weights", Message: fmt.Sprintf("weight %d is %v: need finite values > 0", i, x)}
			}
		}
	}
	if s == Bounded && p[pWeights].Valid {
		// Bounded loads give every server a capacity ∝ its weight, but a server without a ring entry receives no key,
		// so its capacity is lost and the others' may not hold the m keys (Run would fail): refuse such weights.
		n2, w2 := changed(p)
		for _, c := range []hashing.RingConfig{ringConfig(p, int(n), p[pWeights].L, 0), ringConfig(p, n2, w2, 0)} {
			if i := emptyServer(c); i >= 0 {
				return nil, model.Issue{Param: "weights", Message: fmt.Sprintf("server %d of %d gets no ring entry at this ring size (its weight share is below 1/entries): bounded loads would give it a capacity no key can use", i, c.N)}
			}
		}
	}
	if p[pZipfS].Valid && (!(p[pZipfS].F >= 0) || math.IsInf(p[pZipfS].F, 0)) {
		return nil, model.Issue{Param: "zipf_s", Message: fmt.Sprintf("%v: need a finite s ≥ 0", p[pZipfS].F)}
	}
	if p[pReference].Valid && !(p[pReference].F >= 1) {
		return nil, model.Issue{Param: "ptm_reference", Message: fmt.Sprintf("%v: a peak-to-mean ratio is ≥ 1", p[pReference].F)}
	}
	var warn []string
	if s == Rendezvous && float64(n)*float64(m) > 1e9 {
		warn = append(warn, fmt.Sprintf("rendezvous evaluates n·m = %.2g scores twice (about 2 ns each)", float64(n)*float64(m)))
	}
	return warn, nil
}

// emptyServer returns the first server without an entry on the ring c describes, or −1.
func emptyServer(c hashing.RingConfig) int {
	for i, k := range c.Counts() {
		if k == 0 {
			return i
		}
	}
	return -1
}

// Cost implements model.Model: two placements of every key (before and after the change), rendezvous n scores each,
// the two rings' builds (about 6 units per entry each: 180 ns an entry measured over the hashing-ring experiment)
// and Maglev's two table builds (about two permutation steps per slot each).
func (Model) Cost(p model.Point) float64 {
	per := 2.0
	switch Scheme(p[pScheme].I) {
	case Rendezvous:
		per = 2 * float64(p[pN].I) / 10
	case MultiProbe:
		per = 2 * float64(p[pProbes].I) / 2
	}
	c := per * float64(p[pM].I)
	if usesRing(Scheme(p[pScheme].I)) { // two rings built: a hash and a sorted insert per entry, about 6 units each
		entries := float64(p[pN].I + 1)
		if p[pPerHost].Valid {
			entries *= float64(p[pPerHost].I)
		} else if p[pMinRingSize].Valid {
			entries = max(entries, float64(p[pMinRingSize].I))
		}
		c += 2 * 6 * entries
	}
	if Scheme(p[pScheme].I) == Maglev && p[pTableSize].Valid {
		c += 4 * float64(p[pTableSize].I) // two tables (before and after the change), filled by permutation steps
	}
	return c
}

// EventsPerSecond implements model.Rater: 3·10^7 placements per CPU-second (measured on the project's machine,
// 2026-12-02, experiments/sweep TestPlanRates -calibrate: jump 1.6·10^7, rendezvous and multi-probe 3.4–4.3·10^7
// per Cost unit).
func (Model) EventsPerSecond(model.Point) float64 { return 3e7 }

// TheoryCost implements model.TheoryCoster: the ring's peak-to-mean law (a quadrature over gamma quantiles) took
// 0.12–0.32 s per point on the project's machine, Maglev's table build 0.01 s per run; as Cost units at
// EventsPerSecond, 0.25 s for a ring point and nothing for the others (bounded loads has no such law).
func (Model) TheoryCost(p model.Point) float64 {
	if Scheme(p[pScheme].I) == Ring {
		return 0.25 * 3e7
	}
	return 0
}
