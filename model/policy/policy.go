// Package policy holds the dispatch policies shared by every model that dispatches: one file per policy and one line
// per policy in Registry. A policy sees the servers' loads through *sim.Levels (the true queue lengths, or a stale
// board for models that show the dispatcher old information) and draws its own randomness from the run's dispatch
// stream.
package policy

import (
	"lbsweep/model"
	"lbsweep/model/sim"
)

// Policy picks the server, 0 ≤ k < l.N(), for one arriving job. A Policy value holds one run's policy state (e.g. a
// round-robin cursor) and is not safe for concurrent use.
type Policy interface {
	Pick(l *sim.Levels, r *sim.Rand) int
}

// Args are the typed arguments of every policy; each policy reads the ones its Entry lists.
type Args struct {
	D           int  // jsq_d: number of servers sampled, 1 ≤ D ≤ n
	Replacement bool // jsq_d: sample with replacement (Envoy's least-request sampling)
}

// Entry registers one policy.
type Entry struct {
	Name string   // snake_case, as specs and Parquet write it; never changes once released
	Doc  string   // what it does and its source
	Args []string // names of the Params it takes
	// Required lists the arguments that have no default.
	Required []string
	New      func(a Args, n int) Policy
}

// Params declares the policy arguments; they become nullable results columns (null for policies that do not take
// them).
var Params = []model.Param{
	{Name: "d", Kind: model.Int, Policy: true,
		Doc: "jsq_d: servers sampled per arrival, 1 ≤ d ≤ n; null for other policies"},
	{Name: "replacement", Kind: model.Bool, Policy: true, Default: model.BoolValue(false),
		Doc: "jsq_d: sample with replacement (default false: d distinct servers); null for other policies"},
}

// ID is a policy's enum value: its index in Registry, as a model's "policy" parameter holds it.
type ID int64

// The registered policies' IDs, in Registry order (a test checks they match the names).
const (
	Random ID = iota
	RoundRobin
	JSQd
	JSQ
)

// Registry lists every policy, in the order `sweep -list` prints them. Index i is the policy's ID.
var Registry = []Entry{
	{Name: "random", Doc: randomDoc, New: newRandom},
	{Name: "round_robin", Doc: roundRobinDoc, New: newRoundRobin},
	{Name: "jsq_d", Doc: jsqdDoc, Args: []string{"d", "replacement"}, Required: []string{"d"}, New: newJSQd},
	{Name: "jsq", Doc: jsqDoc, New: newJSQ},
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
