// Command pairs times two commands side by side on a shared, noisy machine, by the CPU time the kernel charges each
// process (user + system, wait4's rusage), not by the wall clock, which stretches with everyone else's work.
//
//	go run ./bench/pairs [-rounds N] PLAN           interleaved pairs: A, B, then B, A, … N times per line
//	go run ./bench/pairs -callgrind PLAN            each command once under valgrind's callgrind: instructions
//
// PLAN has one configuration per line (blank lines and lines starting with # are skipped), six fields separated by
// tabs:
//
//	name	target	a-work	b-work	a-command	b-command
//
// A is the reference (the C simulator, or -j 1), B is lbsweep (or -j 2). The ratio is A's CPU time per unit of
// work over B's: B's speed relative to A's, 1 is level, above 1 B is faster. Work makes the ratio fair when the two
// sides do slightly different amounts (another random stream, another count of drained events): a-work and b-work
// say where each side's amount is read,
//
//	json:KEY[*KEY…]   the product of numeric keys of the JSON object the command prints (the C reference's output)
//	sum:COL@DIR       the sum of column COL over the rows of the dataset DIR (results.ReadDataset), after the run
//	-                 none: the ratio is of CPU times alone
//
// and the table prints both amounts, so that matched work is visible (a ratio is only fair when they agree). target
// is the least median ratio the configuration must reach ("0.9"), "<SECONDS" for an upper bound on the median over
// the pairs of B's CPU seconds minus A's (a start-up cost over a trivial process's, "<0.010", where the wrapper's
// own cost cancels), or "-" for none; a line reports "met" or "NOT met".
// Commands are split on spaces (no shell, so the CPU time measured is the command's own). Each row gives the
// median CPU seconds of each side and their range over the rounds, the median of the N pair ratios and their range,
// the median ratio of wall-clock times per unit of work (what two workers buy; on a shared machine it stretches with
// everyone else's work) and each side's peak resident memory (the largest over the rounds; see below). With
// -callgrind the row gives instructions (callgrind's "Collected", which counts the same whatever else the machine
// runs) per unit of work on each side and their ratio. A command
// may hold {x} (in its arguments and its work): pairs then runs it with x = 1 (the CPU-time rows) and, under
// callgrind, with x = 1 and x = 2 (two sizes of run, e.g. spec files NAME-1 and NAME-2 of two horizons) and reports
// the marginal instructions, the extra instructions over the extra work, and each side's fixed cost besides (start-
// up, theory, output), so that a small run's fixed costs do not hide the engine's.
//
// Targets are judged on the CPU-time rows only (-callgrind ignores them). A sum:COL@DIR reads whatever DIR holds
// after the command: the command must write it afresh (sweep -force). Peak memory comes from GNU time
// (/usr/bin/time), "?" without it.
//
// Exit status: 0 when every target is met, 1 when one is not, 2 on a bad plan, a command that fails, or work that is
// not a finite amount above 0.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"lbsweep/results"
)

// config is one line of the plan.
type config struct {
	name   string
	target float64 // NaN: none
	// below: target is an upper bound on the median of B's CPU seconds minus A's in each pair (a "<S" target), not
	// a least ratio
	below  bool
	work   [2]string
	argv   [2][]string
	scaled bool // a command holds {x}
	line   int
}

// sample is one process's measurement.
type sample struct {
	cpu, wall float64 // seconds
	rssKB     int64
	work      float64 // NaN when the plan gives none
	instr     float64 // callgrind's instruction count; NaN when not under callgrind
}

func main() {
	rounds := flag.Int("rounds", 5, "pairs per configuration, ≥ 1")
	grind := flag.Bool("callgrind", false, "run each command once under valgrind --tool=callgrind and compare instruction counts")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: pairs [-rounds N] [-callgrind] PLAN")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	cfgs, err := readPlan(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pairs:", err)
		os.Exit(2)
	}
	missed, err := run(os.Stdout, cfgs, *rounds, *grind)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pairs:", err)
		os.Exit(2)
	}
	if missed > 0 {
		os.Exit(1)
	}
}

// readPlan parses the plan file (see the package comment).
func readPlan(path string) ([]config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cfgs []config
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fs := strings.Split(text, "\t")
		if len(fs) != 6 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 6 (name, target, a-work, b-work, a-command, b-command)", path, ln, len(fs))
		}
		c := config{name: fs[0], target: math.NaN(), work: [2]string{fs[2], fs[3]}, line: ln}
		if fs[1] != "-" {
			num, below := strings.CutPrefix(fs[1], "<")
			t, err := strconv.ParseFloat(num, 64)
			if err != nil || !(t > 0) || math.IsInf(t, 1) {
				return nil, fmt.Errorf("%s:%d: target %q: want a positive number, <SECONDS or -", path, ln, fs[1])
			}
			c.target, c.below = t, below
		}
		if (c.work[0] == "-") != (c.work[1] == "-") {
			return nil, fmt.Errorf("%s:%d: work on one side only (%q, %q): give both or neither", path, ln, c.work[0], c.work[1])
		}
		for i, w := range c.work {
			if w != "-" && !strings.HasPrefix(w, "json:") && !(strings.HasPrefix(w, "sum:") && strings.Contains(w, "@")) {
				return nil, fmt.Errorf("%s:%d: work %q: want json:KEY[*KEY], sum:COLUMN@DIR or -", path, ln, w)
			}
			c.argv[i] = strings.Fields(fs[4+i])
			c.scaled = c.scaled || strings.Contains(fs[4+i], "{x}")
			if len(c.argv[i]) == 0 {
				return nil, fmt.Errorf("%s:%d: empty command", path, ln)
			}
		}
		cfgs = append(cfgs, c)
	}
	return cfgs, sc.Err()
}

// run measures every configuration and prints its row; it returns how many targets were missed.
func run(w io.Writer, cfgs []config, rounds int, grind bool) (missed int, err error) {
	if grind {
		fmt.Fprintf(w, "%-44s %9s %9s %12s %12s %7s\n", "configuration", "work A", "work B", "instr/work A", "instr/work B", "ratio")
	} else {
		fmt.Fprintf(w, "%-44s %9s %9s %19s %19s %22s %6s %11s %s\n", "configuration", "work A", "work B",
			"CPU s A [range]", "CPU s B [range]", "ratio median [range]", "wall", "RSS A, B", "target")
	}
	for _, c := range cfgs {
		var s [2][]sample
		order := [2]int{0, 1}
		n := rounds
		if grind {
			n = 1
		}
		for range n {
			for _, side := range order {
				m, err := measure(c, side, grind)
				if err != nil {
					return missed, fmt.Errorf("%s (plan line %d): %w", c.name, c.line, err)
				}
				s[side] = append(s[side], m)
			}
			order[0], order[1] = order[1], order[0] // B first in the next pair: neither side always runs second
		}
		if grind {
			a, b := s[0][0], s[1][0]
			if !c.scaled {
				ia, ib := perWork(a.instr, a.work), perWork(b.instr, b.work)
				fmt.Fprintf(w, "%-44s %9s %9s %12.4g %12.4g %7.2f\n", c.name, amount(a.work), amount(b.work), ia, ib, ia/ib)
				continue
			}
			// {x} = 1 and 2: the instructions each extra unit of work costs, and what the run costs besides.
			var twice [2]sample
			for side := range 2 {
				m, err := measureAt(c, side, true, "2")
				if err != nil {
					return missed, fmt.Errorf("%s (plan line %d): %w", c.name, c.line, err)
				}
				twice[side] = m
			}
			if math.IsNaN(a.work) || math.IsNaN(b.work) || twice[0].work <= a.work || twice[1].work <= b.work {
				return missed, fmt.Errorf("%s (plan line %d): {x} = 2 must do more work than {x} = 1 on both sides (work %s, %s)",
					c.name, c.line, c.work[0], c.work[1])
			}
			ma := (twice[0].instr - a.instr) / (twice[0].work - a.work)
			mb := (twice[1].instr - b.instr) / (twice[1].work - b.work)
			fa, fb := a.instr-ma*a.work, b.instr-mb*b.work
			fmt.Fprintf(w, "%-44s %9s %9s %12.4g %12.4g %7.2f   fixed: %.3g, %.3g instructions\n", c.name,
				amount(twice[0].work-a.work), amount(twice[1].work-b.work), ma, mb, ma/mb, fa, fb)
			continue
		}
		ratios, walls, extra := make([]float64, n), make([]float64, n), make([]float64, n)
		var cpu [2][]float64
		rss := [2]int64{-1, -1}
		for i := range n {
			a, b := s[0][i], s[1][i]
			ratios[i] = perWork(a.cpu, a.work) / perWork(b.cpu, b.work)
			walls[i] = perWork(a.wall, a.work) / perWork(b.wall, b.work)
			extra[i] = b.cpu - a.cpu
			cpu[0] = append(cpu[0], a.cpu)
			cpu[1] = append(cpu[1], b.cpu)
			rss[0], rss[1] = max(rss[0], a.rssKB), max(rss[1], b.rssKB)
		}
		med := median(ratios)
		verdict := "-"
		switch {
		case c.below:
			over := median(extra)
			verdict = fmt.Sprintf("B − A %.3g s < %g met", over, c.target)
			if !(over < c.target) {
				verdict = fmt.Sprintf("B − A %.3g s < %g NOT met", over, c.target)
				missed++
			}
		case !math.IsNaN(c.target):
			verdict = fmt.Sprintf("≥ %g met", c.target)
			if !(med >= c.target) {
				verdict = fmt.Sprintf("≥ %g NOT met", c.target)
				missed++
			}
		}
		fmt.Fprintf(w, "%-44s %9s %9s %19s %19s %22s %6.2f %11s %s\n", c.name, amount(s[0][0].work), amount(s[1][0].work),
			spread(cpu[0], "%.3g"), spread(cpu[1], "%.3g"), spread(ratios, "%.2f"), median(walls),
			rssText(rss), verdict)
	}
	return missed, nil
}

// gnuTime is GNU time (Debian: time), which measures the peak resident memory.
const gnuTime = "/usr/bin/time"

var (
	collected = regexp.MustCompile(`Collected : (\d+)`)
	notNumber = regexp.MustCompile(`:\s*-?(nan|inf)\b`)
)

// measure runs one side of c once ({x} = 1).
func measure(c config, side int, grind bool) (sample, error) { return measureAt(c, side, grind, "1") }

// measureAt runs one side of c once with {x} replaced by x in its command and work.
func measureAt(c config, side int, grind bool, x string) (sample, error) {
	argv := make([]string, len(c.argv[side]))
	for i, a := range c.argv[side] {
		argv[i] = strings.ReplaceAll(a, "{x}", x)
	}
	var rssFile string
	if grind {
		argv = append([]string{"valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"}, argv...)
	} else if _, err := os.Stat(gnuTime); err == nil {
		// The peak resident memory from GNU time, which forks (not vforks) its child: a child that os/exec starts
		// inherits pairs' own peak in its ru_maxrss (Go vforks, and exec keeps the old address space's high-water
		// mark), a floor of about 21 MB. time's own CPU (under a millisecond) is in the CPU time measured.
		f, err := os.CreateTemp("", "pairs-rss-")
		if err != nil {
			return sample{}, err
		}
		f.Close()
		rssFile = f.Name()
		defer os.Remove(rssFile)
		argv = append([]string{gnuTime, "-f", "%M", "-o", rssFile}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if grind {
		// Go's asynchronous preemption signals (SIGURG) trip callgrind's signal bookkeeping (valgrind 3.19:
		// "Assertion 'sigNum == vgCallgrind_current_state.sig' failed"); without them Go preempts at calls only.
		// One P: valgrind runs one thread at a time, and idle Ps spinning for work in the scheduler counted from
		// 0.14 to 6.7·10^9 instructions on the same run; with GOMAXPROCS=1 three runs agree within 2%. No garbage
		// collector: its cycles moved by a few allocations make most of those 2% (of a 10^8-instruction run: 20
		// instructions an event in a marginal count over 1.8·10^5 events); with GOGC=off three runs agree within
		// 0.2%. The counts therefore leave out Go's collector, a few percent of a run.
		cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1", "GOGC=off")
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, tail(errb.String()))
	}
	m := sample{wall: time.Since(start).Seconds(), instr: math.NaN()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.cpu = float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
		m.rssKB = -1 // unknown without GNU time
	}
	if rssFile != "" {
		text, err := os.ReadFile(rssFile)
		if err != nil {
			return m, err
		}
		fs := strings.Fields(string(text))
		if len(fs) == 0 {
			return m, fmt.Errorf("%s: GNU time wrote no peak memory", strings.Join(argv, " "))
		}
		if m.rssKB, err = strconv.ParseInt(fs[len(fs)-1], 10, 64); err != nil {
			return m, fmt.Errorf("%s: GNU time's peak memory %q: %v", strings.Join(argv, " "), fs[len(fs)-1], err)
		}
	}
	if grind {
		g := collected.FindStringSubmatch(errb.String())
		if g == nil {
			return m, fmt.Errorf("%s: no instruction count in valgrind's output\n%s", strings.Join(argv, " "), tail(errb.String()))
		}
		m.instr, _ = strconv.ParseFloat(g[1], 64)
	}
	var err error
	m.work, err = workOf(strings.ReplaceAll(c.work[side], "{x}", x), out.Bytes())
	if err == nil && !math.IsNaN(m.work) && !(m.work > 0 && !math.IsInf(m.work, 1)) {
		err = fmt.Errorf("work %s: %v, want a finite amount above 0", c.work[side], m.work)
	}
	return m, err
}

// workOf reads the amount of work a run did (see the package comment); NaN for "-".
func workOf(spec string, stdout []byte) (float64, error) {
	switch {
	case spec == "-":
		return math.NaN(), nil
	case strings.HasPrefix(spec, "json:"):
		var obj map[string]any
		// The C reference prints C's nan for percentiles it did not compute (samples=0): not JSON.
		stdout = notNumber.ReplaceAll(stdout, []byte(": null"))
		if err := json.Unmarshal(stdout, &obj); err != nil {
			return 0, fmt.Errorf("work %s: the output is not one JSON object: %v", spec, err)
		}
		v := 1.0
		for _, k := range strings.Split(strings.TrimPrefix(spec, "json:"), "*") {
			x, ok := obj[k].(float64)
			if !ok {
				return 0, fmt.Errorf("work %s: no numeric key %q in the output", spec, k)
			}
			v *= x
		}
		return v, nil
	default:
		col, dir, _ := strings.Cut(strings.TrimPrefix(spec, "sum:"), "@")
		t, err := results.ReadDataset(dir)
		if err != nil {
			return 0, fmt.Errorf("work %s: %w", spec, err)
		}
		j := t.Col(col)
		if j < 0 {
			return 0, fmt.Errorf("work %s: no column %q in %s", spec, col, dir)
		}
		v := 0.0
		for _, r := range t.Rows {
			switch cell := r[j]; {
			case !cell.Valid:
				return 0, fmt.Errorf("work %s: a null %s", spec, col)
			case cell.Type == results.Int64:
				v += float64(cell.I)
			case cell.Type == results.Float64:
				v += cell.F
			default:
				return 0, errors.New("work " + spec + ": not a numeric column")
			}
		}
		return v, nil
	}
}

// perWork is x per unit of work, or x itself when there is no work.
func perWork(x, work float64) float64 {
	if math.IsNaN(work) {
		return x
	}
	return x / work
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread formats the median of xs and their range: "0.91 [0.88–0.95]".
func spread(xs []float64, f string) string {
	return fmt.Sprintf(f+" ["+f+"–"+f+"]", median(xs), slices.Min(xs), slices.Max(xs))
}

// rssText formats the two peaks in MB, "?" where GNU time was missing.
func rssText(kb [2]int64) string {
	f := func(v int64) string {
		if v < 0 {
			return "?"
		}
		return strconv.FormatInt((v+512)>>10, 10)
	}
	return f(kb[0]) + ", " + f(kb[1]) + " M"
}

// amount formats a work amount: "3.6e+07", or "-".
func amount(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}
