package policy

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"lbsweep/model"
	"lbsweep/model/sim"
)

// scoringOf returns the named scoring policy with candidate rule c over s (ewma and ewma_success: alpha 0.2,
// observed at completion).
func scoringOf(name string, c ScoreConfig, s Servers) Policy {
	switch name {
	case "least_outstanding":
		return LeastOutstandingConfig{c}.New(s)
	case "ewma":
		return EWMAConfig{ScoreConfig: c, Alpha: 0.2, Observe: AtCompletion}.New(s)
	case "ewma_success":
		return EWMAConfig{ScoreConfig: c, Alpha: 0.2, Observe: AtCompletion, Success: true}.New(s)
	}
	panic("no scoring policy " + name)
}

// least_outstanding scans in list order: tie = first always takes the first least-loaded server (seed 000 §5.3's
// min), tie = random spreads over the tied ones uniformly.
func TestLeastOutstandingTies(t *testing.T) {
	l := levelsOf(3, 1, 4, 1, 5, 9, 2, 6, 1, 3)
	r := sim.NewRand(41, 41)
	first := scoringOf("least_outstanding", ScoreConfig{Tie: TieFirst}, Servers{N: 10})
	if counts := histogram(first, l, r); counts[1] != picks {
		t.Errorf("tie = first: %v, want every pick on server 1", counts)
	}
	probs := make([]float64, 10)
	for _, k := range []int{1, 3, 8} {
		probs[k] = 1.0 / 3
	}
	counts := histogram(scoringOf("least_outstanding", ScoreConfig{Tie: TieRandom}, Servers{N: 10}), l, r)
	if stat, crit := chiSquare(t, counts, probs); stat > crit {
		t.Errorf("tie = random: chi-square %.1f > %.1f (alpha %v): counts %v", stat, crit, alpha, counts)
	}
}

// With d the candidates are a uniform sample of d distinct servers in random order, so the laws are jsq_d's whatever
// the tie rule (a first-wins tie falls on a uniformly random tied candidate).
func TestScoredSampleLaws(t *testing.T) {
	for i, c := range []struct {
		lengths []int
		tie     Tie
		probs   []float64
	}{
		{[]int{0, 1, 2}, TieFirst, []float64{2.0 / 3, 1.0 / 3, 0}},
		{[]int{1, 0, 0, 2}, TieFirst, []float64{1.0 / 6, 2.5 / 6, 2.5 / 6, 0}},
		{[]int{1, 0, 0, 2}, TieRandom, []float64{1.0 / 6, 2.5 / 6, 2.5 / 6, 0}},
	} {
		p := scoringOf("least_outstanding", ScoreConfig{D: 2, Tie: c.tie}, Servers{N: len(c.lengths)})
		counts := histogram(p, levelsOf(c.lengths...), sim.NewRand(43, uint64(i)))
		if stat, crit := chiSquare(t, counts, c.probs); stat > crit {
			t.Errorf("lengths %v, tie %d: chi-square %.1f > %.1f (alpha %v): counts %v, want %v", c.lengths, c.tie, stat,
				crit, alpha, counts, c.probs)
		}
	}
}

// Seed 000 §6.3: a server whose score is below every other's wins every sample it appears in, so under power of d
// choices its share is the probability of appearing in a uniform d-sample of N, exactly d/N. Here ewma on idle servers
// whose configured latencies are 10 except one at 1, for N = 4 and 16 and every d: each pick's candidates are d
// distinct servers, the fast one wins whenever sampled (exactly), and its share lies in the two-sided binomial
// acceptance region of Binomial(picks, d/N) at alpha.
func TestBlastRadius(t *testing.T) {
	for _, n := range []int{4, 16} {
		lat := make([]float64, n)
		for k := range lat {
			lat[k] = 10
		}
		fast := n - 1
		lat[fast] = 1
		l := sim.NewLevels(n)
		for d := 1; d <= n; d++ {
			p := scoringOf("ewma", ScoreConfig{D: d}, Servers{N: n, Latency: lat})
			r := sim.NewRand(uint64(n), uint64(d))
			won := 0
			for i := range picks {
				k := p.Pick(view(l), Request{}, r)
				cand := p.(Sampler).Candidates()
				if len(cand) != d || len(slices.Compact(slices.Sorted(slices.Values(cand)))) != d {
					t.Fatalf("N=%d d=%d pick %d: candidates %v, want %d distinct", n, d, i, cand, d)
				}
				if in := slices.Contains(cand, fast); in != (k == fast) {
					t.Fatalf("N=%d d=%d pick %d: candidates %v, picked %d: the fast server must win exactly when sampled",
						n, d, i, cand, k)
				}
				if k == fast {
					won++
				}
			}
			b := distuv.Binomial{N: picks, P: float64(d) / float64(n)}
			x := float64(won)
			if lower, upper := b.CDF(x), 1-b.CDF(x-1); min(lower, upper) < alpha/2 && d < n {
				t.Errorf("N=%d d=%d: the fast server won %d of %d picks, expected %.0f (d/N)", n, d, won, picks, b.Mean())
			}
			if d == n && won != picks {
				t.Errorf("N=%d d=N: the fast server won %d of %d picks, want all", n, won, picks)
			}
		}
	}
}

// The estimate moves toward each observation with weight alpha, whenever the model calls Observe (at completion by
// default, at dispatch with observe = dispatch: Traits.Observe tells the model which; the fleet's tests check both
// times). ewma never reads the outcome (seed 000 §5.4's test_the_balancer_never_reads_the_outcome: equal latencies
// with opposite verdicts give equal estimates and scores); ewma_success divides the score by (ok+1)/(ok+err+2),
// counting OK as a success and every other outcome as a failure.
func TestEWMAObservations(t *testing.T) {
	const a = 0.25
	for _, observe := range []When{AtCompletion, AtDispatch} {
		c := EWMAConfig{Alpha: a, Observe: observe}
		if got := c.Traits(Servers{N: 2}).Observe; got != observe {
			t.Errorf("observe %d: Traits.Observe = %d", observe, got)
		}
		p := c.New(Servers{N: 2, Latency: []float64{8, 8}}).(*ewma)
		p.Observe(0, 4, 1, OK)
		p.Observe(1, 4, 1, Error)
		want := (1-a)*8 + a*4
		if p.est[0] != want || p.est[1] != want {
			t.Errorf("observe %d: estimates %v, want both %v", observe, p.est, want)
		}
		l := levelsOf(1, 1)
		if s0, s1 := p.score(l, 0), p.score(l, 1); s0 != s1 || s0 != want*2 {
			t.Errorf("observe %d: scores %v, %v, want both %v", observe, s0, s1, want*2)
		}
	}
	p := scoringOf("ewma", ScoreConfig{}, Servers{N: 1}).(*ewma)
	p.Observe(0, 6, 1, OK)
	if want := 0.8*1 + 0.2*6; p.est[0] != want {
		t.Errorf("Observe: estimate %v, want %v", p.est[0], want)
	}

	s := scoringOf("ewma_success", ScoreConfig{}, Servers{N: 2, Latency: []float64{2, 2}}).(*ewma)
	s.est[0], s.ok[0], s.err[0] = 2, 3, 1
	if got, want := s.score(levelsOf(1, 0), 0), 2*2/(4.0/6); math.Abs(got-want) > 1e-12 {
		t.Errorf("ewma_success score %v, want %v", got, want)
	}
	for _, o := range []Outcome{Error, OK, Rejected, Timeout, Cancelled} {
		s.Observe(1, 2, 0, o)
	}
	if ok, bad := s.Outcomes(); ok[1] != 1 || bad[1] != 4 {
		t.Errorf("ewma_success counts ok %v, err %v; want 1 and 4 for server 1", ok, bad)
	}
}

// A d outside 1..n is refused; no d is every server, for the scoring policies only; alpha in (0, 1].
func TestScoringArgs(t *testing.T) {
	i64 := func(x int64) model.Value { return model.IntValue(x) }
	for _, c := range []struct {
		name  string
		set   map[string]model.Value
		valid bool
	}{
		{"ewma", nil, true},
		{"ewma", map[string]model.Value{"d": i64(4)}, true},
		{"ewma", map[string]model.Value{"d": i64(5)}, false},
		{"ewma", map[string]model.Value{"d": i64(-1)}, false},
		{"ewma", map[string]model.Value{"alpha": model.FloatValue(0)}, false},
		{"ewma", map[string]model.Value{"alpha": model.FloatValue(1)}, true},
		{"ewma_success", map[string]model.Value{"alpha": model.FloatValue(1.5)}, false},
		{"least_outstanding", nil, true},
		{"least_outstanding", map[string]model.Value{"d": i64(5)}, false},
		{"jsq_d", nil, false},
	} {
		if err := configOf(t, c.name, c.set).Check(Servers{N: 4}); (err == nil) != c.valid {
			t.Errorf("%s %v: Check = %v, want valid %v", c.name, c.set, err, c.valid)
		}
	}
	dispatch := map[string]model.Value{"observe": i64(1)}
	if configOf(t, "ewma", dispatch).Traits(Servers{N: 4}).Observe != AtDispatch ||
		configOf(t, "ewma", nil).Traits(Servers{N: 4}).Observe != AtCompletion {
		t.Errorf("ewma: Traits.Observe wrong")
	}
	if configOf(t, "jsq_d", map[string]model.Value{"d": i64(2)}).Traits(Servers{N: 4}).Observe != Never {
		t.Errorf("jsq_d observes")
	}
}
