// Command sweep runs lbsweep experiments: it decodes a TOML spec, runs its parameter grid on a pool of workers and
// writes the results as Parquet (DIR/NAME/runs.parquet); `sweep check` evaluates a spec's claims on its dataset.
// See `sweep -h` and the README.
//
// The first SIGINT, SIGTERM or SIGHUP stops every subcommand with status 130, whatever it is doing: loading a spec,
// planning, checking, running (the runs in progress are abandoned, the finished ones kept), writing the dataset file
// or merging (no output file is left, and the parts stay). A second one exits at once with status 130. A closed
// stderr pipe does not kill it.
//
// The command is its flags, its usage text and its progress display; the work is the library's: spec decoding in
// lbsweep/experiments, running and merging in lbsweep/experiments/sweep, claims in lbsweep/experiments/claims.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"lbsweep/experiments"
	"lbsweep/experiments/sweep"
	"lbsweep/model"
	"lbsweep/results"
)

func main() {
	signal.Ignore(syscall.SIGPIPE) // progress written to a closed pipe returns EPIPE instead of killing the sweep
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-sigs
		cancel()
		<-sigs
		os.Exit(130)
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  sweep [-o DIR] [-j N] [-q] [-shard K/N] [-force] SPEC.toml
                                           run the experiment (or its shard K of N); writes DIR/NAME/runs.parquet
                                           (part-K-of-N.parquet), and DIR/NAME/_timeseries/ likewise for a model with
                                           a time series; an interrupted sweep resumes where it stopped
  sweep plan [-j N] [-shard N] SPEC.toml   grid size, runs, estimated events and time, the split into N shards
  sweep merge [-mixed-builds] DIR/NAME     join part-*-of-N.parquet into runs.parquet (as an unsharded sweep writes it),
                                           and _timeseries/part-*-of-N.parquet likewise; parts of different builds are
                                           refused unless -mixed-builds
  sweep check [-results DIR] SPEC.toml ... evaluate the specs' [[expect]] claims on their datasets: reproduced, not
                                           reproduced or inconclusive (exit 1 on a failure, and with -strict on an
                                           inconclusive claim; -mixed-builds accepts shard parts of different builds)
  sweep -list                              models, their parameters, and the dispatch policies
  sweep -schema MODEL                      the results columns of MODEL as a Markdown table (and its time-series
                                           columns, for a model with a time series)
flags:
`

// run is the sweep command: it parses args (without the program name), runs, and returns the exit code: 0 ok,
// 1 failure (bad spec, failed run, failed claim), 2 usage, 130 interrupted (ctx cancelled). Results go to files,
// listings to stdout, progress, warnings and errors to stderr prefixed with "sweep: ".
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return check(ctx, args[1:], stdout, stderr)
		case "merge":
			return merge(ctx, args[1:], stdout, stderr)
		case "plan":
			return plan(ctx, args[1:], stdout, stderr)
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
	mem := fs.String("mem", "", "memory `budget` of the runs, e.g. 4GB (default: half of this machine's memory); a run estimated larger is refused, and no more runs go at once than fit")
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
		listModels(stdout)
		return 0
	case *schema != "":
		m, ok := experiments.Models[*schema]
		if !ok {
			fmt.Fprintf(stderr, "sweep: unknown model %q (models: %s)\n", *schema, strings.Join(experiments.ModelNames(), ", "))
			return 2
		}
		fmt.Fprint(stdout, schemaMarkdown(m))
		if sm, ok := m.(model.SeriesModel); ok {
			fmt.Fprintf(stdout, "\nTime series (DIR/NAME/%s/):\n\n%s", results.SeriesDir, seriesSchemaMarkdown(sm))
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
	shard, fromEnv, err := sweep.ShardFromEnv(os.Getenv)
	if *shardFlag != "" {
		shard, err = sweep.ParseShard(*shardFlag)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 2
	}
	budget, err := memoryBudget(*mem)
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 2
	}
	spec, err := load(ctx, fs.Arg(0))
	if err != nil {
		return fail(stderr, err)
	}
	fit, err := spec.CheckMemory(budget)
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 1
	}
	if *workers == 0 {
		*workers = runtime.GOMAXPROCS(0)
	}
	if *workers > fit {
		fmt.Fprintf(stderr, "sweep: warning: %s: %d runs at once would need an estimated %s, more than the memory budget %s: running %d at once\n",
			spec.File, *workers, experiments.Bytes(spec.Memory(*workers)), experiments.Bytes(budget), fit)
		*workers = fit
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
		every, onRow = -1, progressBar(stderr, spec.Name)
	}
	fmt.Fprintf(log, "sweep: %s: %d points × %d replications = %d runs\n", spec.Name, spec.Points(), spec.Replications, spec.Runs())
	sum, err := sweep.Run(ctx, spec, sweep.Options{Dir: *dir, Workers: *workers, Log: log, Every: every, Shard: shard, Force: *force, OnRow: onRow})
	if err != nil {
		return fail(stderr, err)
	}
	if sum.UpToDate {
		fmt.Fprintf(log, "sweep: %s is up to date (written from this spec; -force reruns it)\n", sum.Path)
		return 0
	}
	verb := "wrote"
	if sum.Kept {
		verb = "checked (kept as it was)"
	}
	fmt.Fprintf(log, "sweep: %s %s: %d runs, %.4g events in %s (%.3g events/s)\n", verb,
		sum.Path, sum.Runs, float64(sum.Events), sum.Elapsed.Round(time.Millisecond), float64(sum.Events)/sum.Elapsed.Seconds())
	if sum.SeriesPath != "" && !sum.Kept {
		fmt.Fprintf(log, "sweep: wrote %s: the runs' time series\n", sum.SeriesPath)
	}
	return 0
}

// fail reports err on stderr and returns the exit code for it: 130 for an interruption (sweep.ErrInterrupted), else 1.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "sweep: %v\n", err)
	if errors.Is(err, sweep.ErrInterrupted) {
		return 130
	}
	return 1
}

// await is experiments.Await with this command's interruption error.
func await[T any](ctx context.Context, f func() (T, error)) (T, error) {
	return experiments.Await(ctx, sweep.ErrInterrupted, f)
}

// load is experiments.Load, stopped by ctx (await).
func load(ctx context.Context, path string) (*experiments.Spec, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w (%w)", sweep.ErrInterrupted, err)
	}
	spec, err := await(ctx, func() (*experiments.Spec, error) { return experiments.Load(path) })
	if errors.Is(err, sweep.ErrInterrupted) {
		err = fmt.Errorf("%s: %w while reading the spec", path, err)
	}
	return spec, err
}

// progressBar returns an Options.OnRow that draws a progress bar on w, a terminal: runs done of the total, the
// simulated events per second of wall time, and the predicted time left; it is cleared when the sweep finishes.
func progressBar(w io.Writer, name string) func(done, total int, events int64) {
	var bar *progressbar.ProgressBar
	start := time.Now()
	return func(done, total int, events int64) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionSetItsString("runs"), progressbar.OptionClearOnFinish())
		}
		bar.Describe(fmt.Sprintf("%s %.3g events/s", name, float64(events)/time.Since(start).Seconds()))
		bar.Set(done)
	}
}

// isTerminal reports whether w is a terminal (then progress is a bar, not lines).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printUsage writes the usage text and the flags' defaults to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
