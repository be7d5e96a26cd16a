package resilience

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/model/sim"
)

// alpha is the significance level of the statistical tests here (two-sided, Student t over replications or the
// normal approximation of a Poisson count); with fixed seeds each test is deterministic, and a correct engine fails
// one with probability alpha over the seeds.
const alpha = 0.001

// setValue parses v as a value of parameter prm (Int, Float, Bool, Enum), failing the test on a bad value.
func setValue(t testing.TB, prm model.Param, v string) model.Value {
	t.Helper()
	switch prm.Kind {
	case model.Int:
		var x int64
		if _, err := fmt.Sscan(v, &x); err != nil {
			t.Fatalf("%s = %q: %v", prm.Name, v, err)
		}
		return model.IntValue(x)
	case model.Float:
		var x float64
		if _, err := fmt.Sscan(v, &x); err != nil {
			t.Fatalf("%s = %q: %v", prm.Name, v, err)
		}
		return model.FloatValue(x)
	case model.Bool:
		return model.BoolValue(v == "true")
	case model.Enum:
		i := slices.Index(prm.Choices, v)
		if i < 0 {
			t.Fatalf("%s = %q: not one of %v", prm.Name, v, prm.Choices)
		}
		return model.IntValue(int64(i))
	}
	t.Fatalf("%s: kind %v not settable here", prm.Name, prm.Kind)
	return model.Value{}
}

// fields builds one record over the fields fs from name=value pairs.
func fields(t testing.TB, fs []model.Param, kv ...string) model.Record {
	t.Helper()
	r := make(model.Record, len(fs))
	for _, s := range kv {
		name, v, _ := strings.Cut(s, "=")
		i := model.Index(fs, name)
		if i < 0 {
			t.Fatalf("no field %s", name)
		}
		r[i] = setValue(t, fs[i], v)
	}
	return r
}

// srvClass is a server class record: count servers and the class's fields as name=value pairs.
func srvClass(t testing.TB, count int, kv ...string) model.Record {
	t.Helper()
	return fields(t, params[pServers].Fields, append([]string{fmt.Sprint("count=", count)}, kv...)...)
}

// entry is a timeline entry: at, action and the other fields as name=value pairs.
func entry(t testing.TB, at float64, action string, kv ...string) model.Record {
	t.Helper()
	return fields(t, params[pTimeline].Fields, append([]string{fmt.Sprint("at=", at), "action=" + action}, kv...)...)
}

// raw builds a point over the server classes and timeline (nil: none) with policy pol and settings (name=value,
// policy arguments included), defaults applied, neither resolved nor checked.
func raw(t testing.TB, classes []model.Record, timeline []model.Record, pol string, set ...string) model.Point {
	t.Helper()
	p := make(model.Point, len(params))
	for i, prm := range params {
		if prm.Default.Valid {
			p[i] = prm.Default
		}
	}
	p[pServers] = model.RecordsValue(classes)
	if timeline != nil {
		p[pTimeline] = model.RecordsValue(timeline)
	}
	e, ok := policy.Lookup(pol)
	if !ok {
		t.Fatalf("no policy %s", pol)
	}
	p[pPolicy] = model.IntValue(int64(slices.Index(policy.Names(), pol)))
	for i := pPolicy + 1; i < len(params); i++ {
		a, _ := e.Arg(params[i].Name)
		p[i] = a.Default // null where e does not take it
	}
	for _, kv := range set {
		name, v, _ := strings.Cut(kv, "=")
		i := model.Index(params, name)
		if i < 0 {
			t.Fatalf("no parameter %s", name)
		}
		p[i] = setValue(t, params[i], v)
	}
	return p
}

// point is raw, resolved and checked (unstable loads allowed: bounded or transient overloads are what the tests
// build).
func point(t testing.TB, classes []model.Record, timeline []model.Record, pol string, set ...string) model.Point {
	t.Helper()
	p := raw(t, classes, timeline, pol, set...)
	if err := (Model{}).Resolve(p); err != nil {
		t.Fatalf("invalid test point: %v", err)
	}
	if _, err := (Model{}).Check(p, model.CheckOptions{AllowUnstable: true}); err != nil {
		t.Fatalf("invalid test point: %v", err)
	}
	return p
}

// simulateWith runs point p with seed (run, 7) and policy pol (nil: the point's own), observing as the point's
// policy does (or at completion for a given Observer).
func simulateWith(t testing.TB, p model.Point, run uint64, pol policy.Policy) outcome {
	t.Helper()
	c := configOf(p)
	ps := c.policyServers()
	pc := policyConfig(p)
	observe := pc.Traits(ps).Observe
	if pol == nil {
		pol = pc.New(ps)
	} else if _, ok := pol.(policy.Observer); ok {
		observe = policy.AtCompletion
	} else {
		observe = policy.Never
	}
	out, err := simulate(context.Background(), c, model.Seed{Run: run, Policy: 7}, pol, observe)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// run is simulateWith the point's own policy.
func run(t testing.TB, p model.Point, seed uint64) outcome {
	t.Helper()
	return simulateWith(t, p, seed, nil)
}

// observation is one answer the balancer saw.
type observation struct {
	server       int
	latency, now float64 // at the balancer: since dispatch, and when
	outcome      policy.Outcome
}

// pick is one dispatch: the request as the balancer saw it and the server picked.
type pick struct {
	req    policy.Request
	server int
}

// tap wraps a policy (nil: round robin over the eligible servers), recording every pick and every answer the
// balancer saw (observations are forwarded when the inner policy is an Observer).
type tap struct {
	inner policy.Policy
	n     int // round robin: the servers, and the next one
	next  int
	picks []pick
	seen  []observation
	// The balancer's view checked at every pick: server k's outstanding count must be the attempts sent to it less
	// those answered or timed out (each told to the tap once). bad counts the picks where it is not.
	sent, told []int32
	bad        int
}

func (f *tap) Pick(v policy.View, r policy.Request, rnd *sim.Rand) int {
	if f.sent == nil {
		f.sent, f.told = make([]int32, f.n), make([]int32, f.n)
	}
	for k := range f.n {
		if v.Loads.Len(k) != f.sent[k]-f.told[k] {
			f.bad++
			break
		}
	}
	var k int
	if f.inner != nil {
		k = f.inner.Pick(v, r, rnd)
	} else {
		for {
			k = f.next
			f.next = (f.next + 1) % f.n
			if v.Eligible == nil || v.Eligible[k] {
				break
			}
		}
	}
	f.picks = append(f.picks, pick{r, k})
	f.sent[k]++
	return k
}

func (f *tap) Observe(k int, latency, now float64, o policy.Outcome) {
	if obs, ok := f.inner.(policy.Observer); ok {
		obs.Observe(k, latency, now, o)
	}
	f.seen = append(f.seen, observation{k, latency, now, o})
	if f.told != nil {
		f.told[k]++
	}
}

// record runs p with a tap over round robin and returns what it saw.
func record(t testing.TB, p model.Point, seed uint64) (outcome, *tap) {
	t.Helper()
	f := &tap{n: configOf(p).n}
	return simulateWith(t, p, seed, f), f
}

// recordPolicy runs p with a tap over the point's own policy.
func recordPolicy(t testing.TB, p model.Point, seed uint64) (outcome, *tap) {
	t.Helper()
	c := configOf(p)
	f := &tap{inner: policyConfig(p).New(c.policyServers()), n: c.n}
	return simulateWith(t, p, seed, f), f
}
