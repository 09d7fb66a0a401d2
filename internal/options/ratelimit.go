/*
Copyright 2026 The srscale authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package options

import crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

// Every request's wait for the client-side rate limiter is observed in
// rest_client_rate_limiter_duration_seconds (a wait of 5 ms or more is a
// throttled request), since client-go itself only logs waits over a second.
func init() {
	crmetrics.RegisterRESTClientMetrics(crmetrics.MetricRateLimiterLatency)
}
