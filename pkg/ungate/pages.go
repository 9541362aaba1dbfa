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

package ungate

import (
	"context"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// DefaultPageSize is the pods read per list call: a bounded response,
// however many pods the cluster has.
const DefaultPageSize = 500

// eachPod calls fn with every pod of every namespace that selector (a
// label selector, "" for all) selects, reading pageSize pods at a time
// (DefaultPageSize when 0). Scheduling gates cannot be selected on, by
// label or field, so finding the gated pods without our label takes the
// list of every pod: in pages, so that neither the API server nor this
// process holds a big cluster's pods in one response.
//
// When the continue token outlives the list's snapshot (etcd compacted
// it) the list starts again, and fn may see a pod twice; fn decides what
// a pod seen again means.
func eachPod(ctx context.Context, client kubernetes.Interface, selector string, pageSize int64, fn func(*v1.Pod)) error {
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	opts := metav1.ListOptions{LabelSelector: selector, Limit: pageSize}
	for {
		list, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			klog.FromContext(ctx).V(2).Info("The pod list's continue token expired; listing again")
			opts.Continue = ""
			continue
		}
		if err != nil {
			return err
		}
		for i := range list.Items {
			fn(&list.Items[i])
		}
		if list.Continue == "" {
			return nil
		}
		opts.Continue = list.Continue
	}
}
