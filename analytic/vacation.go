package analytic

import "math"

// This file: a server with periodic stop-the-world pauses (GC): for pause P
// out of every period G (deterministic), the server does no work at all, the
// request in service included; otherwise it serves FIFO at rate mu (Exp(mu)
// service requirements). In queueing terms, a single server with periodic
// deterministic interruptions (preemptive-resume vacations on a fixed
// schedule). Its queue is periodic, not stationary, and no closed form for
// its sojourn law is given here: only the capacity, which is exact, and lower
// bounds on the sojourn tail, its quantiles and its mean, which are sound
// (they hold for every arrival rate, stable or not). Times and rates in one
// unit (ms and per ms, say).

// VacationCapacity returns the throughput capacity of a server of rate mu
// that pauses for pause out of every period: the long-run fraction of time
// it can work times its rate,
//
//	mu (1 - pause/period),
//
// so its queue is stable (Poisson arrivals) only for lambda below it. Valid
// for mu > 0 finite, period > 0 finite and 0 <= pause <= period; it returns
// NaN otherwise.
//
// Source: the work arriving per period, lambda period / mu in the mean, must
// be below the work the server can do in it, period - pause (Loynes, Proc.
// Cambridge Philos. Soc. 58(3), 1962, for stationary ergodic input, which a
// uniformly random phase of the pause schedule makes it).
func VacationCapacity(mu, pause, period float64) float64 {
	if !posFinite(mu) || !validPause(pause, period) {
		return math.NaN()
	}
	return mu * (1 - pause/period)
}

// VacationSojournTailBound returns a lower bound L(x) on P(S > x), the tail of
// the sojourn time of a request in a fleet where one server pauses for pause
// out of every period and a fraction frac of the requests that arrive during
// its pauses are sent to it:
//
//	L(x) = (frac/period) [ (pause - x)^+ + (e^(-mu (x - pause)^+) - e^(-mu x)) / mu ]
//	       + (1 - frac pause/period) e^(-mu x).
//
// Why it is sound: an arrival lands in a pause with probability pause/period
// (Poisson arrivals, independent of the deterministic schedule, see every
// phase of the period alike), and the residual pause R it then meets is
// uniform on [0, pause]. A request sent to the paused server then has
// S >= R + B, B ~ Exp(mu) its own service, which cannot start before the
// pause ends; the first term is frac (1/period) int_0^pause P(r + B > x) dr.
// Every other request has S >= B. Queueing behind others, later pauses and
// the other servers' queues only add to S, so L(x) <= P(S > x) at every load.
//
// frac = 1 is the paused server on its own (every request goes to it). For a
// load-blind balancer (random, round robin over n servers) frac = 1/n; for a
// load-aware one frac is the share it still sends to the paused server during
// a pause, which it may have learned to shrink. mu = +Inf drops the service
// time, leaving the bound on the residual pause alone, frac (pause - x)^+ /
// period (for x > 0; it is 1 at x <= 0 in every case).
//
// Valid for mu > 0 (+Inf allowed), period > 0 finite, 0 <= pause <= period,
// 0 <= frac <= 1 and x not NaN; it returns NaN otherwise.
func VacationSojournTailBound(mu, pause, period, frac, x float64) float64 {
	if !(mu > 0) || !validPause(pause, period) || !(frac >= 0 && frac <= 1) || math.IsNaN(x) {
		return math.NaN()
	}
	if x <= 0 {
		return 1
	}
	return vacationTail(mu, pause, period, frac, x)
}

// vacationTail is VacationSojournTailBound for valid arguments and x > 0.
func vacationTail(mu, pause, period, frac, x float64) float64 {
	res := math.Max(pause-x, 0)
	if math.IsInf(mu, 1) {
		return frac * res / period
	}
	over := math.Max(x-pause, 0)
	// (e^(-mu over) - e^(-mu x))/mu = e^(-mu over) (1 - e^(-mu (x - over)))/mu
	serv := math.Exp(-mu*over) * -math.Expm1(-mu*(x-over)) / mu
	return frac*(res+serv)/period + (1-frac*pause/period)*math.Exp(-mu*x)
}

// VacationSojournQuantileBound returns a lower bound on the q-quantile of the
// sojourn time in the fleet of VacationSojournTailBound: the x with L(x) =
// 1 - q, since P(S > x) >= L(x) > 1 - q for every smaller x. It is found by
// bisection to a relative width of 1e-13; for mu = +Inf it is the closed form
//
//	pause - (1 - q) period / frac   if (1 - q) < frac pause/period, else 0:
//
// the p99 of a server pausing 300 ms every 2 s is at least 280 ms, and with
// round robin over 5 servers (frac = 1/5) the fleet's p99 is at least 200 ms.
//
// Valid for mu > 0 (+Inf allowed), period > 0 finite, 0 <= pause <= period,
// 0 <= frac <= 1 and 0 < q < 1; it returns NaN otherwise.
func VacationSojournQuantileBound(mu, pause, period, frac, q float64) float64 {
	if !(mu > 0) || !validPause(pause, period) || !(frac >= 0 && frac <= 1) || !validProb(q) {
		return math.NaN()
	}
	if math.IsInf(mu, 1) {
		if frac == 0 {
			return 0
		}
		return math.Max(0, pause-(1-q)*period/frac)
	}
	return quantileFromTail(func(x float64) float64 {
		if x <= 0 {
			return 1
		}
		return vacationTail(mu, pause, period, frac, x)
	}, q, pause+1/mu)
}

// VacationMeanSojournBound returns the integral of VacationSojournTailBound,
// a lower bound on the mean sojourn time of the same fleet:
//
//	E[S] >= 1/mu + frac pause^2 / (2 period),
//
// the service time plus the mean residual pause (pause/2) met with
// probability frac pause/period. Valid as VacationSojournTailBound (mu =
// +Inf gives the pause term alone); it returns NaN otherwise.
func VacationMeanSojournBound(mu, pause, period, frac float64) float64 {
	if !(mu > 0) || !validPause(pause, period) || !(frac >= 0 && frac <= 1) {
		return math.NaN()
	}
	return 1/mu + frac*pause*pause/(2*period)
}

// validPause reports whether 0 < period < Inf and 0 <= pause <= period.
func validPause(pause, period float64) bool {
	return posFinite(period) && pause >= 0 && pause <= period
}
