package policy

import (
	"fmt"
	"slices"
	"testing"

	"lbsweep/model/sim"
)

// serverSets are the server configurations the traits are tested over: equal weights, and unequal ones (which the
// weighted policies read).
var serverSets = []Servers{
	{N: 5},
	{N: 5, Weight: []float64{3, 1, 1, 2, 1}},
}

// A policy whose picks ignore the loads must say so (Traits.Split), and one that declares a static split must ignore
// them: every variant, over equal and unequal weights, picks 300 times on two fixed views, all servers idle and
// loads n−1, …, 1, 0 (so the shortest queue is not server 0, which first-wins ties pick on idle servers), from
// identically seeded generators, the requests cycling through 17 keys. An Observer is also told, after each pick, the latency its view implies (one time
// unit per request at the server, its own included, answered at once), since that is how a latency-scoring policy
// (least_latency) reads the loads. The two pick sequences are equal exactly when the policy declares a static split.
// This is what keeps a new load-blind policy from silently switching off the supermarket's instability check.
func TestRegistryLoadBlindDeclared(t *testing.T) {
	for _, s := range serverSets {
		idle := sim.NewLevels(s.N)
		loaded := sim.NewLevels(s.N)
		for k := range s.N {
			for range s.N - 1 - k {
				loaded.Up(k, 0)
			}
		}
		for _, v := range variants(s.N) {
			c := v.config(t)
			if c.Check(s) != nil {
				continue
			}
			pa, pb := c.New(s), c.New(s)
			oa, _ := pa.(Observer)
			ob, _ := pb.(Observer)
			ra, rb := sim.NewRand(5, 5), sim.NewRand(5, 5)
			same := true
			for i := range 300 {
				req := Request{Key: uint64(i % 17), Now: float64(i)} // keyed policies see several keys
				a, b := pa.Pick(view(idle), req, ra), pb.Pick(view(loaded), req, rb)
				if a != b {
					same = false
				}
				if oa != nil {
					oa.Observe(a, float64(idle.Len(a)+1), req.Now, OK)
					ob.Observe(b, float64(loaded.Len(b)+1), req.Now, OK)
				}
			}
			blind := c.Traits(s).Split != LoadAware
			if same != blind {
				t.Errorf("%s, weights %v: picks on different loads equal = %v, but Traits.Split = %d", v.name, s.Weight,
					same, c.Traits(s).Split)
			}
		}
	}
}

// Every policy that claims eligibility (Traits.Eligibility) never picks an ineligible server: random masks (each
// server eligible with probability ½, at least one), changing loads, responses observed now and then, 3000 picks per
// variant, at n = 1, 2, 7 and unequal weights.
func TestRegistryEligibilityHonored(t *testing.T) {
	sets := []Servers{{N: 1}, {N: 2}, {N: 7}, {N: 7, Weight: []float64{5, 1, 1, 2, 2, 3, 1}}}
	claimed := map[string]bool{}
	for _, s := range sets {
		for _, v := range variants(s.N) {
			c := v.config(t)
			if c.Check(s) != nil || !c.Traits(s).Eligibility {
				continue
			}
			claimed[v.e.Name] = true
			p := c.New(s)
			obs, _ := p.(Observer)
			r, churn := sim.NewRand(7, uint64(s.N)), sim.NewRand(8, uint64(s.N))
			l := sim.NewLevels(s.N)
			mask := make([]bool, s.N)
			for i := range 3000 {
				any := false
				for k := range mask {
					mask[k] = churn.IntN(2) == 0
					any = any || mask[k]
				}
				if !any {
					mask[churn.IntN(s.N)] = true
				}
				k := p.Pick(View{Loads: l, Eligible: mask}, Request{Now: float64(i)}, r)
				if k < 0 || k >= s.N || !mask[k] {
					t.Fatalf("%s, n=%d, weights %v: pick %d = %d, eligible %v", v.name, s.N, s.Weight, i, k, mask)
				}
				l.Up(k, float64(i))
				if busy := l.Count(1); busy > 0 && churn.IntN(2) == 0 {
					l.Down(l.Busy(churn.IntN(busy)), float64(i))
				}
				if obs != nil && i%3 == 0 {
					obs.Observe(k, 1+churn.Float64()*10, float64(i), Outcome(churn.IntN(5)))
				}
			}
		}
	}
	// The policies documented as honoring it.
	for _, name := range []string{"random", "round_robin", "jsq", "smooth_wrr", "wrr_expanded", "least_outstanding", "ewma", "ewma_success"} {
		if !claimed[name] {
			t.Errorf("%s does not claim eligibility", name)
		}
	}
}

// With an all-true mask, the policies that honor eligibility pick as with no mask, for the policies whose masked
// path draws the same randomness (the cyclic ones), and every eligible server still gets picks (round robin skips
// exactly the ineligible ones, keeping the others' cyclic order).
func TestEligibilityCyclic(t *testing.T) {
	const n = 5
	l := sim.NewLevels(n)
	rr := RoundRobinConfig{}.New(Servers{N: n})
	mask := []bool{true, false, true, false, true}
	var got []int
	for range 6 {
		got = append(got, rr.Pick(View{Loads: l, Eligible: mask}, Request{}, nil))
	}
	if want := []int{0, 2, 4, 0, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("round_robin over {0, 2, 4}: %v, want %v", got, want)
	}
	// nginx skips an ineligible peer entirely: smooth WRR over 5:1:1 with b out is 5:1 over a and c.
	s := NewSWRR([]float64{5, 1, 1})
	got = got[:0]
	for range 6 {
		got = append(got, s.Pick(View{Loads: l, Eligible: []bool{true, false, true}}, Request{}, nil))
	}
	if want := NewSWRR([]float64{5, 1}); letters(got) != letters(picksOf(func() int { return 2 * want.Next() }, 6)) {
		t.Errorf("smooth_wrr 5:1:1 without b: %s", letters(got))
	}
	e := NewExpandedWRR([]int{2, 1, 1})
	got = got[:0]
	for range 6 {
		got = append(got, e.Pick(View{Eligible: []bool{false, true, true}}, Request{}, nil))
	}
	if letters(got) != "bcbcbc" {
		t.Errorf("wrr_expanded 2:1:1 without a: %s, want bcbcbc", letters(got))
	}
}

// The declared sequences are the sequences: RoundRobinSequence picks 0, 1, …, n−1 in turn, ExpandedSequence the
// expanded list of the integer weights, whatever the loads, for every variant that declares one; and the theory
// families carry their d.
func TestRegistrySequencesAndFamilies(t *testing.T) {
	for _, s := range append(serverSets, Servers{N: 3, Weight: []float64{0.5, 1, 1.5}}) {
		for _, v := range variants(s.N) {
			c := v.config(t)
			if c.Check(s) != nil {
				continue
			}
			tr := c.Traits(s)
			var want []int
			switch tr.Sequence {
			case RoundRobinSequence:
				for i := range 4 * s.N {
					want = append(want, i%s.N)
				}
			case ExpandedSequence:
				ints, err := IntegerWeights(s.weights())
				if err != nil {
					t.Fatal(err)
				}
				want = picksOf(NewExpandedWRR(ints).Next, 30)
			case SmoothSequence:
				want = picksOf(NewSWRR(s.weights()).Next, 30)
			default:
				continue
			}
			if tr.Split == LoadAware {
				t.Errorf("%s: a sequence but a load-aware split", v.name)
			}
			p, r := c.New(s), sim.NewRand(1, 2)
			l := sim.NewLevels(s.N)
			var got []int
			for i := range want {
				k := p.Pick(view(l), Request{Now: float64(i)}, r)
				got = append(got, k)
				l.Up(k, float64(i))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s, weights %v: Sequence %d but picks %v, want %v", v.name, s.Weight, tr.Sequence, got, want)
			}
		}
	}
	for d := 1; d <= 3; d++ {
		tr := JSQdConfig{D: d}.Traits(Servers{N: 5})
		if tr.Family != FamilyJSQd || tr.D != d {
			t.Errorf("jsq_d d=%d: family %d, D %d", d, tr.Family, tr.D)
		}
	}
	if (JSQConfig{}).Traits(Servers{N: 5}).Family != FamilyJSQ || (RandomConfig{}).Traits(Servers{N: 5}).Family != FamilyRandom {
		t.Error("jsq, random: families wrong")
	}
	for _, name := range []string{"least_request", "peak_ewma", "least_outstanding", "ewma_success", "smooth_wrr"} {
		for _, v := range variants(5) {
			if v.e.Name == name && v.config(t).Traits(Servers{N: 5}).Family != NoFamily {
				t.Errorf("%s declares family %d", v.name, v.config(t).Traits(Servers{N: 5}).Family)
			}
		}
	}
}

func TestOutcomeNames(t *testing.T) {
	for o, want := range []string{"ok", "error", "rejected", "timeout", "cancelled"} {
		if got := Outcome(o).String(); got != want {
			t.Errorf("Outcome(%d) = %q, want %q", o, got, want)
		}
	}
	if got := Outcome(9).String(); got != fmt.Sprintf("Outcome(%d)", 9) {
		t.Errorf("Outcome(9) = %q", got)
	}
}
