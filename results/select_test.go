package results

import "testing"

func TestEqual(t *testing.T) {
	cases := []struct {
		ty   Type
		a, b Cell
		want bool
	}{
		{Float64, Float(0.1 + 0.2), Float(0.3), true},
		{Float64, Float(0.3), Float(0.31), false},
		{Float64, Null(), Null(), true},
		{Float64, Null(), Float(0), false},
		{Float64List, List([]float64{5, 1, 1}), List([]float64{5, 1, 1}), true},
		{Float64List, List([]float64{0.1 + 0.2, 1}), List([]float64{0.3, 1}), true},
		{Float64List, List([]float64{5, 1, 1}), List([]float64{5, 1}), false},
		{Float64List, List([]float64{5, 1, 1}), List([]float64{5, 1, 2}), false},
		{Float64List, List(nil), List([]float64{}), true},
		{Float64List, List([]float64{1}), Null(), false},
	}
	for _, c := range cases {
		if got := Equal(c.ty, c.a, c.b); got != c.want {
			t.Errorf("Equal(%s, %+v, %+v) = %v, want %v", c.ty, c.a, c.b, got, c.want)
		}
	}
}
