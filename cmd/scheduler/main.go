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

	_ "github.com/windows-aware/windows-aware/pkg/apis/config/scheme" // WindowsAwareArgs in the config scheme
	"github.com/windows-aware/windows-aware/pkg/plugins/windowsaware"
)

// plugins registers the out-of-tree plugins beside the in-tree ones.
func plugins() []app.Option {
	return []app.Option{
		app.WithPlugin(windowsaware.Name, windowsaware.New),
		app.WithPlugin(windowsaware.OSTaintTolerationName, windowsaware.NewOSTaintToleration),
	}
}

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand(plugins()...)))
}
