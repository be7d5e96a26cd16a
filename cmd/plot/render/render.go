// Package render draws the [[figure]] tables of an experiment spec from its dataset as SVG (gonum/plot), writes its
// [[table]] entries as Markdown tables (medians, or means ± CI half-widths, of the runs in each cell), and writes the
// reproduction report (REPORT.md: the tables, and each [[expect]] claim with its source, the claim, the measured
// mean ± CI and the verdict; index.html: the same with the figures, as one self-contained page). Simulated values are drawn as points with (1−α) Student-t confidence intervals over replications as
// error bars; closed forms as lines of the same colour.
//
// Figures are 6 × 3.6 in with 8–10 pt text and ASCII labels (the default font has no superscripts). The series'
// legend is a column beside the data, as wide as its widest entry, so it never covers a point; what the points, bars
// and lines are is a caption line under the figure. Axis ranges are padded by 4% at each end so nothing is clipped,
// ticks fall on 1, 2, 5 × 10^k with one notation per axis (axes.go), and labels the spec leaves out come from the
// model's schema (Label, IndexLabel, Unit). Points of unstable runs are grey. Log axes drop non-positive values
// instead of failing.
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
	"lbsweep/model"
	"lbsweep/results"
)

// Size of every figure.
const (
	Width  = 6 * vg.Inch
	Height = 3.6 * vg.Inch
)

// series is one curve: simulated points with CIs and the theory at the same x.
type series struct {
	label    string
	x        []float64
	est      []summary
	unstable []bool      // unstable[k]: some run at x[k] is unstable (UnstableColumn true)
	theory   [][]float64 // theory[c][k]: theory column c at x[k]; NaN where none
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
	uc := t.Col(UnstableColumn)
	if uc >= 0 && t.Columns[uc].Type != results.Bool {
		uc = -1
	}
	unstable := func(rs []int) bool { // some row of rs is an unstable run
		for _, r := range rs {
			if uc >= 0 && t.Rows[r][uc].Valid && t.Rows[r][uc].B {
				return true
			}
		}
		return false
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
				s.unstable = append(s.unstable, unstable(rs))
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
				s.unstable = append(s.unstable, unstable(byX[x]))
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
//
// Labels the spec leaves out come from the model's schema: an axis is labelled with its column's Label (else its
// name) and Unit, a queue_tail figure with its list column's Label and IndexLabel, and an untitled figure gets
// "NAME: Y against X". Points of unstable runs (UnstableColumn true at that x) are drawn grey, and the caption says
// so. Theory lines are drawn beneath the points, the grid beneath both.
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
		col := column(model.Columns(s.Model), f.Y)
		if p.X.Label.Text == "" {
			p.X.Label.Text = "i"
			if col.IndexLabel != "" {
				p.X.Label.Text = col.IndexLabel
			}
		}
		if p.Y.Label.Text == "" {
			p.Y.Label.Text = "s(i): " + f.Y + " at element i"
			if col.Label != "" {
				p.Y.Label.Text = col.Label
			}
		}
		if p.Title.Text == "" {
			p.Title.Text = s.Name + ": " + f.Y
		}
		p.X.Tick.Marker = linearTicks{integer: true}
	} else {
		cols := model.Columns(s.Model)
		if p.X.Label.Text == "" {
			p.X.Label.Text = axisLabel(column(cols, f.X))
		}
		if column(cols, f.X).Type == results.Int64 { // d, n, k: no ticks between the values it can take
			p.X.Tick.Marker = linearTicks{integer: true}
		}
		if p.Y.Label.Text == "" {
			p.Y.Label.Text = axisLabel(column(cols, f.Y))
		}
		if p.Title.Text == "" {
			p.Title.Text = s.Name + ": " + f.Y + " against " + f.X
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
	lowerClipped, drawn, greyed := false, 0, false
	drawnTheory := make([]bool, len(f.Theory)) // theory columns with a line in some series
	crossed := false                           // some theory value drawn as a cross (none at its neighbours)
	// Layers, bottom to top: the grid, every theory line, then every series' bars and points, so that no line
	// covers a point of another series.
	var lines, points []plot.Plotter
	for i, sr := range ss {
		col := palette[i%len(palette)]
		// pts[0] holds the stable points, pts[1] the unstable ones (drawn grey).
		var pts [2]errPoints
		// segs[c] holds theory column c's segments (theorySegments); a segment of one x is drawn as a cross.
		segs := make([][]plotter.XYs, len(sr.theory))
		for c := range segs {
			segs[c] = theorySegments(sr.x, sr.theory[c], f.LogX, logY)
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
				j := 0
				if sr.unstable[k] {
					j, greyed = 1, true
				}
				pts[j].XYs = append(pts[j].XYs, plotter.XY{X: x, Y: e.y})
				drawn++
				pts[j].lo, pts[j].hi = append(pts[j].lo, lo), append(pts[j].hi, hi)
			}
		}
		thumbs := []plot.Thumbnailer{}
		for c, pieces := range segs {
			var thumb plot.Thumbnailer
			for _, line := range pieces {
				switch {
				case len(line) == 1:
					sc, err := plotter.NewScatter(line)
					if err != nil {
						return err
					}
					sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(5), Shape: draw.CrossGlyph{}}
					lines = append(lines, sc)
					crossed = true
				case len(line) > 1:
					l, err := plotter.NewLine(line)
					if err != nil {
						return err
					}
					l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: theoryDashes[i%len(theoryDashes)]}
					if c > 0 { // further theory columns: dotted
						l.LineStyle.Width, l.LineStyle.Dashes = vg.Points(1.1), []vg.Length{vg.Points(1), vg.Points(2)}
					}
					lines = append(lines, l)
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
		for j, ps := range pts {
			if len(ps.XYs) == 0 {
				continue
			}
			pc := col
			if j == 1 {
				pc = unstableColor
			}
			sc, err := plotter.NewScatter(ps.XYs)
			if err != nil {
				return err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: pc, Radius: vg.Points(2.5), Shape: plotutil.Shape(i)}
			eb, err := plotter.NewYErrorBars(ps)
			if err != nil {
				return err
			}
			eb.LineStyle.Color, eb.LineStyle.Width, eb.CapWidth = pc, vg.Points(0.7), vg.Points(4)
			points = append(points, eb, sc)
			if j == 0 || len(pts[0].XYs) == 0 {
				thumb := *sc
				thumb.GlyphStyle.Color = col
				thumbs = append(thumbs, &thumb)
			}
		}
		if len(thumbs) > 0 {
			leg.add(sr.label, thumbs...)
		}
	}
	if drawn == 0 {
		return fmt.Errorf("figure %s: nothing to draw (no finite values%s in the selected rows)", f.Name, map[bool]string{true: " > 0 for the log axes", false: ""}[logY || f.LogX])
	}
	if f.Stat == experiments.Median {
		leg.note("points: median")
	} else {
		leg.note("points: mean")
	}
	if f.Stat == experiments.Median {
		leg.note("bars: min-max")
	} else {
		leg.note(fmt.Sprintf("bars: %.0f%% CI", 100*(1-f.Alpha)))
	}
	if lowerClipped {
		leg.note("no lower bar if <= 0")
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
			leg.note(label)
		}
	}
	if crossed {
		leg.note("x: theory (only where one applies)")
	}
	if greyed {
		leg.note(unstableCaption)
	}
	p.Add(plotter.NewGrid())
	p.Add(lines...)
	p.Add(points...)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Min = floor
		if f.Kind == experiments.QueueTail {
			p.Y.Max = 1 // s_i is a fraction
		}
		p.Y.Max = math.Max(p.Y.Max, floor*1.01)
	}
	p.Y.Min, p.Y.Max = pad(p.Y.Min, p.Y.Max, logY)
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	p.X.Min, p.X.Max = pad(p.X.Min, p.X.Max, f.LogX)
	return write(p, leg, w)
}

// unstableColor draws the points of unstable runs; unstableCaption says so under the figure.
var unstableColor = color.RGBA{0xa0, 0xa0, 0xa0, 0xff}

const unstableCaption = "grey: unstable (no steady state: grows with the horizon)"

// column returns the column of cols named name; the zero Column (no label, no unit) when there is none.
func column(cols []results.Column, name string) results.Column {
	for _, c := range cols {
		if c.Name == name {
			return c
		}
	}
	return results.Column{}
}

// axisLabel is a column's axis label: its Label (else its name), and its Unit in parentheses when it has one.
func axisLabel(c results.Column) string {
	label := c.Label
	if label == "" {
		label = c.Name
	}
	if c.Unit != "" {
		label += " (" + c.Unit + ")"
	}
	return label
}

// newPlot is a plot with figure f's title and axis labels (empty when f sets none) in the figures' font sizes, and
// linearTicks on both axes.
func newPlot(f experiments.Figure) *plot.Plot {
	p := plot.New()
	p.Title.Text = printable(f.Title)
	p.Title.TextStyle.Font.Size = 10
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = 9
		ax.Tick.Label.Font.Size = 8
		ax.Tick.Marker = linearTicks{}
	}
	p.X.Label.Text, p.Y.Label.Text = printable(f.XLabel), printable(f.YLabel)
	return p
}

// legend is a figure's key: one entry per series, drawn by write in a column beside the data as wide as its widest
// entry, and notes (what the points, bars and lines are) drawn as a caption under the figure.
type legend struct {
	plot.Legend
	width vg.Length // of the widest entry, thumbnail included; 0 with no entry
	notes []string
}

// newLegend is an empty legend in the figures' style.
func newLegend() *legend {
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = 8
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(2.5)
	leg.ThumbnailWidth = vg.Points(18)
	return &legend{Legend: leg}
}

// add is an entry named name drawn with thumbs; a series with no name (the figure's only one) gets none.
func (l *legend) add(name string, thumbs ...plot.Thumbnailer) {
	if name == "" {
		return
	}
	l.Add(name, thumbs...)
	l.width = max(l.width, l.ThumbnailWidth+l.TextStyle.Width(" "+name))
}

// note adds a caption note.
func (l *legend) note(s string) { l.notes = append(l.notes, s) }

// Layout of every figure, besides Width and Height.
const (
	maxLegendWidth = 2.2 * vg.Inch // a longer series label runs past the figure's edge
	legendGap      = 6             // points between the data area's right edge and the legend
	captionSize    = 7.5           // points
)

// write draws p with legend leg beside it (as wide as its widest entry) and leg's notes as a caption under it, as
// a Width × Height SVG to w.
func write(p *plot.Plot, leg *legend, w io.Writer) error {
	c := vgsvg.New(Width, Height)
	dc := draw.New(c)
	// Caption: the notes joined by "; ", wrapped to the figure's width, at the bottom left.
	capSty := leg.TextStyle
	capSty.Font.Size = captionSize
	capSty.XAlign, capSty.YAlign = draw.XLeft, draw.YBottom
	var capLines []string
	for _, n := range leg.notes {
		if k := len(capLines) - 1; k >= 0 && capSty.Width(capLines[k]+"; "+n) <= Width-vg.Points(8) {
			capLines[k] += "; " + n
		} else {
			capLines = append(capLines, n)
		}
	}
	lineH := capSty.Font.Size * 1.2
	for k, l := range capLines {
		dc.FillText(capSty, vg.Point{X: 4, Y: 2 + lineH*vg.Length(len(capLines)-1-k)}, l)
	}
	bottom := lineH*vg.Length(len(capLines)) + 2
	// The axis labels are drawn here, not by gonum/plot, centred on the data area: gonum centres their glyph boxes at
	// the linear midpoint of the range, which on a log axis lies near the top (right) end and makes the layout pad
	// that end by half the label's length.
	ylabel, xlabel := p.Y.Label, p.X.Label
	p.Y.Label.Text, p.X.Label.Text = "", ""
	ysty := ylabel.TextStyle
	ysty.Rotation = math.Pi / 2
	ysty.XAlign, ysty.YAlign = draw.XCenter, draw.YTop
	xsty := xlabel.TextStyle
	xsty.XAlign, xsty.YAlign = draw.XCenter, draw.YTop
	strip := ysty.Font.Size + 4
	xstrip := vg.Length(0)
	if xlabel.Text != "" {
		xstrip = xsty.Height(xlabel.Text) + xlabel.Padding
	}
	legW := vg.Length(0)
	if leg.width > 0 {
		legW = min(leg.width, maxLegendWidth) + vg.Points(legendGap) + 4
	}
	plotC := draw.Crop(dc, strip, -legW-4, bottom+xstrip, -vg.Points(3)) // 3 pt above the title
	dataC := p.DataCanvas(plotC)
	dc.FillText(ysty, vg.Point{X: 2, Y: (dataC.Min.Y + dataC.Max.Y) / 2}, ylabel.Text)
	dc.FillText(xsty, vg.Point{X: (dataC.Min.X + dataC.Max.X) / 2, Y: plotC.Min.Y - xlabel.Padding/2}, xlabel.Text)
	p.Draw(plotC)
	if legW > 0 {
		lc := draw.Crop(dc, Width-legW+vg.Points(legendGap), 0, 0, -0.25*vg.Inch)
		leg.Draw(lc)
	}
	// gonum/plot lays text out with Liberation Serif's metrics; Times New Roman has the same metrics, so name it (and
	// serif) as fallbacks for viewers without Liberation, instead of letting them substitute a wider font.
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Serif;"), []byte("font-family:'Liberation Serif','Times New Roman',Times,serif;")))
	return err
}

// theoryDashes are the dash patterns of the first theory column's lines, series by series: solid, then patterns of
// long dashes, none of which reads as the dotted (1, 2) of the further theory columns ("dotted: asymptotic"), as
// plotutil.DefaultDashes' (1, 1) and (2, 2) did for the fourth and third series (figures/bins-max-load.svg).
var theoryDashes = [][]vg.Length{
	{},
	{vg.Points(6), vg.Points(2)},
	{vg.Points(10), vg.Points(2), vg.Points(2), vg.Points(2)},
	{vg.Points(5), vg.Points(2), vg.Points(1), vg.Points(2)},
	{vg.Points(12), vg.Points(4)},
	{vg.Points(10), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2)},
	{vg.Points(4), vg.Points(3)},
	{vg.Points(8), vg.Points(2), vg.Points(1), vg.Points(2), vg.Points(1), vg.Points(2)},
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
