package render

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// padFraction is the part of an axis's span left empty beyond the data at each end (of the span in log10 on a log
// axis), so that no marker, error bar or line lies on the edge of the data area where the canvas clips it. Ranges
// that start at 0 are padded too: a marker at 0 drawn on the edge would be cut in half.
const padFraction = 0.04

// pad widens [min, max] by padFraction of its span at each end, in log10 space when log (min, max > 0). An empty
// span (min = max) is widened by 10% of the value (a factor 10^0.1 on a log axis), or by 1 around 0.
func pad(min, max float64, log bool) (float64, float64) {
	if log {
		lo, hi := math.Log10(min), math.Log10(max)
		d := padFraction * (hi - lo)
		if d == 0 {
			d = 0.1
		}
		return math.Pow(10, lo-d), math.Pow(10, hi+d)
	}
	d := padFraction * (max - min)
	if d == 0 {
		d = math.Max(0.1*math.Abs(min), 1)
	}
	return min - d, max + d
}

// niceStep is the smallest step of the form 1, 2 or 5 × 10^k (at least 1 when integer) that puts at most maxLabels
// multiples of itself in [min, max] (max > min), and its mantissa (1, 2 or 5).
func niceStep(min, max float64, maxLabels int, integer bool) (step float64, mantissa int) {
	e := math.Floor(math.Log10((max - min) / float64(maxLabels)))
	if integer {
		e = math.Max(e, 0)
	}
	for ; ; e++ {
		for _, m := range []int{1, 2, 5} {
			step = float64(m) * math.Pow(10, e)
			if math.Floor(max/step)-math.Ceil(min/step)+1 <= float64(maxLabels) {
				return step, m
			}
		}
	}
}

// linearTicks labels multiples of the finest step 1, 2 or 5 × 10^k that gives at most 8 labels over the range, and
// marks the steps' fifths (quarters for a step of 2 × 10^k) unlabelled. Labels carry no trailing zeros ("0", "0.5", "1"),
// and all of an axis's labels share one notation: plain, or m"e"k with one exponent k for the axis ("0.5e6 1e6")
// when a label would need more than 6 characters plainly (|value| ≥ 10^6, or steps below 10^-4).
type linearTicks struct {
	// integer: whole-number steps only (levels, counts, integer parameters), up to 12 labels when they have at
	// most two digits.
	integer bool
}

// Ticks implements plot.Ticker.
func (lt linearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return nil
	}
	most := 8
	if lt.integer && math.Max(math.Abs(min), math.Abs(max)) < 100 {
		most = 12 // labels of one or two digits: every level up to 12 of them
	}
	step, m := niceStep(min, max, most, lt.integer)
	minor := step / 5
	if m == 2 {
		minor = step / 4
	}
	if lt.integer && minor < 1 {
		minor = step
	}
	var values []float64
	for k := math.Ceil(min / step); k*step <= max*(1+1e-12)+1e-300; k++ {
		values = append(values, k*step)
	}
	labels := numberLabels(values, step)
	var ts []plot.Tick
	for i, v := range values {
		ts = append(ts, plot.Tick{Value: v, Label: labels[i]})
	}
	for k := math.Ceil(min / minor); k*minor <= max; k++ {
		v := k * minor
		if r := math.Mod(math.Abs(v), step); r > 1e-9*step && step-r > 1e-9*step {
			ts = append(ts, plot.Tick{Value: v})
		}
	}
	return ts
}

// numberLabels formats values, multiples of step, in one notation: plain with as many decimals as step needs and
// no trailing zeros, or (when some plain label would be longer than 6 characters) mantissa "e" exponent with the
// exponent of the largest magnitude ("2.5e6"); 0 is "0" in both.
func numberLabels(values []float64, step float64) []string {
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	plain := make([]string, len(values))
	long := false
	for i, v := range values {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		plain[i] = trimZeros(strconv.FormatFloat(v, 'f', decimals, 64))
		long = long || len(strings.TrimPrefix(plain[i], "-")) > 6
	}
	if !long {
		return plain
	}
	big := 0.0
	for _, v := range values {
		big = math.Max(big, math.Abs(v))
	}
	e := int(math.Floor(math.Log10(big)))
	digits := max(0, e-int(math.Floor(math.Log10(step)+1e-9)))
	out := make([]string, len(values))
	for i, v := range values {
		if math.Abs(v) < step*1e-9 {
			out[i] = "0"
			continue
		}
		out[i] = trimZeros(strconv.FormatFloat(v/math.Pow(10, float64(e)), 'f', digits, 64)) + "e" + strconv.Itoa(e)
	}
	return out
}

// trimZeros drops the trailing zeros of a decimal fraction and a bare trailing point: "25.00" → "25", "0.50" → "0.5".
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// logTicks marks a log axis at m × 10^e, m = 1..9 (the labelled ones alone over 5 decades or more), and labels by the span in view: every multiple below one decade,
// 1, 2 and 5 × 10^e below 4 decades, each decade below 12, every other one beyond (its marks 2..9 dropped too).
// Labels share one notation per axis: plain ("0.001" to "50000") when every label fits in 5 characters, else
// m"e"e for all ("1e-3", "2e5"). With fewer than two marks labelled (a fraction of a decade), the labels are
// linearTicks' over the range. Unlike plot.LogTicks its labels carry no rounding noise (9.999e-05).
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) || math.IsInf(max, 0) {
		return nil
	}
	span := math.Log10(max) - math.Log10(min)
	labelled := func(m, e int) bool {
		switch {
		case span < 1:
			return true
		case span < 4:
			return m == 1 || m == 2 || m == 5
		case span < 12:
			return m == 1
		}
		return m == 1 && e%2 == 0
	}
	type mark struct{ m, e int }
	var marks []mark
	var ts []plot.Tick
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		for m := 1; m <= 9; m++ {
			if span >= 12 && m > 1 {
				break
			}
			v := float64(m) * math.Pow(10, float64(e))
			if v < min*(1-1e-12) || v > max*(1+1e-12) {
				continue
			}
			if labelled(m, e) {
				marks = append(marks, mark{m, e})
			} else if span >= 5 {
				continue // 5 decades or more: the marks 2..9 would crowd like a ruler's
			}
			ts = append(ts, plot.Tick{Value: v})
		}
	}
	if len(marks) < 2 { // a fraction of a decade: nice linear labels, and no unlabelled marks to crowd them
		return linearTicks{}.Ticks(min, max)
	}
	plain := true
	for _, mk := range marks {
		plain = plain && mk.e >= -3 && mk.e <= 4
	}
	labels := map[float64]string{}
	for _, mk := range marks {
		v := float64(mk.m) * math.Pow(10, float64(mk.e))
		switch {
		case !plain:
			labels[v] = strconv.Itoa(mk.m) + "e" + strconv.Itoa(mk.e)
		case mk.e >= 0:
			labels[v] = strconv.Itoa(mk.m) + strings.Repeat("0", mk.e)
		default:
			labels[v] = "0." + strings.Repeat("0", -mk.e-1) + strconv.Itoa(mk.m)
		}
	}
	for i := range ts {
		ts[i].Label = labels[ts[i].Value]
	}
	return ts
}
