package results

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Cond selects rows whose column equals a value (floats within a relative 1e-9, so 0.1+0.2 selects 0.3; a list equals
// a list of the same length whose elements are equal that way, so weights = [5, 1, 1] selects a List parameter).
type Cond struct {
	Column string
	Value  Cell
	Text   string // the value as the spec wrote it, for messages and legends
}

// Equal reports whether cells a and b of type t hold the same value (nulls equal only nulls).
func Equal(t Type, a, b Cell) bool {
	if a.Valid != b.Valid {
		return false
	}
	if !a.Valid {
		return true
	}
	switch t {
	case Int64:
		return a.I == b.I
	case Float64:
		return closeFloat(a.F, b.F)
	case Float64List:
		if len(a.L) != len(b.L) {
			return false
		}
		for i := range a.L {
			if !closeFloat(a.L[i], b.L[i]) {
				return false
			}
		}
		return true
	case Bool:
		return a.B == b.B
	case String:
		return a.S == b.S
	}
	return false
}

// closeFloat reports x = y within a relative 1e-9.
func closeFloat(x, y float64) bool {
	return x == y || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}

// Where returns the indices of the rows matching every condition. A condition on a column the table lacks matches
// nothing.
func (t *Table) Where(conds []Cond) []int {
	idx := make([]int, len(conds))
	for i, c := range conds {
		idx[i] = t.Col(c.Column)
		if idx[i] < 0 {
			return nil
		}
	}
	var rows []int
	for r, row := range t.Rows {
		ok := true
		for i, c := range conds {
			if !Equal(t.Columns[idx[i]].Type, row[idx[i]], c.Value) {
				ok = false
				break
			}
		}
		if ok {
			rows = append(rows, r)
		}
	}
	return rows
}

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
