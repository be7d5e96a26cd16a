package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"lbsweep/experiments"
	"lbsweep/experiments/sweep"
)

// plan is `sweep plan [-j N] [-shard N] [-rate EVENTS/S] SPEC.toml`: what a sweep would cost, before spending anything
// (sweep.PlanOf), with its CPU time and its wall-clock time on -j workers at the models' measured rates (or -rate).
func plan(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	n := fs.Int("shard", 1, "show the split into `N` shards")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "plan for `N` runs at once (as sweep -j)")
	rate := fs.Float64("rate", 0, "assume `EVENTS/S` simulated per worker for every run (default: the model's measured rate at each point, model.Rater, else 2.5e7)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 || *n < 1 || *jobs < 1 {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return 0
		}
		fmt.Fprintln(stderr, "sweep plan: usage: sweep plan [-j N] [-shard N] [-rate EVENTS/S] SPEC.toml")
		return 2
	}
	if *n > sweep.MaxShards {
		fmt.Fprintf(stderr, "sweep plan: -shard %d: at most %d shards\n", *n, sweep.MaxShards)
		return 2
	}
	spec, err := load(ctx, fs.Arg(0))
	if err != nil {
		return fail(stderr, err)
	}
	if *rate < 0 || math.IsInf(*rate, 0) || math.IsNaN(*rate) {
		fmt.Fprintf(stderr, "sweep plan: -rate %g: need a finite rate > 0\n", *rate)
		return 2
	}
	p, err := await(ctx, func() (sweep.Plan, error) { return sweep.PlanOf(spec, *n, *jobs, *rate), nil })
	if err != nil {
		return fail(stderr, err)
	}
	total := p.Events
	axes := fmt.Sprintf("%d axes", len(spec.Axes))
	if len(spec.Axes) == 1 {
		axes = "1 axis"
	}
	fmt.Fprintf(stdout, "%s: model %s, %s, %d points × %d replications = %d runs\n", spec.Name, spec.Model.Name(), axes, spec.Points(), spec.Replications, spec.Runs())
	for _, a := range spec.Axes {
		fmt.Fprintf(stdout, "  axis %s: %d values\n", a.Key, len(a.Values))
	}
	at := "the model's measured rate"
	if *rate > 0 {
		at = fmt.Sprintf("%.3g events/s per worker", *rate)
	}
	fmt.Fprintf(stdout, "estimated work: %.3g events, %s CPU at %s\n", total, seconds(p.CPU), at)
	fmt.Fprintf(stdout, "estimated time: %.3f s on %d workers (%s)\n", p.Time, p.Workers, seconds(p.Time))
	workers := p.Workers
	chunk := ""
	if spec.Peak.SeriesRow > 0 {
		chunk = fmt.Sprintf(", the time-series rows the writer and reader hold (row groups of %d rows of %s)", spec.SeriesRowGroup(), experiments.Bytes(spec.Peak.SeriesRow))
	}
	fmt.Fprintf(stdout, "estimated memory: %s in all: %s for the largest run (%s, at point %s), %d at once%s and the process's %s\n",
		experiments.Bytes(spec.Memory(workers)), experiments.Bytes(spec.Peak.Bytes), spec.Peak.What, shortKey(spec.Peak.Point),
		workers, chunk, experiments.Bytes(experiments.Baseline))
	if budget, err := memoryBudget(""); err == nil {
		if _, err := spec.CheckMemory(budget); err != nil {
			fmt.Fprintf(stdout, "over the default memory budget (%s, half of this machine's memory): sweep refuses it unless -mem allows it\n", experiments.Bytes(budget))
		}
	}
	if *n > 1 {
		for _, s := range p.Shards {
			fmt.Fprintf(stdout, "  shard %s: runs %d..%d (%d runs, %.3g events, %.0f%%)\n", s.Shard, s.Lo, s.Hi-1, s.Hi-s.Lo, s.Events, 100*s.Events/total)
		}
	}
	return 0
}

// seconds is a duration in seconds as a person reads it: "32ms", "1.4s", "12s", "3m42s".
func seconds(s float64) string {
	d := time.Duration(s * 1e9)
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// shortKey cuts a point's key to 120 bytes for a line of output.
func shortKey(k string) string {
	if len(k) <= 120 {
		return k
	}
	return k[:117] + "..."
}

// merge is `sweep merge [-mixed-builds] DIR/NAME` (sweep.Merge).
func merge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	mixed := fs.Bool("mixed-builds", false, "merge parts made by different builds (the merged file lists each part's)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stderr)
			return 0
		}
		fmt.Fprintln(stderr, "sweep merge: give the dataset directory, e.g. sweep merge results/homo")
		return 2
	}
	out, err := sweep.Merge(ctx, fs.Arg(0), sweep.MergeOptions{MixedBuilds: *mixed})
	if err != nil {
		return fail(stderr, fmt.Errorf("merge: %w", err))
	}
	fmt.Fprintf(stderr, "sweep: wrote %s\n", out)
	return 0
}
