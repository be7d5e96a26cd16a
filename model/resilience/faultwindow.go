package resilience

import (
	"math"

	"lbsweep/model/policy"
)

// faultWindow measures how long the balancer keeps feeding a fault (the fault_window column): with f the server of
// the first timeline `fail` entry that names one, at time t_f, the attempts the balancer sends from t_f on are
// counted in windows [t_f + i·fault_bin, t_f + (i+1)·fault_bin), i ≥ 0, up to the horizon (the last one possibly
// shorter); a window is "feeding" when f's share of its attempts is ≥ fault_level (a window with no attempts is not).
// fault_window = (i* + 1)·fault_bin for the last feeding window i*, capped at horizon − t_f: the time from the fail
// after which the balancer never again sent f a share ≥ fault_level over a window; 0 when no window fed it; horizon −
// t_f when the last window still did (censored: it never stopped within the run). Null without fault_level or such
// an entry. All attempts count, warm-up or not. fault_share is the faulty server's share of all the attempts sent from
// t_f to the horizon.
type faultWindow struct {
	server       int
	at, bin, lvl float64
	cur          int64 // the current window's index
	n, nf        int64 // its attempts, and those to the faulty server
	last         int64 // the last feeding window closed, −1: none
	total, fed   int64 // attempts from t_f on, and those to the faulty server
}

// fault returns the server and time of the fault fault_window measures: the first timeline fail (in time order)
// that names a server, when fault_level is set; ok false otherwise.
func (c config) fault() (server int, at float64, ok bool) {
	if c.faultLevel == 0 {
		return 0, 0, false
	}
	for _, ch := range c.timeline { // in time order
		if ch.action == Fail && ch.server >= 0 {
			return ch.server, ch.at, true
		}
	}
	return 0, 0, false
}

// newFaultWindow returns the run's fault window (nil when c has no fault_level or no fail naming a server).
func newFaultWindow(c config) *faultWindow {
	k, at, ok := c.fault()
	if !ok {
		return nil
	}
	return &faultWindow{server: k, at: at, bin: c.faultBin, lvl: c.faultLevel, last: -1}
}

func (f *faultWindow) bars(k int) bool { return false }

func (f *faultWindow) sent(e *engine, k int, a int32) {
	if e.now < f.at {
		return
	}
	if i := int64(math.Floor((e.now - f.at) / f.bin)); i != f.cur {
		f.close()
		f.cur, f.n, f.nf = i, 0, 0
	}
	f.n++
	f.total++
	if k == f.server {
		f.nf++
		f.fed++
	}
}

// close closes the current window.
func (f *faultWindow) close() {
	if f.n > 0 && float64(f.nf) >= f.lvl*float64(f.n) {
		f.last = f.cur
	}
}

func (f *faultWindow) result(e *engine, k int, a int32, o policy.Outcome, latency float64) {}
func (f *faultWindow) fire(e *engine, p int32)                                             {}

// finish records fault_window at the horizon.
func (f *faultWindow) finish(e *engine) {
	f.close()
	e.out.faultWindow = 0
	if f.total > 0 {
		e.out.faultShare = float64(f.fed) / float64(f.total)
	}
	if f.last >= 0 {
		e.out.faultWindow = min(float64(f.last+1)*f.bin, e.c.horizon-f.at)
	}
}
