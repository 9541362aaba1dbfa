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

// Package reviewgate bounds what one AdmissionReview may cost the webhook
// before any handler decodes it into typed objects, on every path the
// webhook serves (/mutate, /opt-in, /templates, /warnings).
//
// Anyone who reaches the webhook's port can send a review, and the API
// server sends what a tenant writes, dry runs included. A typed decode
// costs far more than the JSON it reads: a container of a few bytes of
// JSON is a v1.Container of some hundreds, so an 8 MiB review of 300,000
// minimal containers is about 130 MB per typed copy. The gate, in order:
//
//   - refuses a body larger than the limit unread, by its Content-Length;
//   - reads a bounded number of reviews at once (32), and of large ones
//     (past 256 KiB, or of no declared length) one at a time, so that a
//     review waits its turn (until the API server's timeout for the call
//     nears), memory stays bounded, and a client that sends large reviews
//     slowly holds only the large ones' room;
//   - counts the containers (init and ephemeral included) and image bytes
//     of the raw JSON (Count), and answers past the caps itself.
//
// A review it does not pass on is answered "allowed, unchanged", with a
// warning that says why and a count in the metric LimitedReviews: the
// webhook is an aid, and the room it keeps is its own, never a reason to
// refuse what the API server would admit.
//
// Behind the gate, each path's handler is a Server (serve.go): the one
// reading of a review's body, of at most DefaultMaxBodyBytes, its decode,
// its count by the path's outcome, and the review of the answer. The
// publish webhook's paths and the warnings' are Servers alike.
package reviewgate
