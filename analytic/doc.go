// Package analytic holds closed-form and mean-field predictions for the
// supermarket model of load balancing, set beside the simulated metrics.
//
// # Units
//
// Time is measured in mean service times: the service rate is mu = 1 unless a
// function takes mu explicitly, so a mean sojourn of 2.6 means 2.6 mean service
// times. lambda is the arrival rate per server (the load per server); the
// stable range is 0 < lambda < 1 (0 < lambda < mu for the M/M/1 functions).
// Queue tails are returned as slices whose element i-1 is the time-average
// fraction of servers holding at least i jobs (the job in service included),
// for i = 1..k, matching the queue_tail column of the results schema.
//
// The request-level families (mmc.go, retry.go, vacation.go, limit.go) take every rate
// and time explicitly and work in the caller's unit: with rates per ms, times
// come out in ms (the resilience model's convention).
//
// # Invalid input
//
// A load, rate or probability outside its valid range is a value, not a bug:
// scalar functions return NaN and tail functions return a slice of k NaNs. A
// structural argument that no caller should ever produce (d < 1, n < 1, k < 0)
// is a programmer error and panics with a message starting "analytic: ".
// BulletinBoardFluid, which iterates to a steady state and can fail, returns
// an error instead of NaN.
//
// # Model families
//
// One file per family:
//
//   - mm1.go: the M/M/1 queue (random dispatch; exact for every n).
//     Kleinrock, Queueing Systems Vol. 1 (1975), §3.2.
//   - jsqd.go: JSQ(d), the supermarket model, at its mean-field
//     (n -> infinity) fixed point s_i = lambda^((d^i-1)/(d-1)), with the mean
//     sojourn T_d(lambda) and the sojourn-time law (a mixture of Erlangs).
//     Mitzenmacher, "The Power of Two Choices in Randomized Load Balancing",
//     IEEE TPDS 12(10), 2001; Vvedenskaya, Dobrushin and Karpelevich,
//     Problems of Information Transmission 32, 1996; Mitzenmacher, Richa and
//     Sitaraman, "The Power of Two Random Choices: A Survey of Techniques and
//     Results" (2001), §4, Lemma 15.
//   - roundrobin.go: round robin over n servers, under which each server is an
//     E_n/M/1 queue (exact for every n). Kleinrock Vol. 1 §6.4 (GI/M/1);
//     Gross and Harris, Fundamentals of Queueing Theory, GI/M/1.
//   - hetero.go: random dispatch and round robin over classes of servers
//     with unequal rates: every server gets the same arrival rate, so each
//     is an M/M/1 (random) or E_n/M/1 (round robin) queue of its own, and
//     the sojourn law and queue tail are mixtures over the classes (exact
//     for every n). Kleinrock Vol. 1 §3.2 and §6.4.
//   - bins.go: balls into bins (m balls, n bins, time t = m/n): the exact
//     Binomial(m, 1/n) law for one choice and the median of its maximum, the
//     fluid limits of greedy d-choice and of Voecking's always-go-left (RK4),
//     and the leading-order asymptotic max loads. Azar, Broder, Karlin and
//     Upfal, SIAM J. Comput. 29(1), 1999; Voecking, JACM 50(4), 2003.
//   - binsmax.go: the exact law of the maximum load of m balls in n bins
//     (d = 1, multinomial counts) and its median, by the generating
//     function m!/n^m [x^m] (sum_{j<=k} x^j/j!)^n. Kolchin, Sevast'yanov and
//     Chistyakov, Random Allocations (1978).
//   - subset.go: subsetting (C clients, each connected to k of B backends):
//     the exact Binomial(C, k/B) law of a backend's connections under random
//     subsets and the exact law under the SRE book's deterministic
//     subsetting (ch. 20), the exact expected variance and idle backends,
//     and the law of the least and most connected backends (independent
//     backends: a one-sided approximation). Beyer et al., Site Reliability
//     Engineering (2016), ch. 20; Dubhashi and Ranjan (1998).
//   - board.go: JSQ(d) and JSQ reading a stale bulletin board, refreshed
//     periodically or per server, in the fluid limit: the attracting cycle
//     of the phase map (transient M/M/1 by uniformization) or the fixed
//     point of the individual-refresh equations. Mitzenmacher, "How Useful
//     Is Old Information?", PODC 1997 and IEEE TPDS 11(1), 2000.
//   - mmc.go: M/M/c (Erlang B and C by the loss recursion, the FIFO sojourn
//     law and its quantiles) and M/M/c/K (stationary law, blocking, the
//     admitted requests' sojourn law), exact under random dispatch by Poisson
//     splitting, and TimeoutProb, the tail at the timeout's slack behind
//     constant hops. Gross and Harris, Fundamentals of Queueing Theory,
//     §2.3 and §2.5; Kleinrock Vol. 1 ch. 3.
//   - retry.go: the retry fixed point x = lam (1 + min(b, p(x) + ... +
//     p(x)^R)), all its solutions, stable or not, with the saturated branch
//     at capacity: the healthy and the metastable states. Bronson et al.,
//     HotOS 2021; Huang et al., OSDI 2022.
//   - vacation.go: a server with periodic stop-the-world pauses (GC): its
//     capacity, and sound lower bounds on the sojourn tail, quantiles and
//     mean, for one server or a fleet sending it a share of the requests.
//   - limit.go: where adaptive concurrency limits settle at a saturated
//     server: Little's law's knee (limit = throughput × latency = c), the
//     fluid fixed point of Gradient2Limit (tolerance·c + queueSize), and the
//     mean-field levels of AIMDLimit and of Gradient2Limit with seed 004's
//     unqueued baseline over M/M/c/⌊L⌋ (no closed form). Little, Operations
//     Research 9(3), 1961; Netflix concurrency-limits.
//   - hashing.go: consistent hashing: the 1/(n+1) and 1/n a join or a leave
//     must move, a ring's peak-to-mean share as the maximum of Dirichlet(e,
//     …, e) shares (e entries per host; quantiles and mean by a conditional
//     normal approximation checked against Monte Carlo), and jump hash's
//     exact multinomial balance. Karger et al., STOC 1997; Lamping and Veach,
//     arXiv:1406.2294, 2014.
package analytic
