package options

import crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

// Every request's wait for the client-side rate limiter is observed in
// rest_client_rate_limiter_duration_seconds (a wait of 5 ms or more is a
// throttled request), since client-go itself only logs waits over a second.
func init() {
	crmetrics.RegisterRESTClientMetrics(crmetrics.MetricRateLimiterLatency)
}
