package policy

import (
	"lbsweep/model/sim"
)

const roundRobinDoc = "servers 0, 1, …, n−1, 0, … in turn, ignoring loads; with Poisson arrivals each server is an " +
	"E_n/M/1 queue (nginx's round robin with equal weights)"

type roundRobin struct{ next int }

func newRoundRobin(Args, Servers) Policy { return &roundRobin{} }

func (p *roundRobin) Pick(l *sim.Levels, _ *sim.Rand, _ float64) int {
	k := p.next
	p.next++
	if p.next == l.N() {
		p.next = 0
	}
	return k
}
