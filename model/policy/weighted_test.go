package policy

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"lbsweep/model/sim"
)

// letters renders server indices as a, b, c, ...
func letters(ks []int) string {
	var b strings.Builder
	for _, k := range ks {
		b.WriteByte(byte('a' + k))
	}
	return b.String()
}

func picksOf(next func() int, count int) []int {
	out := make([]int, count)
	for i := range out {
		out[i] = next()
	}
	return out
}

// nginx's smooth WRR, table-driven. 5:1:1 is the sequence in Maxim Dounin's commit 52327e0 message (and seed 002 §3:
// "a a b a c a a"); equal weights give exactly round robin (seed 000 §7.1); after one cycle of W picks every current
// weight is back to 0.
func TestSmoothWRRSequences(t *testing.T) {
	for _, c := range []struct {
		weights []float64
		want    string
	}{
		{[]float64{5, 1, 1}, "aabacaa"},
		{[]float64{1, 1, 1, 1}, "abcd"},
		{[]float64{7, 7, 7}, "abc"},
		{[]float64{1, 2}, "bab"},
		{[]float64{0.5, 1}, "bab"}, // fractional weights: only the ratios matter
		{[]float64{3, 2}, "ababa"},
		{[]float64{1}, "a"},
	} {
		s := NewSWRR(c.weights)
		cycle := len(c.want)
		got := letters(picksOf(s.Next, 3*cycle))
		if want := strings.Repeat(c.want, 3); got != want {
			t.Errorf("weights %v: %s, want %s", c.weights, got, want)
		}
		for k := range c.weights {
			if cur := s.Current(k); math.Abs(cur) > 1e-12 {
				t.Errorf("weights %v: after 3 cycles current_weight[%d] = %v, want 0", c.weights, k, cur)
			}
		}
	}
}

// Equal weights through the registry, with any n: exactly the round-robin sequence.
func TestSmoothWRREqualWeightsIsRoundRobin(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100} {
		p := SmoothWRRConfig{}.New(Servers{N: n})
		rr := RoundRobinConfig{}.New(Servers{N: n})
		l := sim.NewLevels(n)
		for i := range 5 * n {
			if a, b := p.Pick(view(l), Request{}, nil), rr.Pick(view(l), Request{}, nil); a != b {
				t.Fatalf("n=%d pick %d: smooth_wrr %d, round_robin %d", n, i, a, b)
			}
		}
	}
}

// effective_weight: a failure de-rates by weight/max_fails (floored at 0) and each later pick restores 1 (nginx
// ngx_http_upstream_free_round_robin_peer and get_peer). With weights 5:1:1 and a's effective weight cut to 0, the next
// pick cannot be a's... and a returns to full weight after 5 picks.
func TestSmoothWRRFailure(t *testing.T) {
	s := NewSWRR([]float64{5, 1, 1})
	s.Fail(0, 1) // max_fails = 1: effective 5 − 5 = 0
	if s.effective[0] != 0 {
		t.Fatalf("effective weight after failure %v, want 0", s.effective[0])
	}
	if k := s.Next(); k == 0 {
		t.Errorf("first pick after the failure went to the failed server")
	}
	// That pick added effective weight 0 to a's current weight, then restored 1.
	for want := 1.0; want <= 5; want++ {
		if s.effective[0] != want {
			t.Fatalf("effective weight %v, want %v", s.effective[0], want)
		}
		s.Next()
	}
	if s.effective[0] != 5 {
		t.Errorf("effective weight %v after recovery, want 5", s.effective[0])
	}
	s.Fail(1, 3) // 1 − 1/3
	if math.Abs(s.effective[1]-2.0/3) > 1e-15 {
		t.Errorf("effective weight %v, want 2/3", s.effective[1])
	}
}

// The naive expanded list: 5:1:1 is a a a a a b c (seed 002 §3).
func TestExpandedWRRSequence(t *testing.T) {
	e := NewExpandedWRR([]int{5, 1, 1})
	if got := letters(picksOf(e.Next, 14)); got != "aaaaabcaaaaabc" {
		t.Errorf("5:1:1 expanded: %s", got)
	}
	p := WRRExpandedConfig{}.New(Servers{N: 2, Weight: []float64{0.5, 1}})
	var ks []int
	for range 6 {
		ks = append(ks, p.Pick(View{}, Request{}, nil))
	}
	if got := letters(ks); got != "abbabb" {
		t.Errorf("0.5:1 expanded: %s, want abbabb", got)
	}
}

func TestIntegerWeights(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want []int
	}{
		{[]float64{5, 1, 1}, []int{5, 1, 1}},
		{[]float64{0.5, 1}, []int{1, 2}},
		{[]float64{2, 4}, []int{1, 2}},
		{[]float64{1.5, 1}, []int{3, 2}},
		{[]float64{1.0 / 3, 1}, []int{1, 3}},
	} {
		got, err := IntegerWeights(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("IntegerWeights(%v) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if _, err := IntegerWeights([]float64{1, math.Pi}); err == nil {
		t.Error("IntegerWeights(1, π): no error")
	}
}

// binomialOK reports whether x successes in n trials are in the two-sided acceptance region at alpha for success
// probability p (exact binomial CDF).
func binomialOK(x, n int, p float64) bool {
	b := distuv.Binomial{N: float64(n), P: p}
	lower, upper := b.CDF(float64(x)), 1-b.CDF(float64(x)-1)
	return min(lower, upper) >= alpha/2
}

// Envoy's least request, 2 hosts, choice_count 2: the two samples hit the same host half the time, and that host is
// the busier one half of those times, so the busier host is picked 25% of the time (least_request.proto; seed 002
// §4). In general a host is sampled at least once with probability 1 − ((N−1)/N)^C, and the least loaded host is
// picked exactly when it is sampled.
func TestLeastRequestChoiceLaw(t *testing.T) {
	r := sim.NewRand(31, 31)
	for _, c := range []struct {
		lengths []int
		choices int
	}{
		{[]int{5, 0}, 2}, {[]int{0, 5}, 2}, {[]int{3, 4, 4, 4, 4}, 3}, {[]int{2, 3, 3, 3, 3, 3, 3, 3, 3, 3}, 2},
		{[]int{1, 2, 2, 2}, 1}, {[]int{1, 2, 2, 2}, 8},
	} {
		n := len(c.lengths)
		best := slices.Index(c.lengths, slices.Min(c.lengths))
		p := LeastRequestConfig{ChoiceCount: c.choices, ActiveRequestBias: 1}.New(Servers{N: n})
		counts := histogram(p, levelsOf(c.lengths...), r)
		want := 1 - math.Pow(float64(n-1)/float64(n), float64(c.choices))
		if !binomialOK(counts[best], picks, want) {
			t.Errorf("lengths %v, choice_count %d: least loaded picked %d of %d, want probability %.4f", c.lengths,
				c.choices, counts[best], picks, want)
		}
	}
}

// FULL_SCAN: always a least loaded host, ties uniform (reservoir sampling).
func TestLeastRequestFullScan(t *testing.T) {
	p := LeastRequestConfig{ChoiceCount: 2, FullScan: true, ActiveRequestBias: 1}.New(Servers{N: 6})
	l := levelsOf(2, 1, 3, 1, 1, 4)
	counts := histogram(p, l, sim.NewRand(32, 32))
	probs := []float64{0, 1.0 / 3, 0, 1.0 / 3, 1.0 / 3, 0}
	if stat, crit := chiSquare(t, counts, probs); stat > crit {
		t.Errorf("full scan ties: chi-square %.1f > %.1f: %v", stat, crit, counts)
	}
}

// Unequal weights: Envoy's EDF schedule. With active_request_bias = 0 the dynamic weight is the static weight, so
// every window of W picks holds each host in proportion (2:1 here, in the order the deadlines give: a b a a b a ...).
// With bias 1 and 3 jobs at a, a's weight is 2/4 against b's 1: the long-run split is 1:2 in b's favour.
func TestLeastRequestWeightedEDF(t *testing.T) {
	servers := Servers{N: 2, Weight: []float64{2, 1}}
	p := LeastRequestConfig{ChoiceCount: 2, ActiveRequestBias: 0}.New(servers)
	l := levelsOf(0, 0)
	var ks []int
	for range 6 {
		ks = append(ks, p.Pick(view(l), Request{}, nil))
	}
	// Deadlines: a 0.5, b 1; pick a (clock 0.5, a → 1.0); b (1.0, inserted earlier) beats a (1.0): b (clock 1, b → 2);
	// a (1.0 → 1.5); a (1.5 → 2.0); b (2.0, earlier) → 3; a (2.0 → 2.5).
	if got := letters(ks); got != "abaaba" {
		t.Errorf("bias 0, 2:1: %s, want abaaba", got)
	}
	p = LeastRequestConfig{ChoiceCount: 2, ActiveRequestBias: 1}.New(servers)
	l = levelsOf(3, 0)
	counts := [2]int{}
	for range 3000 {
		counts[p.Pick(view(l), Request{}, nil)]++
	}
	// Deterministic: with the queues fixed the dynamic weights are constant, so every window of three picks holds one
	// a and two b's; 3000 picks give exactly 1000, and ±1 allows for where the windows start.
	if counts[0] < 999 || counts[0] > 1001 {
		t.Errorf("bias 1, 3 jobs at a: split %v, want 1000:2000", counts)
	}
}

// Peak EWMA (tower 0.4.13 RttEstimate::update): a higher sample replaces the estimate at once; a lower one blends in
// with weight 1 − e^(−Δ/τ); computing a cost decays the estimate toward 0 and moves its update time.
func TestPeakEWMARule(t *testing.T) {
	const tau = 10.0
	p := PeakEWMAConfig{Tau: tau, DefaultRTT: 1}.New(Servers{N: 2}).(*peakEWMA)
	if p.estimate[0] != 1 || p.estimate[1] != 1 {
		t.Fatalf("initial estimates %v, want default_rtt 1", p.estimate)
	}
	p.Observe(0, 5, 1, OK) // peak: replaces
	if p.estimate[0] != 5 {
		t.Errorf("after a peak sample 5: %v", p.estimate[0])
	}
	half := 1 + tau*math.Ln2 // Δ = τ ln 2: weight 1/2
	p.Observe(0, 1, half, OK)
	if want := 5*0.5 + 1*0.5; math.Abs(p.estimate[0]-want) > 1e-12 {
		t.Errorf("after a lower sample: %v, want %v", p.estimate[0], want)
	}
	// Cost with 2 jobs queued, τ later: the estimate decays to 3/e, times (2 + 1).
	l := levelsOf(2, 0)
	if got, want := p.cost(l, 0, half+tau), 3/math.E*3; math.Abs(got-want) > 1e-12 {
		t.Errorf("cost %v, want %v", got, want)
	}
	if p.updated[0] != half+tau {
		t.Errorf("decay did not move the update time: %v", p.updated[0])
	}
	// Two servers: both are always sampled; server 1 (estimate 1 decayed, no queue) costs less than server 0.
	counts := histogram(p, l, sim.NewRand(33, 33))
	if counts[0] != 0 {
		t.Errorf("picked the costlier server %d times", counts[0])
	}
}

// A policy observes exactly when its traits say it does (Traits.Observe ≠ Never iff it is an Observer): peak_ewma,
// least_latency and the seed's EWMA policies; only the scoring policies report their candidates.
func TestObservers(t *testing.T) {
	for _, v := range variants(3) {
		c := v.config(t)
		p := c.New(Servers{N: 3})
		_, observes := p.(Observer)
		_, samples := p.(Sampler)
		if declared := c.Traits(Servers{N: 3}).Observe != Never; observes != declared {
			t.Errorf("%s: Observer = %v, but Traits.Observe = %d", v.name, observes, c.Traits(Servers{N: 3}).Observe)
		}
		seeds := v.e.Name == "ewma" || v.e.Name == "ewma_success"
		if want := v.e.Name == "peak_ewma" || v.e.Name == "least_latency" || seeds; observes != want {
			t.Errorf("%s: Observer = %v, want %v", v.name, observes, want)
		}
		if want := seeds || v.e.Name == "least_outstanding" || v.e.Name == "least_latency"; samples != want {
			t.Errorf("%s: Sampler = %v, want %v", v.name, samples, want)
		}
	}
}

// loopOnly is smooth WRR without the recorded period: nginx's O(n) loop on every pick.
func loopOnly(weights []float64) *SWRR {
	s := NewSWRR(weights)
	s.period = 0
	return s
}

// The recorded period changes no pick: against the O(n) loop on every pick, over integer, dyadic and non-dyadic
// weights, for several periods, then after an eligibility mask and a Fail leave the record mid-period; and Current
// agrees throughout.
func TestSWRRRecordedPeriodIsTheLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sets := [][]float64{{5, 1, 1}, {1, 1, 1, 1}, {0.5, 1, 1, 0.25}, {0.1, 0.2, 0.3}, {3, 3, 6}, {1000, 1}}
	for range 20 {
		w := make([]float64, 1+r.IntN(40))
		for i := range w {
			w[i] = float64(1 + r.IntN(9))
		}
		sets = append(sets, w)
	}
	for _, w := range sets {
		fast, slow := NewSWRR(w), loopOnly(w)
		recorded := fast.period > 0
		p := max(fast.period, len(w))
		mask := make([]bool, len(w))
		for i := range mask {
			mask[i] = i%3 != 1
		}
		if len(w) == 1 {
			mask[0] = true
		}
		for i := range 3*p + p/2 + 7 {
			var a, b int
			switch {
			case i == 3*p+1: // mid-period: a mask leaves the record
				a, b = fast.next(mask), slow.next(mask)
			case i == 3*p+3:
				fast.Fail(0, 2)
				slow.Fail(0, 2)
				a, b = fast.Next(), slow.Next()
			default:
				a, b = fast.Next(), slow.Next()
			}
			if a != b {
				t.Fatalf("weights %v: pick %d: recorded %d, loop %d", w, i, a, b)
			}
			for k := range w {
				if fast.Current(k) != slow.Current(k) {
					t.Fatalf("weights %v: after pick %d: current[%d] %v, loop %v", w, i, k, fast.Current(k), slow.Current(k))
				}
			}
		}
		if fast.period != 0 || fast.replay {
			t.Errorf("weights %v: the record should have been left after the mask (recorded at first: %v)", w, recorded)
		}
	}
	if NewSWRR([]float64{5, 1, 1}).period != 7 || NewSWRR([]float64{0.5, 1}).period != 3 || NewSWRR([]float64{0.1, 1}).period != 0 || NewSWRR([]float64{3, 6}).period != 3 {
		t.Error("periods: want 7 for 5:1:1, 3 for 0.5:1 and 3:6, none for 0.1:1")
	}
}

// benchSWRR500 times a pick of smooth WRR over 500 servers with integer weights 1..5, built by build.
func benchSWRR500(b *testing.B, build func([]float64) *SWRR) {
	w := make([]float64, 500)
	for i := range w {
		w[i] = float64(1 + i%5)
	}
	s := build(w)
	b.ResetTimer()
	for range b.N {
		s.Next()
	}
}

// Per pick, smooth WRR over 500 servers with the period recorded (O(1)), against nginx's O(n) loop on every pick.
func BenchmarkSWRR500(b *testing.B)     { benchSWRR500(b, NewSWRR) }
func BenchmarkSWRR500Loop(b *testing.B) { benchSWRR500(b, loopOnly) }
