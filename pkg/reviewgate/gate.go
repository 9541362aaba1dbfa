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

package reviewgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// Limits are what one replica of the webhook reads. The zero value of a
// field is its default.
type Limits struct {
	// MaxBodyBytes is the largest review read (default 8 MiB): the API
	// server's own request limit is 3 MiB an object, and an UPDATE's
	// review carries two. A longer one is refused unread (413).
	MaxBodyBytes int64
	// Reviews is how many reviews of at most LargeReviewBytes are read
	// and decoded at once (default 32); LargeReviews, how many larger
	// ones, or ones that declare no length (default 1). A review that
	// finds no room until shortly before the API server's timeout is
	// admitted unchanged. Apart, a client that declares large reviews and
	// sends them slowly holds the large ones' room alone: the reviews the
	// API server sends for ordinary objects pass beside it.
	Reviews, LargeReviews int
	// LargeReviewBytes is the declared length past which a review is
	// large (default 256 KiB).
	LargeReviewBytes int64
	// MaxContainers is the most containers (init and ephemeral included,
	// the object's and the old object's together) a review may hold to
	// be decoded (default 1,000); past it the review is admitted
	// unchanged.
	MaxContainers int
	// MaxImageBytes is the most bytes of image strings a review may hold
	// to be decoded (default 1 MiB); past it the review is admitted
	// unchanged.
	MaxImageBytes int
}

// The defaults of Limits. DefaultMaxBodyBytes is also the most a Server
// reads of a review's body.
const (
	DefaultMaxBodyBytes     = 8 << 20
	DefaultReviews          = 32
	DefaultLargeReviews     = 1
	DefaultLargeReviewBytes = 256 << 10
	DefaultMaxContainers    = 1000
	DefaultMaxImageBytes    = 1 << 20
)

// The reasons LimitedReviews counts.
const (
	ReasonTooLarge   = "too_large"
	ReasonBusy       = "busy"
	ReasonContainers = "containers"
	ReasonImageBytes = "image_bytes"
)

// defaultWait is how long a review waits for room when the
// API server names no timeout for the call (it does: ?timeout=10s by
// default); waitMargin is kept of a timeout it names, to answer in.
const (
	defaultWait = 9 * time.Second
	waitMargin  = time.Second
)

// envelopeBytes is how much of a review is read to find its UID when
// there is no room for the whole: the API server writes the request's UID
// near the start.
const envelopeBytes = 64 << 10

// Gate is one replica's front for every review path: the room for
// reviews is shared by all of them.
type Gate struct {
	limits       Limits
	reviews      *semaphore.Weighted
	largeReviews *semaphore.Weighted
}

// New returns a Gate with limits, defaults filled in.
func New(limits Limits) *Gate {
	if limits.MaxBodyBytes <= 0 {
		limits.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if limits.Reviews <= 0 {
		limits.Reviews = DefaultReviews
	}
	if limits.LargeReviews <= 0 {
		limits.LargeReviews = DefaultLargeReviews
	}
	if limits.LargeReviewBytes <= 0 {
		limits.LargeReviewBytes = DefaultLargeReviewBytes
	}
	if limits.MaxContainers <= 0 {
		limits.MaxContainers = DefaultMaxContainers
	}
	if limits.MaxImageBytes <= 0 {
		limits.MaxImageBytes = DefaultMaxImageBytes
	}
	return &Gate{limits: limits, reviews: semaphore.NewWeighted(int64(limits.Reviews)),
		largeReviews: semaphore.NewWeighted(int64(limits.LargeReviews))}
}

// Wrap serves mux's requests, a POST to one of its patterns (a review)
// once it is within the limits: mux's handler then reads the body the
// gate has read, from memory. The metric's path label is mux's pattern,
// never the request's own path.
func (g *Gate) Wrap(logger klog.Logger, mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, path := mux.Handler(r)
		if r.Method != http.MethodPost || path == "" {
			mux.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > g.limits.MaxBodyBytes {
			LimitedReviews.WithLabelValues(path, ReasonTooLarge).Inc()
			http.Error(w, fmt.Sprintf("an AdmissionReview of %d bytes, more than the %d this webhook reads", r.ContentLength, g.limits.MaxBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		room, kind := g.reviews, "reviews"
		if r.ContentLength < 0 || r.ContentLength > g.limits.LargeReviewBytes {
			room, kind = g.largeReviews, "large reviews"
		}
		ctx, cancel := context.WithTimeout(r.Context(), waitFor(r))
		err := room.Acquire(ctx, 1)
		cancel()
		if err != nil {
			LimitedReviews.WithLabelValues(path, ReasonBusy).Inc()
			// The UID is near the start.
			env, ok := readEnvelope(io.LimitReader(r.Body, envelopeBytes))
			if !ok {
				http.Error(w, "the webhook is busy", http.StatusTooManyRequests)
				return
			}
			logger.Info("Admitting a review unchanged: the webhook had no room for it", "path", path, "kind", env.Request.Kind.Kind, "namespace", env.Request.Namespace, "name", env.Request.Name)
			admitUnchanged(w, logger, env, "the webhook was busy with other "+kind)
			return
		}
		defer room.Release(1)
		body, err := readAll(http.MaxBytesReader(w, r.Body, g.limits.MaxBodyBytes), r.ContentLength)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				LimitedReviews.WithLabelValues(path, ReasonTooLarge).Inc()
				http.Error(w, fmt.Sprintf("an AdmissionReview of more than the %d bytes this webhook reads", g.limits.MaxBodyBytes), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		// A review cannot hold more containers than it has objects, nor
		// more image bytes than bytes: most reviews are read no further.
		var counts Counts
		if bytes.Count(body, []byte("{")) > g.limits.MaxContainers || len(body) > g.limits.MaxImageBytes {
			counts, err = Count(body, Counts{Containers: g.limits.MaxContainers, ImageBytes: g.limits.MaxImageBytes})
		}
		if err == nil {
			reason, why := "", ""
			switch {
			case counts.Containers > g.limits.MaxContainers:
				reason, why = ReasonContainers, fmt.Sprintf("it holds more than %d containers, the most this webhook reads", g.limits.MaxContainers)
			case counts.ImageBytes > g.limits.MaxImageBytes:
				reason, why = ReasonImageBytes, fmt.Sprintf("its images are more than %d bytes long together, the most this webhook reads", g.limits.MaxImageBytes)
			}
			if reason != "" {
				LimitedReviews.WithLabelValues(path, reason).Inc()
				if env, ok := readEnvelope(bytes.NewReader(body)); ok {
					logger.Info("Admitting a review unchanged: past the webhook's limits", "path", path, "reason", reason, "kind", env.Request.Kind.Kind, "namespace", env.Request.Namespace, "name", env.Request.Name)
					admitUnchanged(w, logger, env, why)
					return
				}
				http.Error(w, "not an AdmissionReview with a request", http.StatusBadRequest)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		mux.ServeHTTP(w, r)
	})
}

// readAll reads r to its end into a buffer of the declared length (-1:
// not declared, a buffer that grows): no garbage of a growing buffer for
// the reviews that declare their length, as the API server's do. The
// rooms bound how many such buffers there are at once.
func readAll(r io.Reader, declared int64) ([]byte, error) {
	if declared < 0 {
		return io.ReadAll(r)
	}
	buf := make([]byte, declared)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// waitFor is how long a review may wait for room: until
// shortly before the API server gives up on the call.
func waitFor(r *http.Request) time.Duration {
	if s := r.URL.Query().Get("timeout"); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 2*waitMargin {
			return d - waitMargin
		}
	}
	return defaultWait
}

// envelope is what of a review the gate's own answer needs.
type envelope struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Request    *requestEnvelope `json:"request"`
}

// requestEnvelope is what of a review's request the gate's answer and log
// name.
type requestEnvelope struct {
	UID  string `json:"uid"`
	Kind struct {
		Kind string `json:"kind"`
	} `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// readEnvelope reads the envelope of the review in r, token by token,
// skipping the objects, so that reading it costs nothing that grows with
// them. ok is false when r holds no request UID.
func readEnvelope(r io.Reader) (env envelope, ok bool) {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return env, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return env, false
		}
		key, _ := tok.(string)
		switch key {
		case "apiVersion":
			if dec.Decode(&env.APIVersion) != nil {
				return env, false
			}
		case "kind":
			if dec.Decode(&env.Kind) != nil {
				return env, false
			}
		case "request":
			if !readRequest(dec, &env) {
				return env, false
			}
			return env, env.Request.UID != ""
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return env, false
			}
		}
	}
	return env, false
}

// readRequest reads the request's uid, kind, namespace and name, and stops
// at the first field it does not need that holds an object: the UID and
// the names come first in what the API server sends.
func readRequest(dec *json.Decoder, env *envelope) bool {
	env.Request = &requestEnvelope{}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return env.Request.UID != ""
		}
		var target any
		switch tok {
		case "uid":
			target = &env.Request.UID
		case "kind":
			target = &env.Request.Kind
		case "namespace":
			target = &env.Request.Namespace
		case "name":
			target = &env.Request.Name
		case "object", "oldObject":
			return true
		default:
			var skip json.RawMessage
			target = &skip
		}
		if err := dec.Decode(target); err != nil {
			return env.Request.UID != ""
		}
	}
	return true
}

// admitUnchanged answers a review allowed, with no patch, and a warning.
func admitUnchanged(w http.ResponseWriter, logger klog.Logger, env envelope, why string) {
	req := env.Request
	writeReview(w, logger, metav1.TypeMeta{APIVersion: env.APIVersion, Kind: env.Kind}, &admissionv1.AdmissionResponse{
		UID:      types.UID(req.UID),
		Allowed:  true,
		Warnings: []string{fmt.Sprintf("windows-aware: admitted %s %s/%s unchanged: %s", req.Kind.Kind, req.Namespace, req.Name, why)},
	})
}
