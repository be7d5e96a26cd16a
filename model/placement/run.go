package placement

import (
	"context"
	"fmt"
	"math"

	"lbsweep/analytic"
	"lbsweep/model"
	"lbsweep/model/hashing"
	"lbsweep/results/schema"
)

// placer places one key hash on a server and reports the work it took (see lookups_per_key).
type placer interface {
	place(h uint64) (server, work int)
}

type ringPlacer struct{ r *hashing.Ring }

func (p ringPlacer) place(h uint64) (int, int) { return p.r.Owner(p.r.Find(h)), 1 }

type maglevPlacer struct{ g *hashing.Maglev }

func (p maglevPlacer) place(h uint64) (int, int) { return p.g.Lookup(h), 1 }

type jumpPlacer struct{ n int }

func (p jumpPlacer) place(h uint64) (int, int) { return hashing.Jump(h, p.n) }

type rendezvousPlacer struct {
	r *hashing.Rendezvous
	n int
}

func (p rendezvousPlacer) place(h uint64) (int, int) { return p.r.Lookup(h), p.n }

type multiProbePlacer struct{ mp *hashing.MultiProbe }

func (p multiProbePlacer) place(h uint64) (int, int) { return p.mp.Lookup(h), p.mp.Probes() }

type boundedPlacer struct{ b *hashing.Bounded }

func (p boundedPlacer) place(h uint64) (int, int) { return p.b.Place(h) }

// built is one scheme over one server set, with its build statistics.
type built struct {
	placer
	entries, buildOps int
	perHost           []int // entries per server, or nil
	bounded           *hashing.Bounded
	shares            []float64 // each server's share of the hash space (ring arcs, Maglev slots), or nil
}

// arcShares returns each server's share of the circle: the arcs before its entries.
func arcShares(r *hashing.Ring, n int) []float64 {
	sh := make([]float64, n)
	last := r.Position(r.Entries() - 1)
	for i := 0; i < r.Entries(); i++ {
		sh[r.Owner(i)] += float64(r.Position(i)-last) / (1 << 64) // mod 2^64: the first arc wraps
		last = r.Position(i)
	}
	return sh
}

// ringConfig is the ring (ring, bounded) of p over n servers with weights w (nil: equal), positions seeded by salt.
func ringConfig(p model.Point, n int, w []float64, salt uint64) hashing.RingConfig {
	c := hashing.RingConfig{N: n, Weights: w, Salt: salt}
	if p[pMinRingSize].Valid {
		c.MinRingSize = int(p[pMinRingSize].I)
	} else {
		c.PerHost = int(p[pPerHost].I)
	}
	return c
}

// build constructs the scheme of p over n servers with weights w (nil: equal), positions seeded by salt.
func build(p model.Point, n int, w []float64, salt uint64) built {
	m := int(p[pM].I)
	ringOf := func() *hashing.Ring { return hashing.NewRing(ringConfig(p, n, w, salt)) }
	counts := func(f func(int) int) []int {
		c := make([]int, n)
		for s := range c {
			c[s] = f(s)
		}
		return c
	}
	switch Scheme(p[pScheme].I) {
	case Ring:
		r := ringOf()
		return built{placer: ringPlacer{r}, entries: r.Entries(), buildOps: r.Entries(), perHost: counts(r.Count), shares: arcShares(r, n)}
	case Bounded:
		r := ringOf()
		b := hashing.NewBounded(r, n, w, m, p[pEpsilon].F)
		return built{placer: boundedPlacer{b}, entries: r.Entries(), buildOps: r.Entries(), perHost: counts(r.Count), bounded: b}
	case Maglev:
		g := hashing.NewMaglev(hashing.MaglevConfig{N: n, Weights: w, TableSize: int(p[pTableSize].I), Salt: salt})
		sh := make([]float64, n)
		for i := range sh {
			sh[i] = float64(g.Count(i)) / float64(g.TableSize())
		}
		return built{placer: maglevPlacer{g}, entries: g.TableSize(), buildOps: 2*n + g.Probes(), perHost: counts(g.Count), shares: sh}
	case Jump:
		return built{placer: jumpPlacer{n}}
	case Rendezvous:
		return built{placer: rendezvousPlacer{hashing.NewRendezvous(n, w, salt), n}, entries: n, buildOps: n}
	case MultiProbe:
		return built{placer: multiProbePlacer{hashing.NewMultiProbe(n, int(p[pProbes].I), salt)}, entries: n, buildOps: n}
	}
	panic(fmt.Sprintf("placement: unknown scheme %d", p[pScheme].I))
}

// changed returns the server count and weights after the change.
func changed(p model.Point) (int, []float64) {
	n := int(p[pN].I)
	w := p[pWeights].L
	if Change(p[pChange].I) == Leave {
		if w != nil {
			w = w[:n-1]
		}
		return n - 1, w
	}
	if w != nil {
		mean := 0.0 // Σ x/n, not Σx/n: finite weights near math.MaxFloat64 must not sum to +Inf
		for _, x := range w {
			mean += x / float64(n)
		}
		w = append(append([]float64(nil), w...), mean)
	}
	return n + 1, w
}

// ctxKeys is how many keys Run places between looks at its context.
const ctxKeys = 1 << 16

// keySalt separates the keys' hashes from the servers' positions, which use the run seed itself.
const keySalt = 0x6b6579735f706c61 // "keys_pla"

// Run implements model.Model: it places the m keys before and after the change and fills the measured columns.
// With bounded loads it fails if any server ends above its capacity (the invariant the scheme promises).
func (Model) Run(ctx context.Context, p model.Point, seed model.Seed) (schema.Row, error) {
	n, m := int(p[pN].I), int(p[pM].I)
	salt := seed.Run
	ks := hashing.Key(salt, keySalt)
	before := build(p, n, p[pWeights].L, salt)
	n2, w2 := changed(p)
	after := build(p, n2, w2, salt)
	// Traffic accumulates the unnormalized popularities (k+1)^−s and is divided by their sum at the end: no m-sized
	// array (at m = 10^8 one took 800 MB).
	keys := make([]float64, n)
	var traffic []float64
	zipfSum := 0.0
	if p[pZipfS].Valid {
		traffic = make([]float64, n)
	}
	join := Change(p[pChange].I) == Join
	changedServer := n // the joining server's index; on a leave, the leaver's is n−1
	if !join {
		changedServer = n - 1
	}
	zipfS := p[pZipfS].F
	moved, necessary, work, workMax := 0, 0, 0, 0
	for k := 0; k < m; k++ {
		if k%ctxKeys == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		h := hashing.Key(uint64(k), ks)
		s, wk := before.place(h)
		u, _ := after.place(h)
		if s < 0 || u < 0 {
			return nil, fmt.Errorf("placement: key %d found no server with room (bounded loads)", k)
		}
		keys[s]++
		if traffic != nil {
			z := math.Pow(float64(k+1), -zipfS)
			traffic[s] += z
			zipfSum += z
		}
		work += wk
		workMax = max(workMax, wk)
		if s != u {
			moved++
			if join && u == changedServer || !join && s == changedServer {
				necessary++
			}
		}
	}
	b := metrics.NewRow()
	ptm, cv := spread(keys, float64(m)/float64(n))
	b.Set(colKeysPTM, schema.Float(ptm))
	b.Set(colKeysCV, schema.Float(cv))
	if traffic != nil {
		for i := range traffic {
			traffic[i] /= zipfSum
		}
		ptm, cv := spread(traffic, 1/float64(n))
		b.Set(colTrafficPTM, schema.Float(ptm))
		b.Set(colTrafficCV, schema.Float(cv))
	}
	b.Set(colMoved, schema.Float(float64(moved)/float64(m)))
	if moved > 0 {
		b.Set(colNecessary, schema.Float(float64(necessary)/float64(moved)))
	}
	b.Set(colLookups, schema.Float(float64(work)/float64(m)))
	b.Set(colLookupsMax, schema.Int(int64(workMax)))
	b.Set(colEntries, schema.Int(int64(before.entries)))
	b.Set(colBuildOps, schema.Int(int64(before.buildOps)))
	if before.perHost != nil {
		lo, hi := math.MaxInt, 0
		for _, c := range before.perHost {
			lo, hi = min(lo, c), max(hi, c)
		}
		b.Set(colEntriesMin, schema.Int(int64(lo)))
		b.Set(colEntriesMax, schema.Int(int64(hi)))
	}
	if before.shares != nil {
		ptm, _ := spread(before.shares, 1/float64(n))
		b.Set(colSharePTM, schema.Float(ptm))
		if p[pReference].Valid {
			b.Set(colBelowRef, schema.Boolean(ptm <= p[pReference].F))
		}
	}
	if bd := before.bounded; bd != nil {
		top := 0
		for s := 0; s < n; s++ {
			if bd.Load(s) > bd.Cap(s) {
				return nil, fmt.Errorf("placement: bounded loads: server %d holds %d keys over its capacity %d", s, bd.Load(s), bd.Cap(s))
			}
			top = max(top, bd.Cap(s))
		}
		for s := 0; s < n2; s++ {
			if a := after.bounded; a.Load(s) > a.Cap(s) {
				return nil, fmt.Errorf("placement: bounded loads after the change: server %d holds %d keys over its capacity %d", s, a.Load(s), a.Cap(s))
			}
		}
		b.Set(colCap, schema.Int(int64(top)))
	}
	return b.Row(), nil
}

// spread returns max/mean and the population standard deviation over mean of x.
func spread(x []float64, mean float64) (ptm, cv float64) {
	top, ss := 0.0, 0.0
	for _, v := range x {
		top = math.Max(top, v)
		ss += (v - mean) * (v - mean)
	}
	return top / mean, math.Sqrt(ss/float64(len(x))) / mean
}

// Theory implements model.Theorist: the necessary moved fraction for every scheme with equal weights, and the keys'
// peak-to-mean law for the ring with equal weights and equal entry counts (Dirichlet shares) and for jump
// (multinomial counts).
func (Model) Theory(p model.Point) model.Theory {
	n := int(p[pN].I)
	s := Scheme(p[pScheme].I)
	equal := !p[pWeights].Valid // or weights all alike (the same tables as none, the same laws)
	if w := p[pWeights].L; p[pWeights].Valid {
		equal = true
		for _, x := range w {
			equal = equal && x == w[0]
		}
	}
	moved := schema.Null()
	if equal {
		if Change(p[pChange].I) == Join {
			moved = schema.Float(analytic.MovedFractionJoin(float64(n)))
		} else {
			moved = schema.Float(analytic.MovedFractionLeave(float64(n)))
		}
	}
	lo, med, hi, mean, cdf := schema.Null(), schema.Null(), schema.Null(), schema.Null(), schema.Null()
	median := math.NaN()
	switch {
	case s == Ring && equal:
		// The entry counts per host do not depend on the salt (RingConfig.Counts, without building a ring).
		count := ringConfig(p, n, nil, 0).Counts()
		e, same := count[0], true
		for _, c := range count[1:] {
			same = same && c == e
		}
		// The law's approximation holds its quantiles within 1% of Monte Carlo only for rings of n·e ≥ 40 entries
		// (analytic.RingPeakToMeanCDF); below, its 97.5% quantile is up to 4% high (n = 10, e = 1) and reaches n
		// (n = 3, e = 1): no theory there.
		if same && n*e >= analytic.RingPeakToMeanMinEntries {
			lo = schema.Float(analytic.RingPeakToMeanQuantile(n, e, 0.025))
			median = analytic.RingPeakToMeanQuantile(n, e, 0.5)
			med = schema.Float(median)
			hi = schema.Float(analytic.RingPeakToMeanQuantile(n, e, 0.975))
			mean = schema.Float(analytic.RingPeakToMeanMean(n, e))
			if p[pReference].Valid {
				cdf = schema.Float(analytic.RingPeakToMeanCDF(n, e, p[pReference].F))
			}
		}
	case s == Jump:
		m := int(p[pM].I)
		lo = schema.Float(analytic.JumpPeakToMeanQuantile(m, n, 0.025))
		med = schema.Float(analytic.JumpPeakToMeanQuantile(m, n, 0.5))
		hi = schema.Float(analytic.JumpPeakToMeanQuantile(m, n, 0.975))
	}
	return func(row schema.Row) {
		b := metrics.Edit(row)
		b.Set(colThMoved, moved)
		b.Set(colThPTMMedian, med)
		b.Set(colThPTMLo, lo)
		b.Set(colThPTMHi, hi)
		b.Set(colThPTMMean, mean)
		b.Set(colThCDFRef, cdf)
		if sh := b.Get(colSharePTM); sh.Valid && !math.IsNaN(median) {
			b.Set(colBelowThMed, schema.Boolean(sh.F <= median))
		}
	}
}
