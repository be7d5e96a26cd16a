package claims

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is a sample mean with its two-sided (1−α) Student-t confidence interval.
type Estimate struct {
	N     int     // sample size
	Mean  float64 // NaN when N = 0
	Half  float64 // CI half-width t_{1−α/2, N−1}·s/√N; NaN when N < 2
	Alpha float64
}

// MeanCI estimates the mean of xs (NaN values are skipped) with a (1−alpha) confidence interval, 0 < alpha < 1.
// The Student-t quantile comes from gonum's distuv.StudentsT.
func MeanCI(xs []float64, alpha float64) Estimate {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	e := Estimate{N: len(v), Mean: math.NaN(), Half: math.NaN(), Alpha: alpha}
	if e.N == 0 {
		return e
	}
	mean, sd := stat.MeanStdDev(v, nil)
	e.Mean = mean
	if e.N >= 2 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(e.N - 1)}.Quantile(1 - alpha/2)
		e.Half = t * sd / math.Sqrt(float64(e.N))
	}
	return e
}

// DiffCI estimates mean(xs) − mean(ys) with a (1−alpha) confidence interval. Paired (xs[i] and ys[i] from runs that
// share their random numbers, len(xs) = len(ys)): the Student-t interval of the differences xs[i] − ys[i]. Otherwise
// Welch's interval, the Student-t quantile at the Welch–Satterthwaite degrees of freedom
// ν = (s₁²/n₁ + s₂²/n₂)² / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1)). N is the pairs (paired) or n₁ + n₂; Half is NaN when
// either side has fewer than 2 values, 0 when both have no spread.
func DiffCI(xs, ys []float64, paired bool, alpha float64) Estimate {
	if paired {
		d := make([]float64, len(xs))
		for i := range xs {
			d[i] = xs[i] - ys[i]
		}
		return MeanCI(d, alpha)
	}
	a, b := MeanCI(xs, alpha), MeanCI(ys, alpha)
	e := Estimate{N: a.N + b.N, Mean: a.Mean - b.Mean, Half: math.NaN(), Alpha: alpha}
	if a.N < 2 || b.N < 2 {
		return e
	}
	va, vb := stat.Variance(xs, nil)/float64(a.N), stat.Variance(ys, nil)/float64(b.N)
	se2 := va + vb
	if se2 == 0 {
		e.Half = 0
		return e
	}
	nu := se2 * se2 / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	e.Half = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(1-alpha/2) * math.Sqrt(se2)
	return e
}
