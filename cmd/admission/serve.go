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

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/publish"
	"github.com/windows-aware/windows-aware/pkg/reviewgate"
	"github.com/windows-aware/windows-aware/pkg/ungate"
)

// shutdownTimeout bounds how long requests in flight may take to finish
// once the server stops; the API server gives a webhook 2 seconds.
const shutdownTimeout = 10 * time.Second

// serverLimits bound what one client may hold of the server: a client
// that trickles its headers or body, or keeps an idle connection open, is
// cut off, so a few slow connections cannot keep the webhook from the API
// server's reviews.
type serverLimits struct {
	readHeader, read, write, idle time.Duration
	maxHeaderBytes                int
}

// defaultServerLimits leave a review ample time: the API server waits at
// most 30 seconds for a webhook (10 by default), and a review, a pod
// twice over, is at most a few MiB.
var defaultServerLimits = serverLimits{
	readHeader:     5 * time.Second,
	read:           15 * time.Second,
	write:          30 * time.Second,
	idle:           90 * time.Second,
	maxHeaderBytes: 64 << 10,
}

// metricsRegistry holds the process's metrics. The metrics are package
// globals, which a registry takes once: a second registry would serve none
// of them.
var metricsRegistry = sync.OnceValue(func() metrics.KubeRegistry {
	registry := metrics.NewKubeRegistry()
	publish.RegisterMetrics(registry)
	reviewgate.RegisterMetrics(registry)
	ungate.RegisterMetrics(registry)
	return registry
})

// serve serves the webhook until ctx ends, then shuts down gracefully:
// /readyz fails for shutdownDelay, then the server stops taking
// connections and waits for the requests in flight.
func serve(ctx context.Context, logger klog.Logger, publisher *publish.Publisher, o *options) error {
	// The certificates outlive ctx: they are served through the shutdown
	// delay.
	certCtx, stopCerts := context.WithCancel(context.Background())
	defer stopCerts()
	getCertificate, err := o.startCertificates(ctx, certCtx, logger)
	if err != nil {
		return err
	}

	registry := metricsRegistry()
	var stopping atomic.Bool

	mux := http.NewServeMux()
	mux.Handle("/mutate", publisher.Handler(logger))
	mux.Handle("/opt-in", publisher.OptInHandler(logger))
	// Workload templates (DaemonSets and the other kinds of
	// publish.workloadResources): served always, called only where the
	// webhook configuration asks for it.
	mux.Handle("/templates", publisher.TemplatesHandler(logger))
	if err := o.registerWarnings(ctx, logger, mux, publisher); err != nil {
		return err
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if stopping.Load() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	metricsHandler, err := o.metricsAuth.guard(logger, metrics.HandlerFor(registry, metrics.HandlerOpts{}), func() (kubernetes.Interface, error) {
		cfg, err := o.ungate.restConfig()
		if err != nil {
			return nil, err
		}
		return kubernetes.NewForConfig(cfg)
	})
	if err != nil {
		return err
	}
	mux.Handle("/metrics", metricsHandler)

	limits := o.limits
	if limits == (serverLimits{}) {
		limits = defaultServerLimits
	}
	// Every review path behind one gate (pkg/reviewgate): what one
	// review, or many side by side, may cost this replica before a handler
	// decodes them.
	reviews := reviewgate.New(o.reviews)
	srv := limits.newServer(net.JoinHostPort(o.bindAddress, strconv.Itoa(o.port)), reviews.Wrap(logger, mux))
	srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: getCertificate}
	listener, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- srv.ServeTLS(listener, "", "") }()
	logger.Info("Serving", "address", listener.Addr().String())

	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	logger.Info("Shutting down", "delay", o.shutdownDelay)
	stopping.Store(true)
	time.Sleep(o.shutdownDelay)
	if err := shutdown(srv, done); err != nil {
		return err
	}
	logger.Info("Stopped")
	return nil
}

// newServer is a server of handler on address, held to the limits.
func (l serverLimits) newServer(address string, handler http.Handler) *http.Server {
	return &http.Server{
		Addr:              address,
		Handler:           handler,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		WriteTimeout:      l.write,
		IdleTimeout:       l.idle,
		MaxHeaderBytes:    l.maxHeaderBytes,
	}
}

// shutdown stops srv, waiting at most shutdownTimeout for the requests in
// flight, and returns what its Serve, which reports to served, ended with
// unless that is the shutdown itself.
func shutdown(srv *http.Server, served <-chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
