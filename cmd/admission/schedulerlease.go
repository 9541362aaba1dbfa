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
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/windows-aware/windows-aware/pkg/publish"
)

// schedulerLeaseFlag names the scheduler's leader-election Lease, which the
// opt-in follows (publish.LeaseWatch).
type schedulerLeaseFlag struct{ lease string }

func (s *schedulerLeaseFlag) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.lease, "scheduler-lease", "",
		"NAMESPACE/NAME of the profile's scheduler's leader-election Lease: pods opt in (/opt-in) only while a replica renews it, and keep the stock scheduler while none does; a Lease that cannot be read leaves the opt-in as without it (empty: pods opt in whether or not the scheduler runs)")
}

// follow makes publisher's opt-in follow the Lease, read with the
// client of restConfig until ctx ends; without --scheduler-lease it does
// nothing.
func (s *schedulerLeaseFlag) follow(ctx context.Context, logger klog.Logger, publisher *publish.Publisher, u *ungateOptions) error {
	if s.lease == "" {
		return nil
	}
	namespace, name, ok := strings.Cut(s.lease, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("--scheduler-lease %q: want NAMESPACE/NAME", s.lease)
	}
	cfg, err := u.restConfig()
	if err != nil {
		return fmt.Errorf("--scheduler-lease: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("--scheduler-lease: %w", err)
	}
	watch := publish.WatchLease(logger, client, namespace, name)
	go watch.Run(ctx)
	publisher.FollowScheduler(watch)
	logger.Info("The opt-in follows the scheduler's Lease", "lease", klog.KRef(namespace, name))
	return nil
}
