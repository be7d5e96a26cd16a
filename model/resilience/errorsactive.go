package resilience

import "lbsweep/model/policy"

// errorsActive is the SRE book's fix for sinkholing (Beyer et al., Site Reliability Engineering, O'Reilly 2016,
// chapter 20 "Load Balancing in the Datacenter", section "Least-Loaded Round Robin", right after the pitfall "if a
// task is seriously unhealthy, it might start serving 100% errors. Depending on the nature of those errors, they may
// have very low latency": the fix of counting recent errors as if they were active requests, as seed 000 §10 puts
// it; the book's own sentence for the fix was not retrieved, so this is a paraphrase). Here a 500 answered by server k (policy.Error: a server error, a refused connection, work lost in
// a kill) counts as one more outstanding request at k in the balancer's counts (engine.lv, what least_outstanding
// and the other count-reading policies see) for `errors_active` ms after the answer: one e.lv.Up at the answer and
// one e.lv.Down at a guard timer. 503s and timeouts are not errors here (the book names errors; a 503 from a full
// queue already says the server is loaded). The book gives no hold time; it is this model's parameter.
type errorsActive struct {
	hold float64 // ms
	idx  int     // its position in engine.guards
	held []int   // extra counts held per server now
}

func (g *errorsActive) bars(k int) bool                { return false }
func (g *errorsActive) sent(e *engine, k int, a int32) {}

func (g *errorsActive) result(e *engine, k int, a int32, o policy.Outcome, latency float64) {
	if o != policy.Error {
		return
	}
	e.lv.Up(k, e.now)
	g.held[k]++
	e.guardAt(e.now+g.hold, g.idx, int32(k))
}

// fire releases one count held at server p.
func (g *errorsActive) fire(e *engine, p int32) {
	e.lv.Down(int(p), e.now)
	g.held[p]--
}
