package sweep

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"lbsweep/experiments"
	"lbsweep/model"
	"lbsweep/model/policy"
	"lbsweep/results"
)

const usage = `usage:
  sweep [-o DIR] [-j N] [-q] [-shard K/N] [-force] SPEC.toml
                                           run the experiment (or its shard K of N); writes DIR/NAME/runs.parquet
                                           (part-K-of-N.parquet), and DIR/NAME/_timeseries/ likewise for a model with
                                           a time series; an interrupted sweep resumes where it stopped
  sweep plan [-shard N] SPEC.toml          grid size, runs, estimated events and time, the split into N shards
  sweep merge DIR/NAME                     join part-*-of-N.parquet into runs.parquet (as an unsharded sweep writes it),
                                           and _timeseries/part-*-of-N.parquet likewise
  sweep check [-results DIR] SPEC.toml ... evaluate the specs' [[expect]] claims on their datasets (exit 1 on a failure)
  sweep -list                              models, their parameters, and the dispatch policies
  sweep -schema MODEL                      the results columns of MODEL as a Markdown table (and its time-series
                                           columns, for a model with a time series)
flags:
`

// Main is the sweep command: it parses args (without the program name), runs, and returns the exit code: 0 ok,
// 1 failure (bad spec, failed run, failed claim), 2 usage. Results go to files, listings to stdout, progress,
// warnings and errors to stderr prefixed with "sweep: ".
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return check(args[1:], stdout, stderr)
		case "merge":
			return merge(args[1:], stdout, stderr)
		case "plan":
			return plan(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // flag errors are reported below, with the command's prefix
	fs.Usage = func() {}
	dir := fs.String("o", "results", "output root: the dataset goes to DIR/NAME/")
	workers := fs.Int("j", 0, "concurrent runs (default GOMAXPROCS)")
	quiet := fs.Bool("q", false, "no progress lines")
	list := fs.Bool("list", false, "list models, parameters and policies")
	schema := fs.String("schema", "", "print the results columns of `MODEL` as Markdown")
	shardFlag := fs.String("shard", "", "run shard `K/N` only (default: from SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX with LBSWEEP_SHARDS)")
	force := fs.Bool("force", false, "rerun an up-to-date dataset; discard an interrupted sweep's runs of another spec version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return 0
		}
		fmt.Fprintf(stderr, "%s: %v (%s -h for usage)\n", "sweep", err, "sweep")
		return 2
	}
	switch {
	case (*list || *schema != "") && fs.NArg() > 0:
		fmt.Fprintf(stderr, "sweep: unexpected arguments after -list/-schema: %s\n", strings.Join(fs.Args(), " "))
		return 2
	case *list:
		List(stdout)
		return 0
	case *schema != "":
		m, ok := experiments.Models[*schema]
		if !ok {
			fmt.Fprintf(stderr, "sweep: unknown model %q (models: %s)\n", *schema, strings.Join(experiments.ModelNames(), ", "))
			return 2
		}
		fmt.Fprint(stdout, SchemaMarkdown(m))
		if sm, ok := m.(model.SeriesModel); ok {
			fmt.Fprintf(stdout, "\nTime series (DIR/NAME/%s/):\n\n%s", results.SeriesDir, SeriesSchemaMarkdown(sm))
		}
		return 0
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "sweep: give exactly one SPEC.toml")
		printUsage(fs, stderr)
		return 2
	}
	if *workers < 0 {
		fmt.Fprintln(stderr, "sweep: -j must be ≥ 1 (or 0 for GOMAXPROCS)")
		return 2
	}
	shard, fromEnv, err := ShardFromEnv(os.Getenv)
	if *shardFlag != "" {
		shard, err = ParseShard(*shardFlag)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 2
	}
	spec, err := experiments.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 1
	}
	if fromEnv && *shardFlag == "" {
		fmt.Fprintf(stderr, "sweep: shard %s from the environment\n", shard)
	}
	for _, w := range spec.Warnings {
		fmt.Fprintf(stderr, "sweep: warning: %s: %s\n", spec.File, w)
	}
	if stem := strings.TrimSuffix(filepath.Base(spec.File), filepath.Ext(spec.File)); stem != spec.Name {
		fmt.Fprintf(stderr, "sweep: warning: %s: name %q differs from the file name: the dataset goes to %s, "+
			"where another spec of the same name would overwrite it (and make figures looks for %s/%s/)\n",
			spec.File, spec.Name, filepath.Join(*dir, spec.Name), *dir, stem)
	}
	log := stderr
	every := 0 * time.Second
	var onRow func(done, total int, events int64)
	switch {
	case *quiet:
		log, every = io.Discard, -1
	case isTerminal(stderr): // a progress bar instead of periodic lines
		every = -1
		var bar *progressbar.ProgressBar
		start := time.Now()
		onRow = func(done, total int, events int64) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr), progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
					progressbar.OptionSetItsString("runs"), progressbar.OptionClearOnFinish())
			}
			bar.Describe(fmt.Sprintf("%s %.3g events/s", spec.Name, float64(events)/time.Since(start).Seconds()))
			bar.Set(done)
		}
	}
	fmt.Fprintf(log, "sweep: %s: %d points × %d replications = %d runs\n", spec.Name, spec.Points(), spec.Replications, spec.Runs())
	sum, err := Run(ctx, spec, Options{Dir: *dir, Workers: *workers, Log: log, Every: every, Shard: shard, Force: *force, OnRow: onRow})
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		if errors.Is(err, ErrInterrupted) {
			return 130
		}
		return 1
	}
	if sum.UpToDate {
		fmt.Fprintf(log, "sweep: %s is up to date (written from this spec; -force reruns it)\n", sum.Path)
		return 0
	}
	fmt.Fprintf(log, "sweep: wrote %s: %d runs, %.4g events in %s (%.3g events/s)\n",
		sum.Path, sum.Runs, float64(sum.Events), sum.Elapsed.Round(time.Millisecond), float64(sum.Events)/sum.Elapsed.Seconds())
	if sum.SeriesPath != "" {
		fmt.Fprintf(log, "sweep: wrote %s: the runs' time series\n", sum.SeriesPath)
	}
	return 0
}

// check evaluates claims; exit 1 when any fails or a dataset is missing.
func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep check", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // flag errors are reported below, with the command's prefix
	fs.Usage = func() {}
	dir := fs.String("results", "results", "results root holding `DIR`/NAME/")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return 0
		}
		fmt.Fprintf(stderr, "%s: %v (%s -h for usage)\n", "sweep", err, "sweep")
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "sweep check: give one or more SPEC.toml")
		return 2
	}
	failed, passed, known := 0, 0, 0
	for _, path := range fs.Args() {
		spec, err := experiments.Load(path)
		if err != nil {
			fmt.Fprintf(stderr, "sweep: %v\n", err)
			return 1
		}
		t, err := spec.ReadResults(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "sweep: %v\n", err)
			return 1
		}
		for _, v := range spec.Evaluate(t) {
			verdict := "ok"
			switch {
			case v.Pass && v.Expect.KnownFailure != "":
				verdict = "PASSES, but is declared a known failure: remove known_failure"
			case v.Pass:
			case v.Expect.KnownFailure != "":
				verdict = "not reproduced, as declared (" + v.Expect.KnownFailure + "): " + v.Reason
			default:
				verdict = "FAIL: " + v.Reason
			}
			switch {
			case !v.OK():
				failed++
			case v.Pass:
				passed++
			default:
				known++
			}
			fmt.Fprintf(stdout, "%s: %s: %s = %s; claim %s: %s\n", spec.Name, v.Expect.Source, metricName(v.Expect), FormatEstimate(v.Measured), v.Target, verdict)
		}
	}
	if known > 0 {
		fmt.Fprintf(stdout, "claims: %d declared not to reproduce (known_failure), as declared\n", known)
	}
	fmt.Fprintf(stdout, "claims: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

func metricName(e experiments.Expect) string {
	if e.Level > 0 {
		return fmt.Sprintf("%s[i=%d]", e.Metric, e.Level)
	}
	return e.Metric
}

// FormatEstimate renders "mean ± half (n = N)", or "mean (n = 1)".
func FormatEstimate(e results.Estimate) string {
	if e.N < 2 {
		return fmt.Sprintf("%.5g (n = %d)", e.Mean, e.N)
	}
	return fmt.Sprintf("%.5g ± %.2g (n = %d, %.4g%% CI)", e.Mean, e.Half, e.N, 100*(1-e.Alpha))
}

// List prints every model with its parameters, and every policy with its arguments.
func List(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, name := range experiments.ModelNames() {
		m := experiments.Models[name]
		fmt.Fprintf(tw, "model %s\t%s\n", name, m.Doc())
		for _, p := range m.Params() {
			def := ""
			if p.Default.Valid {
				def = " (default " + p.Format(p.Default) + ")"
			}
			fmt.Fprintf(tw, "  %s\t%s%s\t%s\n", p.Name, p.Kind, def, p.Doc)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "policies")
	for _, e := range policy.Registry {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", e.Name, e.Signature(), e.Doc)
	}
	tw.Flush()
}

// SchemaMarkdown renders model m's results columns as the README's Markdown table.
func SchemaMarkdown(m model.Model) string { return columnsMarkdown(model.Columns(m)) }

func columnsMarkdown(cols []results.Column) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| column | type | unit | meaning |\n|---|---|---|---|\n")
	for _, c := range cols {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name, c.Type, c.Unit, strings.ReplaceAll(c.Doc, "|", "\\|"))
	}
	return b.String()
}

// SeriesSchemaMarkdown renders the columns of SeriesModel m's time-series table (model.SeriesColumns) as a Markdown
// table like SchemaMarkdown's.
func SeriesSchemaMarkdown(m model.SeriesModel) string {
	return columnsMarkdown(model.SeriesColumns(m))
}

// printUsage writes the usage text and the flags' defaults to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// merge is `sweep merge DIR/NAME`.
func merge(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "sweep merge: give the dataset directory, e.g. sweep merge results/homo")
		return 2
	}
	out, err := Merge(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "sweep: merge: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "sweep: wrote %s\n", out)
	return 0
}

// plan is `sweep plan [-shard N] SPEC.toml`: what a sweep would cost, before spending anything.
func plan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	n := fs.Int("shard", 1, "show the split into `N` shards")
	rate := fs.Float64("rate", 2.5e7, "assumed simulated `events/s` per worker, for the time estimate")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 || *n < 1 {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return 0
		}
		fmt.Fprintln(stderr, "sweep plan: usage: sweep plan [-shard N] [-rate EVENTS/S] SPEC.toml")
		return 2
	}
	spec, err := experiments.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 1
	}
	total := 0.0
	for p := range spec.Points() {
		pt, _ := spec.Point(p)
		total += spec.Model.Cost(pt) * float64(spec.Replications)
	}
	axes := fmt.Sprintf("%d axes", len(spec.Axes))
	if len(spec.Axes) == 1 {
		axes = "1 axis"
	}
	fmt.Fprintf(stdout, "%s: model %s, %s, %d points × %d replications = %d runs\n", spec.Name, spec.Model.Name(), axes, spec.Points(), spec.Replications, spec.Runs())
	for _, a := range spec.Axes {
		fmt.Fprintf(stdout, "  axis %s: %d values\n", a.Key, len(a.Values))
	}
	fmt.Fprintf(stdout, "estimated work: %.3g events; at %.3g events/s per worker: %s on 1 worker, %s on %d\n",
		total, *rate, time.Duration(total / *rate * 1e9).Round(time.Second), time.Duration(total / *rate / float64(runtime.GOMAXPROCS(0)) * 1e9).Round(time.Second), runtime.GOMAXPROCS(0))
	if *n > 1 {
		for k := range *n {
			lo, hi := shardRange(spec, Shard{k, *n})
			w := 0.0
			for i := lo; i < hi; i++ {
				w += spec.Model.Cost(spec.Run(i).Point)
			}
			fmt.Fprintf(stdout, "  shard %d/%d: runs %d..%d (%d runs, %.3g events, %.0f%%)\n", k, *n, lo, hi-1, hi-lo, w, 100*w/total)
		}
	}
	return 0
}

// isTerminal reports whether w is a terminal (then progress is a bar, not lines).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
