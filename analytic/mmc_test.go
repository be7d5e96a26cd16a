package analytic

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The independent computations in this file:
//   - ctmcStationary solves pi Q = 0, sum pi = 1 for the full generator Q of
//     the truncated birth-death chain by LU (gonum mat), not by the product
//     form; its forward error is bounded by n cond(A) eps (LU is backward
//     stable with backward error about n eps; Higham, Accuracy and Stability
//     of Numerical Algorithms, 2nd ed., Thm 9.5 and §7.1);
//   - phaseTail builds the tagged request's absorbing CTMC (waiting stages at
//     rate c mu, then service at rate mu) and evaluates alpha e^(Tt) 1 with
//     the matrix exponential (Pade scaling and squaring), not with
//     incomplete gamma functions or the hypoexponential formula;
//   - simpson integrates a tail over [0, T] with the composite Simpson rule,
//     whose error is at most T h^4 max|f''''| / 180; for a phase-type tail
//     alpha e^(Tt) 1 with uniformization rate Lambda (T = Lambda (P - I),
//     P substochastic, so ||T||_inf <= 2 Lambda) |f''''| <= (2 Lambda)^4.

// birthDeathGenerator returns the generator of the M/M/c/K chain.
func birthDeathGenerator(lambda, mu float64, c, K int) *mat.Dense {
	n := K + 1
	q := mat.NewDense(n, n, nil)
	for j := 0; j < n; j++ {
		out := 0.0
		if j < K {
			q.Set(j, j+1, lambda)
			out += lambda
		}
		if j > 0 {
			d := float64(min(j, c)) * mu
			q.Set(j, j-1, d)
			out += d
		}
		q.Set(j, j, -out)
	}
	return q
}

// ctmcStationary solves pi Q = 0 with sum pi = 1 (the last balance equation
// replaced by the normalisation) and returns pi and the error bound
// n cond_1(A) eps on max |pi_j - exact_j| / max_j pi_j.
func ctmcStationary(t *testing.T, q *mat.Dense) ([]float64, float64) {
	t.Helper()
	n, _ := q.Dims()
	a := mat.DenseCopyOf(q.T())
	for j := 0; j < n; j++ {
		a.Set(n-1, j, 1)
	}
	b := mat.NewVecDense(n, nil)
	b.SetVec(n-1, 1)
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		t.Fatalf("solve: %v", err)
	}
	pi := make([]float64, n)
	for j := range pi {
		pi[j] = x.AtVec(j)
	}
	return pi, float64(n) * mat.Cond(a, 1) * 0x1p-52
}

// phaseTail returns P(S > t) for the admitted request of an M/M/c/K queue
// whose arrival finds j with probability q[j], by the matrix exponential of
// the tagged request's absorbing chain: state 0 is "in service" (leaves at
// rate mu), state k >= 1 is "k departures still to wait for" (moves to k-1 at
// rate c mu). An arrival finding j >= c starts in state j-c+1, j < c in state
// 0. It also returns the bound 100 ||Tt||_1 eps on the absolute error (the
// scaling and squaring algorithm's relative backward error is about eps,
// Higham, SIAM J. Matrix Anal. Appl. 26(4), 2005; e^(Tt) is substochastic).
func phaseTail(q []float64, mu float64, c int, t float64) (float64, float64) {
	m := len(q) - c + 1 // states 0..len(q)-c
	if m < 1 {
		m = 1
	}
	tm := mat.NewDense(m, m, nil)
	tm.Set(0, 0, -mu*t)
	for k := 1; k < m; k++ {
		tm.Set(k, k, -float64(c)*mu*t)
		tm.Set(k, k-1, float64(c)*mu*t)
	}
	var e mat.Dense
	e.Exp(tm)
	alpha := make([]float64, m)
	for j, w := range q {
		if j < c {
			alpha[0] += w
		} else {
			alpha[j-c+1] += w
		}
	}
	s := 0.0
	for i := 0; i < m; i++ {
		for k := 0; k < m; k++ {
			s += alpha[i] * e.At(i, k)
		}
	}
	return s, 100 * mat.Norm(tm, 1) * 0x1p-52
}

// simpson integrates f over [0, b] with n (even) intervals.
func simpson(f func(float64) float64, b float64, n int) float64 {
	h := b / float64(n)
	s := f(0) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(float64(i)*h)
	}
	return s * h / 3
}

// erlangCDirect is C(c, a) from its definition summed in logarithms
// (a^k/k! = exp(k ln a - lgamma(k+1))), independent of the B recursion:
// C = (a^c/c!) (c/(c-a)) / (sum_{k<c} a^k/k! + (a^c/c!) c/(c-a)).
func erlangCDirect(c int, a float64) float64 {
	lt := func(k int) float64 { lg, _ := math.Lgamma(float64(k) + 1); return float64(k)*math.Log(a) - lg }
	top := lt(c) + math.Log(float64(c)/(float64(c)-a))
	ref := top
	for k := 0; k < c; k++ {
		ref = math.Max(ref, lt(k))
	}
	sum := 0.0
	for k := 0; k < c; k++ {
		sum += math.Exp(lt(k) - ref)
	}
	num := math.Exp(top - ref)
	return num / (sum + num)
}

func TestErlangC(t *testing.T) {
	// By hand: C(2, 1) = (1/2 * 2) / (1 + 1 + 1) = 1/3; C(1, a) = a.
	closeRel(t, "ErlangC(2, 1)", ErlangC(2, 1), 1.0/3, 1e-15)
	closeRel(t, "ErlangC(1, 0.7)", ErlangC(1, 0.7), 0.7, 1e-15)
	// B(2, 1) = (1/2)/(1 + 1 + 1/2) = 0.2.
	closeRel(t, "ErlangB(2, 1)", ErlangB(2, 1), 0.2, 1e-15)
	// Against the direct log-space sum, up to large c. The direct sum of c
	// positive terms has relative error about c eps; 1e-12 covers c = 2000
	// (4.4e-13) with room for the recursion's own c eps.
	for _, cs := range []struct {
		c int
		a float64
	}{{1, 0.5}, {2, 1.5}, {4, 2.8}, {10, 8}, {50, 45}, {200, 190}, {1000, 950}, {2000, 1999}} {
		closeRel(t, "ErlangC vs direct", ErlangC(cs.c, cs.a), erlangCDirect(cs.c, cs.a), 1e-12)
	}
	// C is the probability that all c servers are busy in the truncated
	// M/M/c/K chain with K - c large enough that rho^(K-c) < 1e-17.
	for _, cs := range []struct {
		c      int
		lambda float64
	}{{2, 1.2}, {4, 2.8}, {8, 5}} {
		rho := cs.lambda / float64(cs.c)
		K := cs.c + int(math.Ceil(math.Log(1e-17)/math.Log(rho)))
		pi, bound := ctmcStationary(t, birthDeathGenerator(cs.lambda, 1, cs.c, K))
		busy := 0.0
		for j := cs.c; j <= K; j++ {
			busy += pi[j]
		}
		within(t, "ErlangC vs CTMC", ErlangC(cs.c, cs.lambda), busy, float64(K+1)*bound+1e-17)
	}
	for _, a := range []float64{0, -1, 2, 3, math.NaN(), math.Inf(1)} {
		if v := ErlangC(2, a); !math.IsNaN(v) {
			t.Errorf("ErlangC(2, %g) = %g, want NaN", a, v)
		}
	}
	if v := ErlangB(3, math.NaN()); !math.IsNaN(v) {
		t.Errorf("ErlangB(3, NaN) = %g", v)
	}
	mustPanic(t, "ErlangC(0, .5)", func() { ErlangC(0, 0.5) })
	mustPanic(t, "ErlangB(0, .5)", func() { ErlangB(0, 0.5) })
}

func TestMMcOneServerIsMM1(t *testing.T) {
	for _, lambda := range []float64{0.1, 0.5, 0.9, 0.99} {
		closeRel(t, "MMcMeanSojourn(c=1)", MMcMeanSojourn(lambda, 1, 1), MM1MeanSojourn(lambda, 1), 1e-13)
		for _, p := range []float64{0.5, 0.99, 0.999} {
			closeRel(t, "MMcSojournQuantile(c=1)", MMcSojournQuantile(lambda, 1, 1, p), MM1SojournQuantile(lambda, 1, p), 1e-12)
		}
		for _, x := range []float64{0.1, 1, 10, 100} {
			closeRel(t, "MMcSojournTail(c=1)", MMcSojournTail(lambda, 1, 1, x), math.Exp(-(1-lambda)*x), 1e-12)
		}
	}
}

func TestMMcMeans(t *testing.T) {
	// Gross and Harris's W_q = C/(c mu - lambda) against L_q from the CTMC:
	// W_q = L_q / lambda (Little), L_q = sum_{j>c} (j-c) pi_j.
	lambda, mu, c := 2.8, 1.0, 4
	rho := lambda / (float64(c) * mu)
	K := c + int(math.Ceil(math.Log(1e-18)/math.Log(rho)))
	pi, bound := ctmcStationary(t, birthDeathGenerator(lambda, mu, c, K))
	lq := 0.0
	for j := c + 1; j <= K; j++ {
		lq += float64(j-c) * pi[j]
	}
	within(t, "MMcMeanWait vs CTMC", MMcMeanWait(lambda, mu, c), lq/lambda, float64(K*K)*bound/lambda+1e-14)
	closeRel(t, "MMcMeanSojourn", MMcMeanSojourn(lambda, mu, c), MMcMeanWait(lambda, mu, c)+1, 1e-15)
	for _, l := range []float64{0, 4, 5, -1, math.NaN()} {
		if v := MMcMeanSojourn(l, 1, 4); !math.IsNaN(v) {
			t.Errorf("MMcMeanSojourn(%g, 1, 4) = %g, want NaN", l, v)
		}
	}
}

func TestMMcSojournTail(t *testing.T) {
	// Against the phase-type matrix exponential of the truncated M/M/c/K
	// chain (K - c so large that the dropped mass rho^(K-c) < 1e-15) and,
	// independently, against a Simpson convolution of the wait's density with
	// the service tail:
	//   P(S > t) = (1-C) e^(-mu t) + C e^(-theta t) + C int_0^t theta e^(-theta w) e^(-mu (t-w)) dw.
	// The integrand is theta e^(-mu t) e^(-(theta-mu) w): its fourth
	// derivative is at most (theta-mu)^4 theta e^(-mu t) max(1, e^(-(theta-mu) t)).
	// The cases include theta = c mu - lambda = mu exactly (c = 2, lambda = mu)
	// and within 1e-9 of it, where the closed form switches to its limit.
	for _, cs := range []struct {
		lambda, mu float64
		c          int
	}{{0.7, 1, 1}, {1, 1, 2}, {1 + 1e-9, 1, 2}, {1 - 1e-9, 1, 2}, {2.8, 1, 4}, {0.35, 0.1, 5}, {9, 1, 10}} {
		cw := ErlangC(cs.c, cs.lambda/cs.mu)
		theta := float64(cs.c)*cs.mu - cs.lambda
		for _, x := range []float64{0.05, 0.5, 2, 8} {
			x /= cs.mu
			got := MMcSojournTail(cs.lambda, cs.mu, cs.c, x)
			const n = 2000
			integ := simpson(func(w float64) float64 {
				return theta * math.Exp(-cs.mu*x) * math.Exp(-(theta-cs.mu)*w)
			}, x, n)
			h := x / n
			d := math.Abs(theta - cs.mu)
			m4 := math.Pow(d, 4) * theta * math.Exp(-cs.mu*x) * math.Max(1, math.Exp(-(theta-cs.mu)*x))
			bound := cw*x*math.Pow(h, 4)*m4/180 + 1e-14
			want := (1-cw)*math.Exp(-cs.mu*x) + cw*math.Exp(-theta*x) + cw*integ
			within(t, "MMcSojournTail vs Simpson", got, want, bound)

			rho := cs.lambda / (float64(cs.c) * cs.mu)
			if rho < 0.95 {
				K := cs.c + int(math.Ceil(math.Log(1e-16)/math.Log(rho)))
				pi := MMcKDist(cs.lambda, cs.mu, cs.c, K)
				q := make([]float64, K)
				for j := range q {
					q[j] = pi[j] / (1 - pi[K])
				}
				ref, eb := phaseTail(q, cs.mu, cs.c, x)
				within(t, "MMcSojournTail vs expm", got, ref, eb+4*math.Pow(rho, float64(K-cs.c)))
			}
		}
	}
	// theta = mu exactly: the limit (1 + mu t) e^(-mu t) with C(2, 1) = 1/3.
	for _, x := range []float64{0.5, 3} {
		want := (2.0/3)*math.Exp(-x) + (1.0/3)*(1+x)*math.Exp(-x)
		closeRel(t, "MMcSojournTail(theta = mu)", MMcSojournTail(1, 1, 2, x), want, 1e-15)
	}
	if v := MMcSojournTail(1, 1, 2, 0); v != 1 {
		t.Errorf("MMcSojournTail(t=0) = %g, want 1", v)
	}
	if v := MMcSojournTail(1, 1, 2, math.Inf(1)); v != 0 {
		t.Errorf("MMcSojournTail(t=Inf) = %g, want 0", v)
	}
	for _, v := range []float64{MMcSojournTail(2, 1, 2, 1), MMcSojournTail(1, 1, 2, math.NaN()), MMcSojournTail(1, math.Inf(1), 2, 1)} {
		if !math.IsNaN(v) {
			t.Errorf("MMcSojournTail invalid = %g, want NaN", v)
		}
	}
}

func TestMMcSojournQuantile(t *testing.T) {
	for _, cs := range []struct {
		lambda, mu float64
		c          int
	}{{1, 1, 2}, {2.8, 1, 4}, {0.35, 0.1, 5}, {95, 1, 100}} {
		for _, p := range []float64{1e-6, 0.5, 0.99, 0.9999} {
			q := MMcSojournQuantile(cs.lambda, cs.mu, cs.c, p)
			closeRel(t, "tail(quantile(p))", MMcSojournTail(cs.lambda, cs.mu, cs.c, q), 1-p, 1e-10)
		}
	}
	// The mean is the integral of the tail (Simpson on [0, T] with the
	// phase-type derivative bound (2 c mu)^4, plus the dropped tail
	// int_T^inf P(S > t) dt <= P(S > T) (1/theta + 1/mu), since the residual
	// sojourn of a request still present is at most an Exp(theta) wait plus an
	// Exp(mu) service in distribution).
	lambda, mu, c := 2.8, 1.0, 4
	tail := func(x float64) float64 { return MMcSojournTail(lambda, mu, c, x) }
	T, n := 60.0, 20000
	theta := float64(c)*mu - lambda
	bound := T*math.Pow(T/float64(n), 4)*math.Pow(2*float64(c)*mu, 4)/180 + tail(T)*(1/theta+1/mu) + 1e-12
	within(t, "int tail = mean", simpson(tail, T, n), MMcMeanSojourn(lambda, mu, c), bound)
	for _, p := range badProbs {
		if v := MMcSojournQuantile(1, 1, 2, p); !math.IsNaN(v) {
			t.Errorf("MMcSojournQuantile(p=%g) = %g, want NaN", p, v)
		}
	}
	mustPanic(t, "MMcSojournQuantile(c=0)", func() { MMcSojournQuantile(1, 1, 0, 0.5) })
}

func TestMMcKDist(t *testing.T) {
	for _, cs := range []struct {
		lambda, mu float64
		c, K       int
	}{{0.7, 1, 1, 10}, {2.8, 1, 4, 12}, {5, 1, 4, 8}, {0.05, 0.01, 3, 30}, {1, 1, 3, 3}} {
		got := MMcKDist(cs.lambda, cs.mu, cs.c, cs.K)
		want, bound := ctmcStationary(t, birthDeathGenerator(cs.lambda, cs.mu, cs.c, cs.K))
		sum := 0.0
		for j := range got {
			within(t, "MMcKDist vs CTMC", got[j], want[j], bound+1e-16)
			sum += got[j]
		}
		within(t, "sum pi", sum, 1, float64(cs.K+1)*0x1p-52)
		closeRel(t, "MMcKBlocking", MMcKBlocking(cs.lambda, cs.mu, cs.c, cs.K), got[cs.K], 0)
	}
	// K = c is the Erlang loss system.
	closeRel(t, "MMcKBlocking(K=c) = ErlangB", MMcKBlocking(3, 1, 5, 5), ErlangB(5, 3), 1e-13)
	// No overflow for a large, heavily loaded system.
	pi := MMcKDist(500, 1, 100, 5000)
	if math.IsNaN(pi[0]) || math.Abs(pi[5000]-0.8) > 1e-9 {
		t.Errorf("MMcKDist(500, 1, 100, 5000): pi_K = %g, want 1 - 1/rho = 0.8", pi[5000])
	}
	allNaN(t, "MMcKDist(lambda=0)", MMcKDist(0, 1, 2, 4), 5)
	allNaN(t, "MMcKDist(mu=NaN)", MMcKDist(1, math.NaN(), 2, 4), 5)
	mustPanic(t, "MMcKDist(K<c)", func() { MMcKDist(1, 1, 3, 2) })
	mustPanic(t, "MMcKDist(c=0)", func() { MMcKDist(1, 1, 0, 2) })
}

func TestMMcKSojourn(t *testing.T) {
	for _, cs := range []struct {
		lambda, mu float64
		c, K       int
	}{{0.7, 1, 1, 10}, {2.8, 1, 4, 12}, {5, 1, 4, 8}, {0.05, 0.01, 3, 30}, {1, 1, 3, 3}, {1.9, 1, 2, 40}} {
		pi := MMcKDist(cs.lambda, cs.mu, cs.c, cs.K)
		q := make([]float64, cs.K)
		for j := range q {
			q[j] = pi[j] / (1 - pi[cs.K])
		}
		for _, x := range []float64{0.01, 0.3, 1, 3, 10, 30} {
			x /= cs.mu
			ref, eb := phaseTail(q, cs.mu, cs.c, x)
			within(t, "MMcKSojournTail vs expm", MMcKSojournTail(cs.lambda, cs.mu, cs.c, cs.K, x), ref, eb+1e-15)
		}
		// Little's mean against the integral of the tail law (phase-type
		// Simpson bound, as in TestMMcSojournQuantile; the residual sojourn is
		// at most K/(c mu) + 1/mu in mean).
		Lam := float64(cs.c) * cs.mu
		T := 40 * (float64(cs.K)/Lam + 1/cs.mu)
		n := 40000
		tail := func(x float64) float64 { return MMcKSojournTail(cs.lambda, cs.mu, cs.c, cs.K, x) }
		bound := T*math.Pow(T/float64(n)*2*Lam, 4)/180 + tail(T)*(float64(cs.K)/Lam+1/cs.mu) + 1e-12/cs.mu
		within(t, "MMcKMeanSojourn vs int tail", MMcKMeanSojourn(cs.lambda, cs.mu, cs.c, cs.K), simpson(tail, T, n), bound)
		for _, p := range []float64{0.5, 0.99} {
			v := MMcKSojournQuantile(cs.lambda, cs.mu, cs.c, cs.K, p)
			closeRel(t, "MMcK tail(quantile)", tail(v), 1-p, 1e-10)
		}
	}
	// Large K tends to M/M/c: the two laws differ by at most the mass the
	// infinite queue puts on j >= K, twice (renormalisation), C rho^(K-c+1).
	lambda, mu, c := 2.8, 1.0, 4
	rho := lambda / (float64(c) * mu)
	K := 100
	diff := 2*ErlangC(c, lambda/mu)*math.Pow(rho, float64(K-c+1)) + 1e-14
	for _, x := range []float64{0.5, 2, 10} {
		within(t, "MMcK -> MMc tail", MMcKSojournTail(lambda, mu, c, K, x), MMcSojournTail(lambda, mu, c, x), diff)
	}
	within(t, "MMcK -> MMc mean", MMcKMeanSojourn(lambda, mu, c, K), MMcMeanSojourn(lambda, mu, c), 1e-10)
	closeRel(t, "MMcK -> MMc p99", MMcKSojournQuantile(lambda, mu, c, K, 0.99), MMcSojournQuantile(lambda, mu, c, 0.99), 1e-10)
	// c = 1, large K: M/M/1.
	closeRel(t, "MMcK(c=1) -> MM1 p99", MMcKSojournQuantile(0.5, 1, 1, 200, 0.99), MM1SojournQuantile(0.5, 1, 0.99), 1e-10)
	if v := MMcKSojournTail(1, 1, 2, 4, math.NaN()); !math.IsNaN(v) {
		t.Errorf("MMcKSojournTail(t=NaN) = %g", v)
	}
	if v := MMcKSojournQuantile(1, 1, 2, 4, 1); !math.IsNaN(v) {
		t.Errorf("MMcKSojournQuantile(p=1) = %g", v)
	}
}

func TestTimeoutProb(t *testing.T) {
	// M/M/1 at rate 0.07/ms, mean service 10 ms, timeout 100 ms, hops 5 ms:
	// P(S > 90) = e^(-0.03*90).
	tail := func(x float64) float64 { return MMcSojournTail(0.07, 0.1, 1, x) }
	closeRel(t, "TimeoutProb", TimeoutProb(tail, 100-2*5), math.Exp(-0.03*90), 1e-12)
	if v := TimeoutProb(tail, -1); v != 1 {
		t.Errorf("TimeoutProb(slack<0) = %g, want 1", v)
	}
	if v := TimeoutProb(tail, math.NaN()); !math.IsNaN(v) {
		t.Errorf("TimeoutProb(NaN) = %g", v)
	}
	mustPanic(t, "TimeoutProb(nil)", func() { TimeoutProb(nil, 1) })
}
