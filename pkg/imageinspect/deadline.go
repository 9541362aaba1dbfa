/*
Copyright The windows-aware Authors.

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

package imageinspect

import (
	"context"
	"errors"
	"fmt"
)

// A registry that answers each request just within RequestTimeout, or
// dribbles bytes, could keep one resolution going for minutes: a HEAD, a
// GET, up to maxChildFetches child reads, for each endpoint and each
// credential. RunTimeout bounds the run as a whole, so that a worker is
// back for other images after it whatever the registry does.

// errRunDeadline is the cause of a run's context when RunTimeout passed.
var errRunDeadline = errors.New("resolution run deadline")

// resolveWithin is resolve, bounded by RunTimeout. A run cut short fails
// as unavailable (retried with backoff, like a timeout), with a detail
// that names the deadline.
func (r *Resolver) resolveWithin(ctx context.Context, rn run) outcome {
	runCtx, cancel := context.WithTimeoutCause(ctx, r.cfg.RunTimeout, errRunDeadline)
	defer cancel()
	out := r.resolve(runCtx, rn)
	if out.err != nil && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errRunDeadline) {
		out.err.Class = ClassUnavailable
		out.err.Detail = fmt.Sprintf("its registry requests together took longer than the run deadline of %s (last: %s)", r.cfg.RunTimeout, out.err.Detail)
	}
	return out
}
