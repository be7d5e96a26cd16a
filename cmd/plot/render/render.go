// Package render draws the [[figure]] tables of an experiment spec from its dataset as SVG (gonum/plot), writes its
// [[table]] entries as Markdown tables (medians, or means ± CI half-widths, of the runs in each cell), and writes the
// reproduction report (REPORT.md: the tables, and each [[expect]] claim with its source, the claim, the measured
// mean ± CI and the verdict). Simulated values are drawn as points with (1−α) Student-t confidence intervals over replications as
// error bars; closed forms as lines of the same colour.
//
// Figures are 6 × 3.6 in with 8–10 pt text, ASCII labels (the default font has no superscripts), and the legend in
// its own column beside the data so it never covers a point. Log axes drop non-positive values instead of failing.
package render

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"lbsweep/experiments"
	"lbsweep/experiments/claims"
	"lbsweep/results"
)

// Size of every figure.
const (
	Width       = 6 * vg.Inch
	Height      = 3.6 * vg.Inch
	legendWidth = 1.9 * vg.Inch
)

// series is one curve: simulated points with CIs and the theory at the same x.
type series struct {
	label  string
	x      []float64
	est    []summary
	theory [][]float64 // theory[c][k]: theory column c at x[k]; NaN where none
}

// group splits rows into series by the values of cols, in order of first appearance.
func group(t *results.Table, rows []int, cols []string) ([]string, map[string][]int) {
	var order []string
	by := map[string][]int{}
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = t.Col(c)
	}
	for _, r := range rows {
		var parts []string
		for i, c := range cols {
			cell := t.Rows[r][idx[i]]
			if !cell.Valid {
				continue
			}
			switch {
			case t.Columns[idx[i]].Type == results.String: // a name (policy, scheme): the value alone
				parts = append(parts, cell.S)
			case t.Columns[idx[i]].Type == results.Bool:
				if cell.B { // a flag: named when set, omitted when not
					parts = append(parts, c)
				}
			default:
				parts = append(parts, c+"="+cellText(t.Columns[idx[i]].Type, cell))
			}
		}
		label := strings.Join(parts, " ")
		if _, ok := by[label]; !ok {
			order = append(order, label)
		}
		by[label] = append(by[label], r)
	}
	return order, by
}

func cellText(ty results.Type, c results.Cell) string {
	switch ty {
	case results.Int64:
		return fmt.Sprint(c.I)
	case results.Float64:
		return fmt.Sprint(c.F)
	case results.Bool:
		return fmt.Sprint(c.B)
	case results.String:
		return c.S
	case results.Float64List: // a list parameter (weights), as the point column writes it: [5, 1, 1]
		parts := make([]string, len(c.L))
		for i, x := range c.L {
			parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}

// num reads a numeric cell (NaN for null); for list columns, element level−1, and pastEnd beyond the list's end
// (0 for queue_tail, which stops at the longest queue seen; NaN for a theory list, which was not computed there).
func num(t *results.Table, r, col, level int, pastEnd float64) float64 {
	c := t.Rows[r][col]
	if !c.Valid {
		return math.NaN()
	}
	switch t.Columns[col].Type {
	case results.Int64:
		return float64(c.I)
	case results.Float64:
		return c.F
	case results.Float64List:
		if level-1 < len(c.L) {
			return c.L[level-1]
		}
		return pastEnd
	}
	return math.NaN()
}

func meanOf(xs []float64) float64 {
	s, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// build computes the series of figure f from table t.
func build(f experiments.Figure, t *results.Table) ([]series, error) {
	rows := t.Where(f.Where)
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows match the figure's selection")
	}
	ycol := t.Col(f.Y)
	if ycol < 0 {
		return nil, fmt.Errorf("the dataset has no column %q", f.Y)
	}
	tcols := make([]int, len(f.Theory))
	for c, name := range f.Theory {
		if tcols[c] = t.Col(name); tcols[c] < 0 {
			return nil, fmt.Errorf("the dataset has no column %q", name)
		}
	}
	order, by := group(t, rows, f.Series)
	var out []series
	for _, label := range order {
		rs := by[label]
		s := series{label: label, theory: make([][]float64, len(tcols))}
		switch f.Kind {
		case experiments.QueueTail:
			levels := f.Levels
			if levels == 0 {
				for _, r := range rs {
					levels = max(levels, len(t.Rows[r][ycol].L))
				}
			}
			for i := 1; i <= levels; i++ {
				ys := make([]float64, len(rs))
				for k, r := range rs {
					ys[k] = num(t, r, ycol, i, 0)
				}
				s.x = append(s.x, float64(i))
				s.est = append(s.est, summarize(ys, f))
				for c, tcol := range tcols {
					ths := make([]float64, len(rs))
					for k, r := range rs {
						ths[k] = num(t, r, tcol, i, math.NaN())
					}
					s.theory[c] = append(s.theory[c], meanOf(ths))
				}
			}
		case experiments.MetricVsParam:
			xcol := t.Col(f.X)
			if xcol < 0 {
				return nil, fmt.Errorf("the dataset has no column %q", f.X)
			}
			byX := map[float64][]int{}
			var xs []float64
			for _, r := range rs {
				x := num(t, r, xcol, 0, math.NaN())
				if math.IsNaN(x) { // x is null here (a policy that takes no d): nothing to place on the axis
					continue
				}
				if _, ok := byX[x]; !ok {
					xs = append(xs, x)
				}
				byX[x] = append(byX[x], r)
			}
			sort.Float64s(xs)
			for _, x := range xs {
				var ys []float64
				for _, r := range byX[x] {
					ys = append(ys, num(t, r, ycol, 0, math.NaN()))
				}
				s.x = append(s.x, x)
				s.est = append(s.est, summarize(ys, f))
				for c, tcol := range tcols {
					var ths []float64
					for _, r := range byX[x] {
						ths = append(ths, num(t, r, tcol, 0, math.NaN()))
					}
					s.theory[c] = append(s.theory[c], meanOf(ths))
				}
			}
			if len(s.x) == 0 {
				continue // every row of this series has a null x
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// summary is one simulated point: its value and the distances to the ends of its bar.
type summary struct{ y, lo, hi float64 }

// summarize reduces the replications' values at one x: the mean with its (1−α) Student-t CI, or the median with the
// range (minimum to maximum).
func summarize(ys []float64, f experiments.Figure) summary {
	if f.Stat == experiments.Median {
		v := sortedValues(ys)
		if len(v) == 0 {
			return summary{y: math.NaN()}
		}
		med := median(v)
		return summary{y: med, lo: med - v[0], hi: v[len(v)-1] - med}
	}
	e := claims.MeanCI(ys, f.Alpha)
	if math.IsNaN(e.Half) {
		return summary{y: e.Mean}
	}
	return summary{y: e.Mean, lo: e.Half, hi: e.Half}
}

// sortedValues returns the values of ys that are not NaN, sorted ascending.
func sortedValues(ys []float64) []float64 {
	var v []float64
	for _, y := range ys {
		if !math.IsNaN(y) {
			v = append(v, y)
		}
	}
	sort.Float64s(v)
	return v
}

// median returns the median of the sorted, non-empty v (the mean of the middle two when len(v) is even).
func median(v []float64) float64 {
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return med
}

// errPoints are simulated means with asymmetric error bars, clipped to a floor on log axes.
type errPoints struct {
	plotter.XYs
	lo, hi []float64
}

func (e errPoints) YError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

// Draw renders figure f of spec s from table t as SVG to w. t is the runs table (Spec.ReadResults), or for a
// Timeseries figure the time-series table, or the part of it that holds the figure's run (Spec.ReadSeries with the
// figure's Where).
func Draw(s *experiments.Spec, f experiments.Figure, t *results.Table, w io.Writer) error {
	if f.Kind == experiments.Timeseries {
		return drawSeries(s, f, t, w)
	}
	ss, err := build(f, t)
	if err != nil {
		return fmt.Errorf("figure %s: %w", f.Name, err)
	}
	p := newPlot(f)
	if f.Kind == experiments.QueueTail {
		if p.X.Label.Text == "" {
			p.X.Label.Text = "i (jobs at the server, the one in service included)"
		}
		if p.Y.Label.Text == "" {
			p.Y.Label.Text = "s(i): fraction of servers with >= i jobs"
		}
		p.X.Tick.Marker = integerTicks{}
	} else {
		if p.X.Label.Text == "" {
			p.X.Label.Text = f.X
		}
		if p.Y.Label.Text == "" {
			p.Y.Label.Text = f.Y
		}
	}
	logY := f.LogY || f.Kind == experiments.QueueTail
	// Floor for log axes, below the smallest positive simulated mean (about a decade below for tails).
	floor := math.Inf(1)
	for _, sr := range ss {
		for _, e := range sr.est {
			if e.y > 0 {
				floor = math.Min(floor, e.y)
			}
		}
	}
	if math.IsInf(floor, 1) {
		floor = 1e-6
	}
	if f.Kind == experiments.QueueTail {
		floor = math.Pow(10, math.Floor(math.Log10(floor))-0.3)
	} else {
		floor /= 1.5
	}
	keep := func(y float64) bool { return !math.IsNaN(y) && (!logY || y >= floor) }

	leg := newLegend()
	lowerClipped, drawn := false, 0
	drawnTheory := make([]bool, len(f.Theory)) // theory columns with a line in some series
	crossed := false                           // some theory value drawn as a cross (none at its neighbours)
	for i, sr := range ss {
		col := palette[i%len(palette)]
		var pts errPoints
		// lines[c] holds theory column c's segments (theorySegments); a segment of one x is drawn as a cross.
		lines := make([][]plotter.XYs, len(sr.theory))
		for c := range lines {
			lines[c] = theorySegments(sr.x, sr.theory[c], f.LogX, logY)
		}
		for k, x := range sr.x {
			if f.LogX && !(x > 0) {
				continue
			}
			e := sr.est[k]
			if keep(e.y) && !math.IsInf(e.y, 0) {
				lo, hi := e.lo, e.hi
				switch {
				case logY && lo > 0 && e.y-lo <= 0: // a lower bound ≤ 0 has no place on a log axis: no lower bar
					lo = 0
					lowerClipped = true
				case logY && e.y-lo < floor: // the bar runs past the axis: draw it to the edge
					lo = e.y - floor
				}
				pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: e.y})
				drawn++
				pts.lo, pts.hi = append(pts.lo, lo), append(pts.hi, hi)
			}
		}
		thumbs := []plot.Thumbnailer{}
		for c, segs := range lines {
			var thumb plot.Thumbnailer
			for _, line := range segs {
				switch {
				case len(line) == 1:
					sc, err := plotter.NewScatter(line)
					if err != nil {
						return err
					}
					sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
					p.Add(sc)
					crossed = true
				case len(line) > 1:
					l, err := plotter.NewLine(line)
					if err != nil {
						return err
					}
					l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1), Dashes: plotutil.Dashes(i)}
					if c > 0 { // further theory columns: thin and dotted
						l.LineStyle.Width, l.LineStyle.Dashes = vg.Points(0.7), []vg.Length{vg.Points(1), vg.Points(2)}
					}
					p.Add(l)
					drawnTheory[c] = true
					if thumb == nil {
						thumb = l
					}
				}
			}
			if c == 0 && thumb != nil {
				thumbs = append(thumbs, thumb)
			}
		}
		if len(pts.XYs) > 0 {
			sc, err := plotter.NewScatter(pts.XYs)
			if err != nil {
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: plotutil.Shape(i)}
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return err
			}
			eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = col, vg.Points(0.7), vg.Points(4)
			p.Add(eb, sc)
			thumbs = append(thumbs, sc)
		}
		if len(thumbs) > 0 {
			leg.Add(sr.label, thumbs...)
		}
	}
	if f.Stat == experiments.Median {
		leg.Add("points: median", blank{})
	} else {
		leg.Add("points: simulation", blank{})
	}
	said := map[string]bool{}
	for c, name := range f.Theory {
		if !drawnTheory[c] {
			continue // no series had a line of this theory: do not promise one
		}
		label := name
		if strings.HasPrefix(name, "theory_") {
			label = "theory"
		}
		label = strings.TrimSuffix(label, "_"+f.Y) // asymptotic_max_load beside max_load: "asymptotic"
		if c == 0 {
			label = "lines: " + label
		} else {
			label = "dotted: " + label
		}
		if !said[label] { // a theory's two quantile lines are one entry
			said[label] = true
			leg.Add(label, blank{})
		}
	}
	if crossed {
		leg.Add("x: theory (only where one applies)", blank{})
	}
	bars := fmt.Sprintf("bars: %.0f%% CI", 100*(1-f.Alpha))
	if f.Stat == experiments.Median {
		bars = "bars: min-max"
	}
	leg.Add(bars, blank{})
	if lowerClipped {
		leg.Add("(no lower bar if <= 0)", blank{})
	}
	if drawn == 0 {
		return fmt.Errorf("figure %s: nothing to draw (no finite values%s in the selected rows)", f.Name, map[bool]string{true: " > 0 for the log axes", false: ""}[logY || f.LogX])
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
		p.Y.Min = floor
		if f.Kind == experiments.QueueTail {
			p.Y.Max = 1 // s_i is a fraction
		}
	}
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = decadeTicks{}
	}
	p.Add(plotter.NewGrid())
	return write(p, leg, w)
}

// newPlot is a plot with figure f's title and axis labels (empty when f sets none) in the figures' font sizes.
func newPlot(f experiments.Figure) *plot.Plot {
	p := plot.New()
	p.Title.Text = printable(f.Title)
	p.Title.TextStyle.Font.Size = 10
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = 9
		ax.Tick.Label.Font.Size = 8
	}
	p.X.Label.Text, p.Y.Label.Text = printable(f.XLabel), printable(f.YLabel)
	return p
}

// newLegend is an empty legend in the figures' style, drawn by write in its own column.
func newLegend() plot.Legend {
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = 8
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(2.5)
	leg.ThumbnailWidth = vg.Points(18)
	return leg
}

// write draws p with legend leg beside it as a Width × Height SVG to w.
func write(p *plot.Plot, leg plot.Legend, w io.Writer) error {
	c := vgsvg.New(Width, Height)
	dc := draw.New(c)
	// The y label is drawn here, not by gonum/plot: gonum centres its glyph box at the linear midpoint of the range,
	// which on a log axis lies near the top and makes the layout pad the top by half the label's length.
	ylabel := p.Y.Label
	p.Y.Label.Text = ""
	sty := ylabel.TextStyle
	sty.Rotation = math.Pi / 2
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	strip := sty.Font.Size + 4
	plotC := draw.Crop(dc, strip, -legendWidth, 0, -vg.Points(3)) // 3 pt above the title
	dc.FillText(sty, vg.Point{X: 2, Y: (plotC.Min.Y + plotC.Max.Y) / 2}, ylabel.Text)
	p.Draw(plotC)
	lc := draw.Crop(dc, Width-legendWidth+4, 0, 0, -0.25*vg.Inch)
	leg.Draw(lc)
	// gonum/plot lays text out with Liberation Serif's metrics; Times New Roman has the same metrics, so name it (and
	// serif) as fallbacks for viewers without Liberation, instead of letting them substitute a wider font.
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Serif;"), []byte("font-family:'Liberation Serif','Times New Roman',Times,serif;")))
	return err
}

// palette is Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008), yellow last because it is faint on
// white; series beyond it repeat colours but not glyph shape and dash pattern.
var palette = []color.Color{
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
	color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	color.RGBA{0xf0, 0xe4, 0x42, 0xff}, // yellow
}

// printable drops control characters (a NUL makes the SVG invalid XML; a newline has no place in a label).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// blank is a legend entry with no thumbnail.
type blank struct{}

func (blank) Thumbnail(*draw.Canvas) {}

// decadeTicks labels the powers of ten in range ("1", "0.1", "0.01", "1e-03", ...) and marks 2..9 times each
// unlabelled; unlike plot.LogTicks its labels carry no rounding noise (9.999e-05).
type decadeTicks struct{}

func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	var ts []plot.Tick
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		v := math.Pow(10, float64(e))
		if v >= min*(1-1e-12) && v <= max*(1+1e-12) {
			ts = append(ts, plot.Tick{Value: v, Label: decadeLabel(e)})
		}
		for m := 2; m <= 9; m++ {
			if mv := float64(m) * v; mv >= min && mv <= max {
				ts = append(ts, plot.Tick{Value: mv})
			}
		}
	}
	labelled := 0
	for _, t := range ts {
		if t.Label != "" {
			labelled++
		}
	}
	for i := range ts {
		if ts[i].Label != "" {
			continue
		}
		m := ts[i].Value / math.Pow(10, math.Floor(math.Log10(ts[i].Value)+1e-9))
		switch {
		case labelled < 2: // less than a decade in view: label every multiple
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 3, 64)
		case labelled < 4 && (math.Abs(m-2) < 1e-9 || math.Abs(m-5) < 1e-9): // few decades: label 2× and 5× too
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 3, 64)
		}
	}
	return ts
}

func decadeLabel(e int) string {
	switch {
	case e >= 0 && e <= 4:
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', 0, 64)
	case e < 0 && e >= -2:
		return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', -e, 64)
	}
	return fmt.Sprintf("1e%d", e)
}

// integerTicks marks whole numbers only (queue lengths).
type integerTicks struct{}

func (integerTicks) Ticks(min, max float64) []plot.Tick {
	step := math.Max(1, math.Ceil((max-min)/10))
	var ts []plot.Tick
	for v := math.Ceil(min); v <= max; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return ts
}

// theorySegments splits one theory column (th[k] at x[k], NaN where none applies) into the pieces a line may join:
// a theory with no value at some x (null there: no closed form) is broken there rather than drawn across it. Points
// off the axes (x ≤ 0 on a log x axis, th ≤ 0 on a log y axis) are left out without breaking the line, as the
// canvas clips what lies below the axis; theory is drawn down to any positive value. Empty pieces are dropped.
func theorySegments(x, th []float64, logX, logY bool) []plotter.XYs {
	var segs []plotter.XYs
	var cur plotter.XYs
	for k := range x {
		switch {
		case logX && !(x[k] > 0):
		case math.IsNaN(th[k]):
			if len(cur) > 0 {
				segs, cur = append(segs, cur), nil
			}
		case !logY || th[k] > 0:
			cur = append(cur, plotter.XY{X: x[k], Y: th[k]})
		}
	}
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs
}
