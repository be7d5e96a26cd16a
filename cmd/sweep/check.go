package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"lbsweep/experiments/claims"
	"lbsweep/results"
)

// check is `sweep check [-results DIR] [-mixed-builds] [-strict] SPEC.toml ...`: one line per claim (claims.Format's
// Line style), then the counts of the three verdicts; exit 1 when a claim fails (or passes though declared a known
// failure), or with -strict is inconclusive, a dataset is missing,
// or its files (shard parts) were written by different builds (results.CheckBuilds) without -mixed-builds.
func check(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep check", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // flag errors are reported below, with the command's prefix
	fs.Usage = func() {}
	dir := fs.String("results", "results", "results root holding `DIR`/NAME/")
	mixed := fs.Bool("mixed-builds", false, "accept a dataset whose files (shard parts) different builds wrote")
	strict := fs.Bool("strict", false, "exit 1 when a claim is inconclusive, too")
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
	failed, passed, known, inconclusive := 0, 0, 0, 0
	for _, path := range fs.Args() {
		spec, err := load(ctx, path)
		if err != nil {
			return fail(stderr, err)
		}
		verdicts, err := await(ctx, func() ([]claims.Verdict, error) {
			t, err := spec.ReadResults(*dir)
			if err != nil {
				return nil, err
			}
			if !*mixed {
				if err := results.CheckBuilds(filepath.Join(*dir, spec.Name)); err != nil {
					return nil, fmt.Errorf("%s: %w; -mixed-builds checks it anyway", spec.File, err)
				}
			}
			return claims.Evaluate(spec.Expects, t), nil
		})
		if err != nil {
			return fail(stderr, err)
		}
		for _, v := range verdicts {
			switch {
			case !v.OK():
				failed++
			case v.Status == claims.Inconclusive:
				inconclusive++
			case v.Status == claims.Pass:
				passed++
			default:
				known++
			}
			fmt.Fprintln(stdout, claims.Format(spec.Name, v, claims.Line))
		}
	}
	if known > 0 {
		fmt.Fprintf(stdout, "claims: %d declared not to reproduce (known_failure), as declared\n", known)
	}
	fmt.Fprintf(stdout, "claims: %d passed, %d failed, %d inconclusive\n", passed, failed, inconclusive)
	if failed > 0 || (*strict && inconclusive > 0) {
		return 1
	}
	return 0
}
