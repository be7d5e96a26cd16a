package wrrseq_test

import (
	"strings"
	"testing"

	"lbsweep/experiments"
)

// Bad weights in a spec are errors naming the file, the line and the key that set them.
func TestSpecErrors(t *testing.T) {
	head := "name = \"w\"\nmodel = \"wrr_sequence\"\nseed = 1\n"
	for _, c := range []struct{ body, want string }{
		{"[params]\nweights = [5, 0, 1]\npolicy = \"smooth_wrr\"\n", "w.toml:5: params.weights: element 2: weight 0, need a finite weight > 0"},
		{"[params]\nweights = [1, 3.14159]\npolicy = \"wrr_expanded\"\n", "w.toml:5: params.weights: 2 weights have no integer ratio"},
		{"[params]\npolicy = \"smooth_wrr\"\n[sweep]\nweights = [[5, 1, 1], [2, -1]]\n", "w.toml:7: sweep.weights: element 2: weight -1"},
		{"[params]\nweights = []\npolicy = \"smooth_wrr\"\n", "params.weights: expected a non-empty list of numbers"},
		{"[params]\npolicy = \"smooth_wrr\"\n", "weights is required"},
		{"[params]\nweights = [5, 1, 1]\ncycles = 0\npolicy = \"smooth_wrr\"\n", "params.cycles: 0: need cycles ≥ 1"},
		{"[params]\nweights = [5, 1, 1]\n", "policy is required"},
	} {
		_, err := experiments.Parse("w.toml", head+c.body)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
}
