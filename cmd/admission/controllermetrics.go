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
	"fmt"
	"net"
	"net/http"

	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
)

// serveControllerMetrics serves /healthz and the controller's /metrics on
// address, over plain HTTP, until ctx ends; with no address it only waits.
// It is the controller-only mode's server: no webhook, no TLS, and by
// default on loopback, so that nothing off the pod reads it unasked.
func serveControllerMetrics(ctx context.Context, logger klog.Logger, address string) error {
	if address == "" {
		<-ctx.Done()
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.Handle("/metrics", metrics.HandlerFor(metricsRegistry(), metrics.HandlerOpts{}))
	srv := defaultServerLimits.newServer(address, mux)
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(listener) }()
	logger.Info("Serving the controller's metrics", "address", listener.Addr().String())
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	return shutdown(srv, done)
}
