package analytic

// The bulletin-board model of stale load information, in its fluid (mean-
// field, n -> infinity) limit. n FIFO servers with Exp(1) service receive
// Poisson arrivals at rate lambda per server; the dispatcher reads a board
// instead of the true queue lengths, and each arrival samples d servers
// uniformly (d = 0: all of them, JSQ) and joins one whose board value is
// smallest, ties uniform. Source: Mitzenmacher, "How Useful Is Old
// Information?", PODC 1997 and IEEE TPDS 11(1), 2000 (the periodic-update
// and individual-update boards, and the herd effect of JSQ on old data).
//
// In the limit a fraction y_b of the servers shows board value b, and with
// S_b = sum_{b'>=b} y_b' an arrival joins board class b with probability
// P_b = S_b^d - S_{b+1}^d (JSQ: P_b = 1 for the smallest b with y_b > 0),
// uniformly inside the class, so each class-b server sees Poisson arrivals
// at the rate
//
//	a_b = lambda P_b / y_b = lambda sum_{k<d} S_b^k S_{b+1}^(d-1-k)  (JSQ: lambda / y_b),
//
// the second form free of cancellation. For d >= 1, a_b <= lambda d.

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// BoardUpdate selects how the board of BulletinBoardFluid is refreshed.
type BoardUpdate uint8

const (
	// BoardPeriodic sets every board entry to the true queue length at once,
	// every T time units ("phases" of length T).
	BoardPeriodic BoardUpdate = iota
	// BoardIndividual refreshes each server's entry at the epochs of its own
	// Poisson process of rate 1/T (exponential ages of mean T).
	BoardIndividual
)

// String returns "periodic" or "individual".
func (u BoardUpdate) String() string {
	switch u {
	case BoardPeriodic:
		return "periodic"
	case BoardIndividual:
		return "individual"
	}
	return fmt.Sprintf("BoardUpdate(%d)", uint8(u))
}

// BoardFluid is the fluid-limit steady state of the bulletin-board model, as
// returned by BulletinBoardFluid. Times are in mean service times.
type BoardFluid struct {
	// MeanSojourn is the mean sojourn time (waiting plus service),
	// MeanQueue/lambda by Little's law.
	MeanSojourn float64
	// MeanSojournErr is the standard error of MeanSojourn when the periodic
	// board has no short cycle (Period = 0) and the value is an average over
	// the attractor: batch means over the averaging window. It is 0 when a
	// cycle or fixed point was found (whose numerical error is far smaller).
	MeanSojournErr float64
	// Tail[i-1] is the time-average fraction of servers holding at least i
	// jobs (the job in service included); it stops at the last level that
	// is at least 1e-25.
	Tail []float64
	// MeanQueue is the time-average number of jobs per server, sum of Tail.
	MeanQueue float64
	// Phases counts evaluations of the phase map (periodic: phases run, the
	// Newton Jacobians included) or of the fixed-point map (individual).
	Phases int
	// Period is the length in phases of the attracting cycle of the
	// periodic board: 1 for a fixed point, p for a p-cycle, 0 if no cycle of
	// at most 12 phases was found and the result is an average over the
	// attractor. It is 1 for the individual board and for T = 0.
	Period int
	// LostMass bounds the probability mass dropped by truncation in one
	// phase (periodic; the largest over the cycle or window) or in the fixed
	// point (individual).
	LostMass float64
}

// ErrBoardNotConverged is returned (wrapped) by BulletinBoardFluid when the
// individual board's fixed point is not found within the iteration budget.
var ErrBoardNotConverged = errors.New("analytic: BulletinBoardFluid: no convergence")

const (
	// boardMaxT is the largest board period accepted (cost grows like T^2).
	boardMaxT = 1000
	// boardTol: the phase-start law is accepted as on its cycle when its L1
	// distance to the cycle, estimated from the contraction rate, is below it.
	boardTol = 1e-10
	// boardNoise: L1 changes below it are rounding noise and count as zero.
	boardNoise = 1e-14
	// boardFloor: entries of a phase-start (board) law below it are dropped,
	// and tails stop at the last level at least this large.
	boardFloor = 1e-25
	// boardTrim: an edge entry of a transient law below it is dropped.
	boardTrim = 1e-30
	// boardPoissonEps bounds the Poisson mass beyond the uniformization
	// truncation point (and the time integral error per unit of mean).
	boardPoissonEps = 1e-15
	// boardMaxSteps caps (a+1)T, the mean number of uniformization steps of
	// one board class in one phase (JSQ with a tiny idle class).
	boardMaxSteps = 1e7
	// boardMaxPeriod is the longest cycle looked for, in phases.
	boardMaxPeriod = 12
	// boardBurnIn phases without a cycle switch to averaging over the
	// attractor for boardWindow phases, in boardBatches batches.
	boardBurnIn, boardWindow, boardBatches = 500, 1000, 20
	// boardNewtonMax is the most unknowns for which a Newton step (a finite
	// difference Jacobian costs one map evaluation per unknown) is tried.
	boardNewtonMax = 400
	// boardNewtonNear: Newton is tried only once the L1 change per cycle is
	// below it (an aperiodic attractor never gets there).
	boardNewtonNear = 1e-2
	// boardMaxLevels caps the support of a phase-start law (queue lengths).
	boardMaxLevels = 1000000
	// boardSmallT: below it the periodic iteration starts from the T = 0
	// law instead of the empty system (see BulletinBoardFluid).
	boardSmallT = 0.25
	// boardMaxIter caps the fixed-point iterations of the individual board.
	boardMaxIter = 20000
)

// BulletinBoardFluid returns the fluid (mean-field, n -> infinity) steady
// state of the bulletin-board model: n FIFO servers with Exp(1) service,
// Poisson arrivals at rate lambda per server, and a dispatcher that reads
// queue lengths from a board refreshed as u says, every T mean service
// times. Each arrival samples d servers uniformly at random (d = 0: all
// servers, JSQ) and joins one whose board value is smallest, ties uniform.
// Rates are per unit time and time is in mean service times.
//
// # Periodic board
//
// At a refresh the board equals the truth, so a server of board class b
// holds exactly b jobs when a phase starts, and during the phase each class
// is a transient M/M/1 queue with the constant arrival rate a_b of the file
// comment. The phase map F: y -> y' (phase-start law of the queue length ->
// the law at the phase end, the next phase-start law) is computed by
// uniformization, exact up to truncations that are bounded: for a class with
// rate a and L = a + 1,
//
//	P(Q(T) = .) = sum_n Pois(n; L T) e_b P^n,  int_0^T P(Q(t) = .) dt = sum_n P(Pois(L T) > n)/L e_b P^n,
//
// P the uniformized birth-death chain, so the time averages over the phase
// come with the end law. The Poisson sums stop where the remaining mass is
// below 1e-15; entries below 1e-30 at the edges of e_b P^n, and board
// classes below 1e-25, are dropped. LostMass bounds the mass so lost in one
// phase (about 1e-15 in practice; tests check it, the mass and the job
// balance of every phase). Queue lengths are not truncated at a fixed K:
// the support grows as needed (up to 10^6, beyond which it is an error).
// Uniformization was chosen over an ODE solver (gonum has none) because all
// its terms are nonnegative, its error is a computable Poisson tail, and it
// gives the time integral over the phase for free.
//
// The phases are iterated from the empty system (all servers idle), except
// for T < 1/4 and for d = 1, which start from the T = 0 law: from empty the
// number of phases grows like 1/T, and for d = 1 the M/M/1 law is already
// the fixed point (the board is irrelevant) while its relaxation from empty
// takes thousands of time units. Tests check that both starts reach the same
// cycle. After each phase the new law y_k is compared with y_{k-p},
// p = 1..12, and a p-cycle is accepted (smallest p first) when
// ||y_k - y_{k-p}||_1 <= 1e-10 and the distance to the cycle, estimated as
// ||y_k - y_{k-p}||_1 r^p/(1-r^p) from the contraction rate r of the last
// 2 max(10, 3p) changes, is below 1e-10 too. When the contraction is so slow
// that more phases would be needed than a few Newton steps cost, y = F^p(y)
// is solved by Newton's method (at most 400 unknowns; finite-difference
// Jacobian), and the answer is kept only if the cycle is stable (spectral
// radius of the Jacobian of F^p below 1); Newton is also tried for p = 1 and
// 2 at the end of the burn-in. The reported values average the p phases of
// the cycle. If no cycle is found within 500 phases, the result averages the
// next 1000 phases, Period = 0, and MeanSojournErr is the larger of the
// batch-means standard error (20 batches) and half the difference of the two
// half-window means. For JSQ at lambda = 0.9 the fixed point loses
// stability between T = 5 (spectral radius 0.9975) and T = 7 (1.10); from
// T = 5.5 on the attractor is a closed invariant curve (averages vary by
// 1e-4), a long cycle (a 12-cycle at T = 9) or, from T = 10, irregular. At
// T = 50 it has rare phases in which almost no server is idle at a refresh,
// so that a vanishing fraction of the servers receives all arrivals and
// holds queues of 10^5 jobs that take thousands of phases to drain: averages
// over 1000 phases then differ by tens of percent between windows, and
// MeanSojournErr understates that uncertainty.
//
// Cost: a phase costs about sum_b (a_b+1) T times the width of the transient
// law; at lambda = 0.9, d = 2 and 3 take milliseconds up to T = 50, JSQ up
// to T = 30 under half a second, JSQ at T = 50 about ten seconds (see
// BenchmarkBulletinBoardFluid).
//
// # Individual board
//
// Each server's entry is refreshed at rate theta = 1/T, so in steady state
// the board law equals the true law (y = q), and given y each class-b row
// x[b][.] (the fraction of servers with board b and j jobs) solves
// x[b](theta - Q_b) = theta y_b e_b, Q_b the M/M/1 generator with arrival
// rate a_b: a three-term recurrence solved exactly, with a geometric tail
// above b and a ratio recurrence below. The fixed point y = q(y) is found by
// iteration from the T = 0 law, with Newton steps as above; it is an error
// (ErrBoardNotConverged) if 20000 iterations do not reach 1e-10. The cost is
// quadratic in the support: d = 3 at T = 50 takes a few seconds. For JSQ the
// fixed point is explicit: with a = lambda/(1-lambda) and r the root in
// (0, 1) of r^2 - (a+1+1/T) r + a = 0,
//
//	s_i = lambda r^(i-1),  MeanSojourn = 1/(1-r).
//
// This is the fixed point of the mean-field equations; its stability under
// their time-dependent dynamics is not checked here (a test integrates those
// equations by RK4 for d = 2 and finds it).
//
// # Fresh information
//
// T = 0 returns, for d >= 1, the JSQ(d) fixed point of JSQdTail and
// JSQdMeanSojourn, the T -> 0 limit of both boards (tests check T = 1e-3
// against it and the O(T) rate of approach). For JSQ (d = 0) the fluid limit
// with fresh information is degenerate: every arrival finds an idle server
// while a fraction 1 - lambda > 0 is idle, so no queue exceeds 1:
// Tail = [lambda], MeanSojourn = 1 (also the T -> 0 limit of both boards).
//
// # Errors
//
// Valid for 0 < lambda < 1 and 0 <= T <= 1000; other values return an error
// (and a zero BoardFluid), as does a phase in which a board class would need
// more than 10^7 uniformization steps or the queue lengths exceed 10^6. It
// panics if d < 0 or u is not a BoardUpdate.
//
// Source: Mitzenmacher, "How Useful Is Old Information?", PODC 1997 and IEEE
// TPDS 11(1), 2000 (the models; the equations here are derived from them as
// stated above). Uniformization: Jensen, Skandinavisk Aktuarietidskrift 36
// (1953); Grassmann, "Transient solutions in Markovian queueing systems",
// Computers & Operations Research 4 (1977).
func BulletinBoardFluid(lambda float64, d int, T float64, u BoardUpdate) (BoardFluid, error) {
	if d < 0 {
		panic("analytic: BulletinBoardFluid: d < 0 choices")
	}
	if u != BoardPeriodic && u != BoardIndividual {
		panic("analytic: BulletinBoardFluid: unknown BoardUpdate " + u.String())
	}
	if !validLoad(lambda) {
		return BoardFluid{}, fmt.Errorf("analytic: BulletinBoardFluid: lambda = %g outside (0, 1)", lambda)
	}
	if !(T >= 0 && T <= boardMaxT) {
		return BoardFluid{}, fmt.Errorf("analytic: BulletinBoardFluid: T = %g outside [0, %d]", T, boardMaxT)
	}
	switch {
	case T == 0:
		return boardFresh(lambda, d), nil
	case u == BoardIndividual && d == 0:
		return boardIndividualJSQ(lambda, T), nil
	case u == BoardIndividual:
		return boardIndividual(lambda, d, T)
	}
	start := []float64{1} // the empty system
	if T < boardSmallT || d == 1 {
		start = boardFreshLaw(lambda, d)
	}
	return boardPeriodic(lambda, d, T, start)
}

// boardFresh returns the T = 0 result: the JSQ(d) fixed point, or for JSQ
// the degenerate law with queues of at most one job.
func boardFresh(lambda float64, d int) BoardFluid {
	if d == 0 {
		return BoardFluid{MeanSojourn: 1, Tail: []float64{lambda}, MeanQueue: lambda, Period: 1}
	}
	tail := trimTail(JSQdTail(lambda, d, boardFreshLevels(lambda, d)))
	T := JSQdMeanSojourn(lambda, d)
	return BoardFluid{MeanSojourn: T, Tail: tail, MeanQueue: lambda * T, Period: 1}
}

// boardFreshLevels returns a number of levels past which the JSQ(d) tail is
// below boardFloor: s_i <= lambda^i.
func boardFreshLevels(lambda float64, d int) int {
	k := int(math.Ceil(math.Log(boardFloor)/math.Log(lambda))) + 1
	if d >= 2 {
		k = min(k, 64) // doubly exponential: s_64 = lambda^(2^64-1) = 0 for lambda < 1 - 1e-16
	}
	return k
}

// boardFreshLaw returns the T = 0 law of the queue length, the starting point
// for small T: y_j = s_j - s_{j+1}.
func boardFreshLaw(lambda float64, d int) []float64 {
	if d == 0 {
		return []float64{1 - lambda, lambda}
	}
	s := JSQdTail(lambda, d, boardFreshLevels(lambda, d))
	y := make([]float64, len(s)+1)
	prev := 1.0
	for i, v := range s {
		y[i] = prev - v
		prev = v
	}
	y[len(s)] = prev
	return trimLaw(y)
}

// trimTail cuts a tail after its last element >= boardFloor.
func trimTail(s []float64) []float64 {
	k := len(s)
	for k > 0 && !(s[k-1] >= boardFloor) {
		k--
	}
	return s[:k]
}

// trimLaw is trimLawLost without the mass dropped.
func trimLaw(y []float64) []float64 {
	y, _ = trimLawLost(y)
	return y
}

// trimLawLost sets the entries of a law below boardFloor to 0 (in place),
// cuts the trailing zeros, renormalizes to sum 1, and returns the law and
// the mass dropped.
func trimLawLost(y []float64) ([]float64, float64) {
	lost, sum := 0.0, 0.0
	for i, v := range y {
		if v < boardFloor {
			lost += math.Max(v, 0)
			y[i] = 0
		}
	}
	k := len(y)
	for k > 0 && y[k-1] == 0 {
		k--
	}
	y = y[:k]
	for i := len(y) - 1; i >= 0; i-- {
		sum += y[i]
	}
	for i := range y {
		y[i] /= sum
	}
	return y, lost
}

// boardResult turns law, the time-average law of the queue length (sums to
// 1), into the result: Tail by suffix sums, MeanQueue as their sum.
func boardResult(lambda float64, law []float64) BoardFluid {
	tail := make([]float64, max(len(law)-1, 0))
	acc := 0.0
	for i := len(law) - 1; i >= 1; i-- {
		acc += law[i]
		tail[i-1] = acc
	}
	tail = trimTail(tail)
	L := 0.0
	for i := len(tail) - 1; i >= 0; i-- {
		L += tail[i]
	}
	return BoardFluid{MeanSojourn: L / lambda, Tail: tail, MeanQueue: L, Period: 1}
}

// arrivalRates returns a_b, the Poisson arrival rate per server of board
// class b, for the board law y (sum 1): lambda sum_{k<d} S_b^k S_{b+1}^(d-1-k)
// by Horner's rule in S_{b+1}, or for JSQ lambda/y_b at the smallest b with
// y_b > 0 and 0 elsewhere.
func arrivalRates(lambda float64, d int, y []float64) []float64 {
	a := make([]float64, len(y))
	if d == 0 {
		for b, v := range y {
			if v > 0 {
				a[b] = lambda / v
				break
			}
		}
		return a
	}
	S := 0.0 // S_{b+1}
	for b := len(y) - 1; b >= 0; b-- {
		Sb := S + y[b]
		h, xk := 0.0, 1.0
		for range d {
			h = h*S + xk
			xk *= Sb
		}
		a[b] = lambda * h
		S = Sb
	}
	return a
}

// l1Dist returns sum_j |x_j - y_j|, the shorter slice padded with zeros.
func l1Dist(x, y []float64) float64 {
	if len(x) < len(y) {
		x, y = y, x
	}
	s := 0.0
	for j, v := range x {
		if j < len(y) {
			v -= y[j]
		}
		s += math.Abs(v)
	}
	return s
}

// ---------------------------------------------------------------------------
// Periodic board: the phase map by uniformization.

// boardPhase computes the phase map; its slices are scratch reused between
// phases.
type boardPhase struct {
	lambda float64
	d      int
	T      float64

	v, nv    []float64 // transient law of one class (two buffers)
	w, c     []float64 // Poisson weights and tail weights / rate
	mu, rate float64   // the Poisson mean and rate of w and c
	end, occ []float64 // accumulated end law and occupation times
	evals    int       // phases computed
}

// grow returns s with length at least n, the new elements zero.
func grow(s []float64, n int) []float64 {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	t := make([]float64, n, 2*n)
	copy(t, s)
	return t
}

// poissonWeights fills w[n] = P(X = n) and c[n] = P(X > n)/rate for
// X ~ Poisson(mu), n = 0..N, and returns N: the first N >= mu with
//
//	w_{N+1} <= eps (1-r)^2 min(1, mu),  r = mu/(N+2),  eps = boardPoissonEps.
//
// Beyond N each term is at most r times the one before, so P(X > N) <=
// w_{N+1}/(1-r) <= eps and sum_{n>N} P(X > n) <= P(X > N)/(1-r) <= eps mu:
// the end law loses at most eps and the time integral at most eps mu/rate =
// eps T. P(X > n) is 1 minus a sum from the left below the mode, and a sum
// from the right above it, so each is accurate to a few ulps. The weights of
// the last call are cached (the JSQ classes with a = 0 share them).
func (ph *boardPhase) poissonWeights(mu, rate float64) int {
	if mu == ph.mu && rate == ph.rate {
		return len(ph.w) - 1
	}
	ph.mu, ph.rate = mu, rate
	ph.w = ph.w[:0]
	for n := 0; ; n++ {
		ph.w = append(ph.w, poissonPMF(n, mu))
		if float64(n) >= mu {
			r := mu / float64(n+2)
			if poissonPMF(n+1, mu) <= boardPoissonEps*(1-r)*(1-r)*math.Min(1, mu) {
				break
			}
		}
	}
	N := len(ph.w) - 1
	ph.c = grow(ph.c[:0], N+1)
	mode := min(int(math.Floor(mu)), N+1)
	acc := 0.0
	for k := 0; k < mode; k++ {
		acc += ph.w[k]
		ph.c[k] = (1 - acc) / rate
	}
	acc = 0
	for k := N; k >= mode; k-- {
		ph.c[k] = acc / rate
		acc += ph.w[k]
	}
	return N
}

// transient runs one board class for a phase: a birth-death queue with
// arrival rate a and departure rate 1 (while busy), started with j0 jobs. It
// adds weight*P(Q(T) = j) to end[j] and weight*int_0^T P(Q(t) = j) dt to
// occ[j], and returns a bound on the (weighted) mass lost.
//
// Uniformization at rate L = a + 1: the chain moves up with probability a/L
// and down with 1/L (a self-loop at 0) at the epochs of a Poisson(L)
// process, so with v_n = e_{j0} P^n and N_T ~ Poisson(L T)
//
//	P(Q(T) = .) = sum_n P(N_T = n) v_n,  int_0^T P(Q(t) = .) dt = sum_n P(N_T > n)/L v_n,
//
// (int_0^T P(N_t = n) dt = P(N_T > n)/L). All terms are nonnegative; the
// errors are the truncation of the sums (poissonWeights) and the entries
// below boardTrim dropped at the edges of v_n, all counted in the bound.
func (ph *boardPhase) transient(a float64, j0 int, weight float64) (float64, error) {
	L := a + 1
	if L*ph.T > boardMaxSteps {
		return 0, fmt.Errorf("analytic: BulletinBoardFluid: a board class of mass %.3g gets arrival rate %.3g: (a+1)T = %.3g uniformization steps exceed %g", weight, a, L*ph.T, float64(boardMaxSteps))
	}
	N := ph.poissonWeights(L*ph.T, L)
	if a == 0 {
		return ph.drain(j0, N, weight), nil
	}
	up, down := a/L, 1/L
	size := j0 + N + 2
	ph.v, ph.nv = grow(ph.v, size), grow(ph.nv, size)
	ph.end, ph.occ = grow(ph.end, size), grow(ph.occ, size)
	v, nv, end, occ := ph.v, ph.nv, ph.end, ph.occ
	v[j0] = 1
	lo, hi := j0, j0
	lost := 0.0
	for n := 0; ; n++ {
		wn, cn := weight*ph.w[n], weight*ph.c[n]
		for j := lo; j <= hi; j++ {
			end[j] += wn * v[j]
			occ[j] += cn * v[j]
		}
		if n == N {
			break
		}
		// nv = v P on [max(lo-1, 0), hi+1]; v is zero outside [lo, hi].
		nlo := max(lo-1, 0)
		v[hi+1] = 0
		if lo > 0 {
			v[lo-1] = 0
		}
		for j := max(nlo, 1); j <= hi+1; j++ {
			nv[j] = up*v[j-1] + down*v[j+1]
		}
		if nlo == 0 {
			nv[0] = down * (v[0] + v[1])
		}
		clear(v[lo : hi+1])
		v, nv = nv, v
		lo, hi = nlo, hi+1
		for hi > lo && v[hi] < boardTrim {
			lost += v[hi]
			v[hi] = 0
			hi--
		}
		for lo < hi && v[lo] < boardTrim {
			lost += v[lo]
			v[lo] = 0
			lo++
		}
	}
	clear(v[lo : hi+1])
	ph.v, ph.nv = v, nv
	return weight * (lost + 2*boardPoissonEps), nil
}

// drain is transient for a = 0: v_n is the point mass at max(j0 - n, 0).
func (ph *boardPhase) drain(j0, N int, weight float64) float64 {
	ph.end, ph.occ = grow(ph.end, j0+1), grow(ph.occ, j0+1)
	end, occ := ph.end, ph.occ
	for n := 0; n <= min(N, j0); n++ {
		end[j0-n] += weight * ph.w[n]
		occ[j0-n] += weight * ph.c[n]
	}
	for n := j0 + 1; n <= N; n++ {
		end[0] += weight * ph.w[n]
		occ[0] += weight * ph.c[n]
	}
	return weight * 2 * boardPoissonEps
}

// phase runs one phase from the phase-start law y (sum 1; class b holds b
// jobs). It returns the law at the phase end (trimmed and renormalized, a
// new slice), the occupation times occ[j] = int over the phase of the
// fraction of servers with j jobs (a new slice, sum T), and the mass lost.
func (ph *boardPhase) phase(y []float64) (next, occ []float64, lost float64, err error) {
	ph.evals++
	clear(ph.end)
	clear(ph.occ)
	ph.end, ph.occ = grow(ph.end, len(y)), grow(ph.occ, len(y))
	rates := arrivalRates(ph.lambda, ph.d, y)
	for b, yb := range y {
		if yb == 0 {
			continue
		}
		l, err := ph.transient(rates[b], b, yb)
		if err != nil {
			return nil, nil, 0, err
		}
		lost += l
	}
	top := len(ph.end)
	for top > 0 && ph.end[top-1] == 0 && ph.occ[top-1] == 0 {
		top--
	}
	if top > boardMaxLevels {
		return nil, nil, 0, fmt.Errorf("analytic: BulletinBoardFluid: queue lengths beyond %d after a phase (lambda = %g, d = %d, T = %g)", boardMaxLevels, ph.lambda, ph.d, ph.T)
	}
	next, dropped := trimLawLost(append([]float64(nil), ph.end[:top]...))
	return next, append([]float64(nil), ph.occ[:top]...), lost + dropped, nil
}

// phases applies p phases from y and returns the law after them.
func (ph *boardPhase) phases(y []float64, p int) ([]float64, float64, error) {
	lost := 0.0
	for range p {
		next, _, l, err := ph.phase(y)
		if err != nil {
			return nil, 0, err
		}
		y, lost = next, lost+l
	}
	return y, lost, nil
}

// boardRecord is one phase: its start law, occupation times and lost mass.
type boardRecord struct {
	y, occ []float64
	lost   float64
}

// contraction estimates, from the L1 changes dist[k] = ||y_k - y_{k-p}||
// (oldest first), the per-phase contraction rate r = (M1/M0)^(1/m), with M1
// and M0 the largest changes in the last m and the m before (m = max(10,
// 3p); the maxima smooth oscillating convergence). ok is false until 2m
// changes are known.
func contraction(dist []float64, p int) (r float64, ok bool) {
	m := max(10, 3*p)
	n := len(dist)
	if n < 2*m {
		return 0, false
	}
	M0, M1 := 0.0, 0.0
	for _, v := range dist[n-2*m : n-m] {
		M0 = math.Max(M0, v)
	}
	for _, v := range dist[n-m:] {
		M1 = math.Max(M1, v)
	}
	if M1 <= boardNoise {
		return 0, true
	}
	return math.Pow(M1/M0, 1/float64(m)), true
}

// cycleDone reports whether the last change of dist (period p) puts the law
// within boardTol of its cycle: the change is rounding noise, or it is below
// boardTol and so is the geometric remainder change*r^p/(1-r^p).
func cycleDone(dist []float64, p int) bool {
	last := dist[len(dist)-1]
	if last <= boardNoise {
		return true
	}
	if last > boardTol {
		return false
	}
	r, ok := contraction(dist, p)
	if !ok || r >= 1 {
		return false
	}
	rp := math.Pow(r, float64(p))
	return last*rp/(1-rp) <= boardTol
}

// newtonWorth reports whether a Newton solve for period p is worth trying
// after the changes dist: the law has K unknowns (at most boardNewtonMax),
// the change is below boardNewtonNear, and the phases still needed at the
// estimated contraction rate exceed the cost of three Jacobians.
func newtonWorth(dist []float64, p, K int) bool {
	last := dist[len(dist)-1]
	if K > boardNewtonMax || last > boardNewtonNear {
		return false
	}
	r, ok := contraction(dist, p)
	if !ok || r >= 1 {
		return false
	}
	need := math.Log(boardTol*(1-r)/last) / math.Log(r)
	return need > float64(3*(K*p+1))
}

// boardPeriodic iterates the phase map from the phase-start law y to its
// attracting cycle (see BulletinBoardFluid).
func boardPeriodic(lambda float64, d int, T float64, y []float64) (BoardFluid, error) {
	ph := &boardPhase{lambda: lambda, d: d, T: T}
	var hist [][]float64 // the last boardMaxPeriod phase-start laws, oldest first
	dist := make([][]float64, boardMaxPeriod+1)
	tried := make([]bool, boardMaxPeriod+1)
	for k := 1; k <= boardBurnIn; k++ {
		next, _, _, err := ph.phase(y)
		if err != nil {
			return BoardFluid{}, err
		}
		hist = append(hist, y)
		if len(hist) > boardMaxPeriod {
			hist = hist[1:]
		}
		y = next
		best, bestDist := 0, math.Inf(1)
		for p := 1; p <= len(hist); p++ {
			dist[p] = append(dist[p], l1Dist(y, hist[len(hist)-p]))
			if cycleDone(dist[p], p) {
				return ph.cycleResult(hist[len(hist)-p], p)
			}
			if last := dist[p][len(dist[p])-1]; last < bestDist {
				best, bestDist = p, last
			}
		}
		// Newton when the iteration converges but slowly, and as a last
		// try at the end of the burn-in for fixed points and 2-cycles.
		var cand []int
		if best > 0 && !tried[best] && newtonWorth(dist[best], best, len(y)) {
			cand = append(cand, best)
		}
		if k == boardBurnIn && len(y) <= boardNewtonMax {
			cand = append(cand, 1, 2)
		}
		for _, p := range cand {
			if tried[p] {
				continue
			}
			tried[p] = true
			res, ok, err := ph.newtonCycle(y, p)
			if err != nil || ok {
				return res, err
			}
		}
	}
	return ph.attractorAverage(y)
}

// newtonCycle solves y = F^p(y) by Newton's method from y and, if the
// solution is a stable cycle (spectral radius of the Jacobian of F^p below
// 1) that closes to boardTol, returns the averages over it (with the
// shortest period that closes it). ok is false if Newton fails or the cycle
// is unstable.
func (ph *boardPhase) newtonCycle(y []float64, p int) (BoardFluid, bool, error) {
	ys, radius, err := lawNewton(func(y []float64) ([]float64, float64, error) { return ph.phases(y, p) }, y)
	if err != nil || !(radius < 1) {
		return BoardFluid{}, false, nil
	}
	cur := ys
	for q := 1; q <= p; q++ {
		next, _, _, err := ph.phase(cur)
		if err != nil {
			return BoardFluid{}, false, err
		}
		cur = next
		if p%q == 0 && l1Dist(cur, ys) <= boardTol {
			res, err := ph.cycleResult(ys, q)
			return res, err == nil, err
		}
	}
	return BoardFluid{}, false, nil
}

// cycleResult runs the p phases of the cycle through y and returns the
// averages over them.
func (ph *boardPhase) cycleResult(y []float64, p int) (BoardFluid, error) {
	var law []float64
	lost := 0.0
	for range p {
		next, occ, l, err := ph.phase(y)
		if err != nil {
			return BoardFluid{}, err
		}
		law = grow(law, len(occ))
		for j, v := range occ {
			law[j] += v
		}
		lost = math.Max(lost, l)
		y = next
	}
	scale := 1 / (ph.T * float64(p))
	for j := range law {
		law[j] *= scale
	}
	res := boardResult(ph.lambda, law)
	res.Phases, res.Period, res.LostMass = ph.evals, p, lost
	return res, nil
}

// attractorAverage continues from y for boardWindow phases and averages
// over them, with batch means for the standard error of the mean sojourn.
// It still returns a cycle if one is found on the way.
func (ph *boardPhase) attractorAverage(y []float64) (BoardFluid, error) {
	var sum []float64
	lost := 0.0
	const per = boardWindow / boardBatches
	batch := make([]float64, boardBatches)
	for k := range boardWindow {
		next, occ, l, err := ph.phase(y)
		if err != nil {
			return BoardFluid{}, err
		}
		sum = grow(sum, len(occ))
		mean := 0.0
		for j, v := range occ {
			sum[j] += v
			mean += float64(j) * v
		}
		batch[k/per] += mean / (ph.T * per)
		lost = math.Max(lost, l)
		y = next
	}
	for j := range sum {
		sum[j] /= ph.T * boardWindow
	}
	res := boardResult(ph.lambda, sum)
	res.Phases, res.Period, res.LostMass = ph.evals, 0, lost
	bm, bv := 0.0, 0.0
	for _, v := range batch {
		bm += v / boardBatches
	}
	for _, v := range batch {
		bv += (v - bm) * (v - bm) / (boardBatches - 1)
	}
	// The error is the batch-means standard error, or half the difference
	// between the two half-window means if larger (a slow drift).
	h1, h2 := 0.0, 0.0
	for i, v := range batch {
		if i < boardBatches/2 {
			h1 += v / (boardBatches / 2)
		} else {
			h2 += v / (boardBatches / 2)
		}
	}
	res.MeanSojournErr = math.Max(math.Sqrt(bv/boardBatches), math.Abs(h1-h2)/2) / ph.lambda
	return res, nil
}

// ---------------------------------------------------------------------------
// Newton's method on laws.

// lawMap maps a law (sum 1) to a law and reports the mass it lost.
type lawMap func(y []float64) ([]float64, float64, error)

// lawNewton solves y = g(y) for a law y supported on the support of y0 (its
// positive entries, len(y0) = K). The unknowns are those entries but the
// largest, which is 1 minus the others (g preserves mass). The Jacobian of
// the residual g(y) - y is taken by forward differences with step 1e-7 (the
// map is smooth and exact to rounding, so its columns are accurate to about
// 1e-8, enough for Newton to converge to rounding level). It stops when the
// Newton step is below boardTol/100 in L1 and returns the solution and the
// spectral radius of the Jacobian of g at it, restricted to mass-preserving
// directions. It fails if g moves mass outside the support of y0 by more
// than boardTol, if a step leaves the simplex, or after 12 iterations.
func lawNewton(g lawMap, y0 []float64) ([]float64, float64, error) {
	const h = 1e-7
	K := len(y0)
	y := append([]float64(nil), y0...)
	m := 0
	var idx []int
	for j, v := range y {
		if v > y[m] {
			m = j
		}
	}
	for j, v := range y {
		if v > 0 && j != m {
			idx = append(idx, j)
		}
	}
	n := len(idx)
	if n == 0 {
		return nil, 0, errors.New("analytic: lawNewton: a point mass")
	}
	resid := func(y []float64) ([]float64, error) {
		gy, _, err := g(y)
		if err != nil {
			return nil, err
		}
		out := 0.0 // mass of g(y) off the unknowns and m
		r := make([]float64, n)
		for i, j := range idx {
			if j < len(gy) {
				r[i] = gy[j] - y[j]
			} else {
				r[i] = -y[j]
			}
		}
		for j, v := range gy {
			if j >= K || (y0[j] == 0 && j != m) {
				out += v
			}
		}
		if out > boardTol {
			return nil, errors.New("analytic: lawNewton: the map leaves the support")
		}
		return r, nil
	}
	J := mat.NewDense(n, n, nil)
	var lu mat.LU
	for range 12 {
		r0, err := resid(y)
		if err != nil {
			return nil, 0, err
		}
		for c, j := range idx {
			yp := append([]float64(nil), y...)
			yp[j] += h
			yp[m] -= h
			rp, err := resid(yp)
			if err != nil {
				return nil, 0, err
			}
			for i := range n {
				J.Set(i, c, (rp[i]-r0[i])/h)
			}
		}
		lu.Factorize(J)
		var step mat.VecDense
		if err := lu.SolveVecTo(&step, false, mat.NewVecDense(n, r0)); err != nil {
			return nil, 0, err
		}
		norm, sum := 0.0, 0.0
		for i, j := range idx {
			dj := -step.AtVec(i)
			y[j] += dj
			sum += dj
			norm += math.Abs(dj)
		}
		y[m] -= sum
		norm += math.Abs(sum)
		for j, v := range y {
			if v < 0 {
				if v < -boardTol {
					return nil, 0, errors.New("analytic: lawNewton: a step leaves the simplex")
				}
				y[j] = 0
			}
		}
		if norm <= boardTol/100 {
			for i := range n {
				J.Set(i, i, J.At(i, i)+1) // Jacobian of g
			}
			var eig mat.Eigen
			if !eig.Factorize(J, mat.EigenNone) {
				return nil, 0, errors.New("analytic: lawNewton: eigenvalues failed")
			}
			radius := 0.0
			for _, e := range eig.Values(nil) {
				radius = math.Max(radius, math.Hypot(real(e), imag(e)))
			}
			return y, radius, nil
		}
	}
	return nil, 0, errors.New("analytic: lawNewton: no convergence")
}

// ---------------------------------------------------------------------------
// Individual board.

// individualMap returns q, the law of the true queue length when each board
// class b of the law y (sum 1) is at its stationary state given y: the row
// x[b][.] solves x[b](theta - Q_b) = theta y_b e_b, i.e.
//
//	(a + theta) u_0 = u_1 + theta y_b [b = 0]
//	(a + 1 + theta) u_j = a u_{j-1} + u_{j+1} + theta y_b [b = j],  j >= 1,
//
// with a = a_b. Above b the solution decays as u_b r^(j-b), r the root in
// [0, 1) of r^2 - (a+1+theta) r + a = 0 (written 2a/(s + sqrt(s^2-4a)),
// s = a+1+theta, to avoid cancellation). Below b the ratios rho_j =
// u_{j-1}/u_j follow from the boundary at 0: rho_1 = 1/(a+theta) and
// rho_{j+1} = 1/(s - a rho_j), a recursion toward the growing solution,
// hence stable. The equation at b then gives u_b = theta y_b/(s - a rho_b -
// r) (b >= 1) or theta y_0/(a + theta - r) (b = 0); sum_j u_j = y_b. The
// geometric tails are cut below boardTrim and their remainder counted lost.
type individualMap struct {
	lambda, theta float64
	d             int
	rho           []float64
	evals         int
}

func (im *individualMap) apply(y []float64) ([]float64, float64, error) {
	im.evals++
	rates := arrivalRates(im.lambda, im.d, y)
	var q []float64
	lost := 0.0
	for b, yb := range y {
		if yb == 0 {
			continue
		}
		a := rates[b]
		s := a + 1 + im.theta
		r := 2 * a / (s + math.Sqrt(s*s-4*a))
		var ub float64
		if b == 0 {
			ub = im.theta * yb / (a + im.theta - r)
		} else {
			rho := append(im.rho[:0], 0, 1/(a+im.theta)) // rho[j] = u_{j-1}/u_j
			for j := 2; j <= b; j++ {
				rho = append(rho, 1/(s-a*rho[j-1]))
			}
			im.rho = rho
			ub = im.theta * yb / (s - a*rho[b] - r)
		}
		n := 0 // tail length above b
		if r > 0 && ub > boardTrim {
			n = int(math.Ceil(math.Log(boardTrim/ub) / math.Log(r)))
		}
		if b+n+1 > 1e7 {
			return nil, 0, fmt.Errorf("analytic: BulletinBoardFluid: a geometric tail of ratio %.6g needs %d levels", r, n)
		}
		q = grow(q, b+n+1)
		u := ub
		for j := b; j <= b+n; j++ {
			q[j] += u
			u *= r
		}
		if r > 0 {
			lost += u / (1 - r) // sum of the levels above b+n
		}
		u = ub
		for j := b; j >= 1; j-- {
			u *= im.rho[j]
			q[j-1] += u
		}
	}
	q, dropped := trimLawLost(q)
	return q, lost + dropped, nil
}

// boardIndividual finds the fixed point y = q(y) of the individual board by
// iteration from the T = 0 law, with Newton steps when they are cheaper.
func boardIndividual(lambda float64, d int, T float64) (BoardFluid, error) {
	im := &individualMap{lambda: lambda, theta: 1 / T, d: d}
	y := boardFreshLaw(lambda, d)
	var dist []float64
	triedNewton := false
	for range boardMaxIter {
		next, lost, err := im.apply(y)
		if err != nil {
			return BoardFluid{}, err
		}
		dist = append(dist, l1Dist(next, y))
		y = next
		if cycleDone(dist, 1) {
			res := boardResult(lambda, y)
			res.Phases, res.LostMass = im.evals, lost
			return res, nil
		}
		if triedNewton || len(y) > boardNewtonMax {
			continue
		}
		r, ok := contraction(dist, 1)
		if !ok || r >= 1 {
			continue
		}
		if need := math.Log(boardTol*(1-r)/dist[len(dist)-1]) / math.Log(r); need <= float64(3*(len(y)+1)) {
			continue
		}
		triedNewton = true
		ys, _, err := lawNewton(im.apply, y)
		if err != nil {
			continue // keep iterating
		}
		q, lost, err := im.apply(ys)
		if err != nil {
			return BoardFluid{}, err
		}
		if l1Dist(q, ys) <= boardTol {
			res := boardResult(lambda, q)
			res.Phases, res.LostMass = im.evals, lost
			return res, nil
		}
	}
	return BoardFluid{}, fmt.Errorf("%w: individual board, lambda = %g, d = %d, T = %g after %d iterations", ErrBoardNotConverged, lambda, d, T, boardMaxIter)
}

// boardIndividualJSQ returns the explicit JSQ fixed point of the individual
// board. At the fixed point the idle fraction is 1 - lambda (throughput), so
// the board-0 class gets a = lambda/(1-lambda) and every other class none.
// A drained class b >= 1 puts u_b (1+theta)^-(b-j) at 1 <= j <= b, so the
// rows sum to y_j = c_j + theta sum_{i>=j} c_i (j >= 1), with c_j = c_0 r^j
// the board-0 row: a geometric law, s_i = lambda r^(i-1), r as in
// individualMap, and the mean queue is lambda/(1-r). From the quadratic,
// (1-r)(a-r) = theta r, which gives 1 - r without cancellation when a > 1
// (r -> 1 as T grows); for a <= 1, r < a and 1 - r is direct.
func boardIndividualJSQ(lambda, T float64) BoardFluid {
	theta := 1 / T
	a := lambda / (1 - lambda)
	s := a + 1 + theta
	r := 2 * a / (s + math.Sqrt(s*s-4*a))
	gap := 1 - r
	if a > 1 {
		gap = theta * r / (a - r)
	}
	n := int(math.Ceil(math.Log(boardFloor/lambda)/math.Log(r))) + 1
	n = max(n, 1)
	tail := make([]float64, n)
	for i := range tail {
		tail[i] = lambda * math.Exp(float64(i)*math.Log(r))
	}
	tail = trimTail(tail)
	return BoardFluid{MeanSojourn: 1 / gap, Tail: tail, MeanQueue: lambda / gap, Period: 1}
}
