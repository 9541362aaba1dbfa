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

package registryserver

import "github.com/windows-aware/windows-aware/internal/localproc"

// registryEnv is our environment without the variables the registry reads
// as configuration: REGISTRY_* overrides the configuration file, and
// OTEL_* would point its tracing somewhere. Tracing is off: by default it
// would export spans to an OTLP collector on localhost.
func registryEnv() []string {
	off := []string{"OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none"}
	return append(off, localproc.EnvWithout("REGISTRY_", "OTEL_")...)
}
