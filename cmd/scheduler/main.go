// Command scheduler is kube-scheduler with the windows-aware plugins
// registered, so that one binary serves the stock default-scheduler profile
// and the windows-aware profile.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // for --logging-format=json
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	_ "github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
)

func main() {
	command := app.NewSchedulerCommand(
		app.WithPlugin(windowsaware.Name, windowsaware.New),
		app.WithPlugin(windowsaware.OSTaintTolerationName, windowsaware.NewOSTaintToleration),
	)
	os.Exit(cli.Run(command))
}
