package sweep_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"lbsweep/experiments"
	"lbsweep/experiments/sweep"
	"lbsweep/results"
)

// A one-point sweep: JSQ(2) at n = 100, λ = 0.9, against the mean-field T_2(0.9) = 2.614.
func ExampleRun() {
	spec, err := experiments.Parse("one.toml", `
name = "one"
model = "supermarket"
seed = 1
replications = 2
[params]
n = 100
lambda = 0.9
horizon = 2000.0
warmup = 200.0
policy = { name = "jsq_d", d = 2 }
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
	t, _ := results.ReadDataset(filepath.Join(dir, "one"))
	m, th := t.Col("mean_sojourn"), t.Col("theory_mean_sojourn")
	for _, row := range t.Rows {
		fmt.Printf("mean sojourn %.2f (mean field %.3f)\n", row[m].F, row[th].F)
	}
	// Output:
	// mean sojourn 2.61 (mean field 2.614)
	// mean sojourn 2.60 (mean field 2.614)
}
