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
