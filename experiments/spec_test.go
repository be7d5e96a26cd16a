package experiments

import (
	"fmt"
	"strings"
	"testing"
)

const base = `name = "t"
model = "supermarket"
seed = 1
replications = 2

[params]
n = 10
horizon = 100.0
warmup = 10.0

[sweep]
lambda = [0.5, 0.9]
policy = ["random", { name = "jsq_d", d = 2 }]
`

func TestExplore(t *testing.T) {
	cases := [][2]string{
		{"warmup = 10.0", "warmup = 10.0\nd = 3\npolicy = { name = \"jsq_d\", d = 2 }\n[sweep2]"},
		{"warmup = 10.0", "warmup = 10.0\nd = 3"},
		{"lambda = [0.5, 0.9]", "lambda = [0.5, 0.9]\nd = [3]"},
		{"[sweep]\n", "[sweep]\nd = [3]\n"},
		{"[sweep]\nlambda = [0.5, 0.9]\n", "sweep = { lambda = [0.5, 0.9], policy = [\"random\", { name = \"jsq_d\", d = 2 }] }\n[sweep2]\n"},
		{"seed = 1", "seed = 1\nallow_unstable = true"},
	}
	for _, c := range cases {
		text := strings.Replace(base, c[0], c[1], 1)
		s, err := Parse("x.toml", text)
		var w []string
		if s != nil {
			w = s.Warnings
		}
		e, _ := err.(*Error)
		fmt.Printf("%-40q -> %v | %#v | %v\n", c[1], err, e, w)
		if s != nil {
			for i := range s.Runs() {
				fmt.Println("   ", s.Run(i).Key)
			}
		}
	}
	tail := []string{
		"\n[[figure]]\nname = \"f\"\nkind = \"pie\"\n",
		"\n[[figure]]\nname = \"f\"\nkind = \"metric\"\nx = \"lambda\"\ny = \"mean_sojourn\"\nwhere = { lamda = 0.5 }\n",
		"\n[[expect]]\nsource = \"s\"\nmetric = \"mean_sojourn\"\nwhere = { lamda = 0.5 }\napprox = 1.0\ntol = 0.1\n",
		"\n[[expect]]\nsource = \"s\"\nmetric = \"mean_sojourn\"\napprox = 1.0\ntol = 0.1\nless_than = { policy = \"random\" }\n",
		"\n[[expect]]\nsource = \"s\"\nmetric = \"mean_sojourn\"\n",
		"\n[[expect]]\nsource = \"s\"\nmetric = \"queue_tail\"\napprox = 1.0\ntol = 0.1\n",
		"\n[[figure]]\nname = \"f\"\nkind = \"queue_tail\"\n\n[[figure]]\nname = \"g\"\nkind = \"pie\"\n",
	}
	for _, tl := range tail {
		_, err := Parse("x.toml", base+tl)
		e, _ := err.(*Error)
		fmt.Printf("%-40q -> %v | %#v\n", tl, err, e)
	}
}
