package options

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/flowcontrol"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	throttledRequests = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "starrocks_operator_client_throttled_requests_total",
		Help: "Requests to the Kubernetes API that waited for the operator's client-side rate limiter.",
	})
	throttledSeconds = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "starrocks_operator_client_throttled_seconds_total",
		Help: "Seconds requests to the Kubernetes API spent waiting for the operator's client-side rate limiter.",
	})
)

func init() {
	metrics.Registry.MustRegister(throttledRequests, throttledSeconds)
}

// countingRateLimiter is client-go's token bucket, counting every request that
// had to wait for a token: client-go itself only logs waits longer than a second.
type countingRateLimiter struct {
	flowcontrol.RateLimiter
}

// NewCountingRateLimiter returns a token bucket of qps and burst that counts waits
// in starrocks_operator_client_throttled_requests_total.
func NewCountingRateLimiter(qps float32, burst int) flowcontrol.RateLimiter {
	return countingRateLimiter{flowcontrol.NewTokenBucketRateLimiter(qps, burst)}
}

func (l countingRateLimiter) Wait(ctx context.Context) error {
	if l.TryAccept() {
		return nil
	}
	throttledRequests.Inc()
	timer := prometheus.NewTimer(prometheus.ObserverFunc(throttledSeconds.Add))
	defer timer.ObserveDuration()
	return l.RateLimiter.Wait(ctx)
}
