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

// Command scheduler is kube-scheduler with the windows-aware plugins
// registered (cmd/scheduler/app), so that one binary serves the stock
// default-scheduler profile and the windows-aware profile.
package main

import (
	"os"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // for --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	windowsawareapp "github.com/windows-aware/windows-aware/cmd/scheduler/app"
)

// newRootCommand is kube-scheduler's command with the plugins, and the
// explain subcommand beside it.
func newRootCommand() *cobra.Command {
	cmd := app.NewSchedulerCommand(windowsawareapp.Plugins()...)
	cmd.Long += "\n\nSubcommands:\n  explain   tell what the windows-aware profile decides about pod templates (scheduler explain --help)"
	cmd.AddCommand(newExplainCommand(os.Exit))
	return cmd
}

func main() {
	os.Exit(cli.Run(newRootCommand()))
}
