package wrrseq_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"lbsweep/experiments"
	"lbsweep/experiments/sweep"
	"lbsweep/results"
)

// Seed 002 §3's 5:1:1 through a spec: smooth WRR against the expanded list.
func Example() {
	spec, err := experiments.Parse("swrr.toml", `
name = "swrr-example"
model = "wrr_sequence"
seed = 2
[params]
weights = [5, 1, 1]
[sweep]
policy = ["smooth_wrr", "wrr_expanded"]
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "lbsweep-example")
	defer os.RemoveAll(dir)
	if _, err := sweep.Run(context.Background(), spec, sweep.Options{Dir: dir}); err != nil {
		fmt.Println(err)
		return
	}
	t, _ := results.ReadDataset(filepath.Join(dir, "swrr-example"))
	pol, seq, dev, run := t.Col("policy"), t.Col("sequence"), t.Col("max_deviation"), t.Col("longest_run")
	for _, row := range t.Rows {
		fmt.Printf("%-12s %s  max deviation %.4f  longest run %d\n", row[pol].S, row[seq].S, row[dev].F, row[run].I)
	}
	// Output:
	// smooth_wrr   a a b a c a a  max deviation 0.5714  longest run 2
	// wrr_expanded a a a a a b c  max deviation 1.4286  longest run 5
}
