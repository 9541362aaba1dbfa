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

// Package controlplane runs a local control plane on 127.0.0.1 for the
// integration tests and make demo: etcd, kube-apiserver, optionally
// kube-controller-manager and kwok, and any number of this project's
// scheduler processes, each run with the shipped
// manifests/scheduler-config.yaml (only clientConnection.kubeconfig
// rewritten). Every process runs in a process group of its own and Stop
// ends each by its pid, leaving no process or port behind.
//
// The binaries come from bin/tools (hack/build-tools.sh) and bin/scheduler
// (make build); see FindBinaries.
package controlplane

import (
	"context"
	"crypto/tls"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/windows-aware/windows-aware/internal/fixture"
	"github.com/windows-aware/windows-aware/internal/localproc"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

//go:embed kwok-stages.yaml
var kwokStages []byte

// KwokAnnotation marks a node kwok manages (makes Ready and runs pods on).
const KwokAnnotation = fixture.KwokAnnotation

// Options configures Start. The zero value runs etcd, kube-apiserver and
// one scheduler in a temporary directory.
type Options struct {
	// Dir holds data, certificates, kubeconfigs and logs. Empty: a new
	// temporary directory, removed by Stop unless the cluster failed.
	Dir string
	// ToolsDir and BinDir override where FindBinaries looks.
	ToolsDir, BinDir string
	// SchedulerConfig is the configuration the schedulers run with, with
	// only clientConnection.kubeconfig rewritten. Empty: the shipped
	// manifests/scheduler-config.yaml.
	SchedulerConfig string
	// Schedulers is how many scheduler processes to start. They share the
	// configuration's leader election, so one schedules at a time.
	Schedulers int
	// SchedulerArgs are added to every scheduler's command line.
	SchedulerArgs []string
	// ControllerManager starts kube-controller-manager (Deployments,
	// ReplicaSets, service accounts, garbage collection). Without it,
	// namespaces get no default service account unless made with
	// CreateNamespace.
	//
	// Simulated nodes send no heartbeats, so the node lifecycle controller
	// never runs (it would mark every node unreachable and evict its pods)
	// and the API server does not taint new nodes not-ready (the
	// TaintNodesByCondition admission plugin is off, since only that
	// controller would lift the taint): a node is schedulable once created.
	ControllerManager bool
	// DemoControllers starts demo-controllers instead (when
	// ControllerManager is false): upstream's Deployment, ReplicaSet,
	// ServiceAccount, namespace and garbage-collector controllers alone,
	// which make demo needs and which build in a fraction of
	// kube-controller-manager's first compile (hack/tools/democontrollers).
	DemoControllers bool
	// Controllers overrides kube-controller-manager's --controllers. Empty:
	// every default controller but the node lifecycle controller and the
	// TTL controller (which would annotate every node: churn with nothing
	// to show for it).
	Controllers string
	// Kwok starts kwok, managing nodes annotated KwokAnnotation=fake: it
	// makes them Ready and runs (simulates) the pods bound to them.
	Kwok bool
	// APIServerArgs are added to kube-apiserver's command line.
	APIServerArgs []string
	// Detach lets the processes outlive the program that started them
	// (make demo). Otherwise each is killed when its parent dies.
	Detach bool
	// PIDDir, when set, receives a pid file per process, for localproc.StopRecorded.
	PIDDir string
	// Logf reports progress; nil is silent.
	Logf func(format string, args ...any)
	// QPS and Burst of the admin client; 0: 500 and 1000.
	QPS   float32
	Burst int
}

// Cluster is a running control plane.
type Cluster struct {
	// Dir holds everything the cluster writes; LogDir the process logs.
	Dir, LogDir string
	// Kubeconfig is the path of an admin (system:masters) kubeconfig.
	Kubeconfig string
	// Config and Client are the admin's.
	Config *rest.Config
	Client kubernetes.Interface
	// APIServerURL is https://127.0.0.1:<port>; EtcdURL is
	// http://127.0.0.1:<port>.
	APIServerURL, EtcdURL string
	// SchedulerConfigFile is the configuration the schedulers run with.
	SchedulerConfigFile string
	// SchedulerKubeconfig is the kubeconfig of the system:kube-scheduler
	// user that the scheduler configuration points at.
	SchedulerKubeconfig string
	Binaries            Binaries

	opts    Options
	tempDir bool
	pki     *clusterPKI

	mu         sync.Mutex
	procs      []*localproc.Process // in start order
	schedulers []*localproc.Process
	seq        int
	failed     bool
	// ready waits until a component Restart may start again is healthy.
	ready map[string]readyFunc
}

// readyFunc waits until process p of a component serves.
type readyFunc func(ctx context.Context, p *localproc.Process) error

func (c *Cluster) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
	}
}

// Start starts a control plane as opts say, waiting until each component
// is healthy. On error it stops whatever it started.
func Start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	want := []string{Etcd, KubeAPIServer, Scheduler}
	if opts.Schedulers == 0 {
		want = want[:2]
	}
	switch {
	case opts.ControllerManager:
		want = append(want, ControllerManager)
	case opts.DemoControllers:
		want = append(want, DemoControllers)
	}
	if opts.Kwok {
		want = append(want, Kwok)
	}
	bins, err := FindBinaries(opts.ToolsDir, opts.BinDir, want...)
	if err != nil {
		return nil, err
	}
	if opts.SchedulerConfig == "" {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		opts.SchedulerConfig = filepath.Join(root, ShippedSchedulerConfig)
	}
	if opts.QPS == 0 {
		opts.QPS, opts.Burst = 500, 1000
	}

	c := &Cluster{opts: opts, Binaries: bins, ready: map[string]readyFunc{}}
	if opts.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "windows-aware-cluster-"); err != nil {
			return nil, err
		}
		c.tempDir = true
	} else {
		c.Dir = opts.Dir
		if err := os.MkdirAll(c.Dir, 0o755); err != nil {
			return nil, err
		}
	}
	c.Dir, _ = filepath.Abs(c.Dir)
	c.LogDir = filepath.Join(c.Dir, "logs")
	defer func() {
		if err != nil {
			c.failed = true
			c.Stop()
		}
	}()

	if c.pki, err = newPKI(filepath.Join(c.Dir, "pki")); err != nil {
		return nil, err
	}

	etcdURL, err := c.startEtcd(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.startAPIServer(ctx, etcdURL); err != nil {
		return nil, err
	}
	switch {
	case opts.ControllerManager:
		if err := c.startControllerManager(ctx); err != nil {
			return nil, err
		}
	case opts.DemoControllers:
		if err := c.startDemoControllers(ctx); err != nil {
			return nil, err
		}
	}
	if opts.Kwok {
		if err := c.startKwok(ctx); err != nil {
			return nil, err
		}
	}
	if opts.Schedulers > 0 {
		if c.SchedulerConfigFile, err = writeSchedulerConfig(opts.SchedulerConfig, c.SchedulerKubeconfig, c.Dir); err != nil {
			return nil, err
		}
		for range opts.Schedulers {
			if _, err := c.StartScheduler(ctx); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

func (c *Cluster) startEtcd(ctx context.Context) (string, error) {
	clientPort, err := localproc.FreePort()
	if err != nil {
		return "", err
	}
	peerPort, err := localproc.FreePort()
	if err != nil {
		return "", err
	}
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	c.logf("starting etcd on %s", clientURL)
	start := time.Now()
	p, err := c.start(Etcd, c.Binaries.Etcd, []string{
		"--name=etcd",
		"--data-dir=" + filepath.Join(c.Dir, "etcd"),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=etcd=" + peerURL,
		"--unsafe-no-fsync=true", // a throwaway cluster: no fsync, much less I/O
		"--quota-backend-bytes=8589934592",
		"--log-level=warn",
	})
	if err != nil {
		return "", err
	}
	c.EtcdURL = clientURL
	c.ready[Etcd] = func(ctx context.Context, p *localproc.Process) error {
		return waitHealthy(ctx, p, 60*time.Second, http.DefaultClient, clientURL+"/health", func(body string) bool {
			return strings.Contains(body, `"health":"true"`)
		})
	}
	if err := c.ready[Etcd](ctx, p); err != nil {
		return "", err
	}
	c.logf("etcd ready in %s", since(start))
	return clientURL, nil
}

func (c *Cluster) startAPIServer(ctx context.Context, etcdURL string) error {
	port, err := localproc.FreePort()
	if err != nil {
		return err
	}
	c.APIServerURL = fmt.Sprintf("https://127.0.0.1:%d", port)
	adminCert, adminKey, err := c.pki.clientCert("admin", "windows-aware-admin", "system:masters")
	if err != nil {
		return err
	}
	schedCert, schedKey, err := c.pki.clientCert("scheduler", "system:kube-scheduler")
	if err != nil {
		return err
	}
	if c.Kubeconfig, err = c.writeKubeconfig("kubeconfig", "windows-aware-admin", adminCert, adminKey); err != nil {
		return err
	}
	if c.SchedulerKubeconfig, err = c.writeKubeconfig("scheduler.kubeconfig", "system:kube-scheduler", schedCert, schedKey); err != nil {
		return err
	}

	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(c.Dir, "apiserver"),
		"--tls-cert-file=" + c.pki.ServingCertFile,
		"--tls-private-key-file=" + c.pki.ServingKeyFile,
		"--client-ca-file=" + c.pki.CAFile,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.pki.SAKeyFile,
		"--service-account-signing-key-file=" + c.pki.SAKeyFile,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--authorization-mode=RBAC",
		// HostProcess pods need privileged containers allowed.
		"--allow-privileged=true",
		// No endpoints for the kubernetes Service: it would point at
		// 127.0.0.1, which Endpoints reject, and nothing here uses it.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}
	// No node lifecycle controller runs to lift the not-ready taint this
	// plugin puts on new nodes (see Options.ControllerManager).
	args = append(args, "--disable-admission-plugins=TaintNodesByCondition")
	args = append(args, c.opts.APIServerArgs...)
	c.logf("starting kube-apiserver on %s", c.APIServerURL)
	start := time.Now()
	p, err := c.start(KubeAPIServer, c.Binaries.KubeAPIServer, args)
	if err != nil {
		return err
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = c.opts.QPS, c.opts.Burst
	c.Config = cfg
	if c.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	c.ready[KubeAPIServer] = func(ctx context.Context, p *localproc.Process) error {
		return waitHealthy(ctx, p, 3*time.Minute, httpClient, c.APIServerURL+"/readyz", nil)
	}
	if err := c.ready[KubeAPIServer](ctx, p); err != nil {
		return err
	}
	c.logf("kube-apiserver ready in %s", since(start))
	return nil
}

func (c *Cluster) writeKubeconfig(file, user, certFile, keyFile string) (string, error) {
	ca, err := os.ReadFile(c.pki.CAFile)
	if err != nil {
		return "", err
	}
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return "", err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return "", err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["windows-aware"] = &clientcmdapi.Cluster{Server: c.APIServerURL, CertificateAuthorityData: ca}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["windows-aware"] = &clientcmdapi.Context{Cluster: "windows-aware", AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = "windows-aware"
	path := filepath.Join(c.Dir, file)
	return path, clientcmd.WriteToFile(*cfg, path)
}

func (c *Cluster) startControllerManager(ctx context.Context) error {
	port, err := localproc.FreePort()
	if err != nil {
		return err
	}
	cert, key, err := c.pki.clientCert("controller-manager", "system:kube-controller-manager")
	if err != nil {
		return err
	}
	kubeconfig, err := c.writeKubeconfig("controller-manager.kubeconfig", "system:kube-controller-manager", cert, key)
	if err != nil {
		return err
	}
	controllers := c.opts.Controllers
	if controllers == "" {
		controllers = "*,-node-lifecycle-controller,-ttl-controller"
	}
	c.logf("starting kube-controller-manager")
	start := time.Now()
	p, err := c.start("kube-controller-manager", c.Binaries.ControllerManager, []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--leader-elect=false",
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + c.pki.SAKeyFile,
		"--root-ca-file=" + c.pki.CAFile,
		"--controllers=" + controllers,
		"--kube-api-qps=100",
		"--kube-api-burst=200",
		"--profiling=false",
	})
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, p, 2*time.Minute, insecureClient(), fmt.Sprintf("https://127.0.0.1:%d/healthz", port), nil); err != nil {
		return err
	}
	c.logf("kube-controller-manager ready in %s", since(start))
	return nil
}

// startDemoControllers starts demo-controllers as the admin: it is the
// demo's own machinery on loopback, not a component under test.
func (c *Cluster) startDemoControllers(ctx context.Context) error {
	port, err := localproc.FreePort()
	if err != nil {
		return err
	}
	c.logf("starting demo-controllers (Deployments, ReplicaSets, ServiceAccounts, namespaces, garbage collection)")
	start := time.Now()
	p, err := c.start("demo-controllers", c.Binaries.DemoControllers, []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--healthz-address=127.0.0.1:" + strconv.Itoa(port),
	})
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, p, 2*time.Minute, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/healthz", port), nil); err != nil {
		return err
	}
	c.logf("demo-controllers ready in %s", since(start))
	return nil
}

func (c *Cluster) startKwok(ctx context.Context) error {
	port, err := localproc.FreePort()
	if err != nil {
		return err
	}
	stages := filepath.Join(c.Dir, "kwok-stages.yaml")
	if err := os.WriteFile(stages, kwokStages, 0o644); err != nil {
		return err
	}
	c.logf("starting kwok")
	start := time.Now()
	p, err := c.start("kwok", c.Binaries.Kwok, []string{
		"--config=" + stages,
		"--kubeconfig=" + c.Kubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + KwokAnnotation + "=fake",
		"--server-address=127.0.0.1:" + strconv.Itoa(port),
		// Leases would renew every node's lease every few seconds: 5,000
		// nodes would keep both cores busy. The node lifecycle
		// controller, the only reader, is off.
		"--node-lease-duration-seconds=0",
		"--cidr=10.128.0.1/12", // simulated pod IPs, never dialled
	})
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, p, time.Minute, http.DefaultClient, fmt.Sprintf("http://127.0.0.1:%d/healthz", port), nil); err != nil {
		return err
	}
	c.logf("kwok ready in %s", since(start))
	return nil
}

// StartScheduler starts one more scheduler process with the cluster's
// scheduler configuration, and waits until it is healthy (not until it
// leads).
func (c *Cluster) StartScheduler(ctx context.Context) (*localproc.Process, error) {
	if c.SchedulerConfigFile == "" {
		if c.Binaries.Scheduler == "" {
			b, err := FindBinaries(c.opts.ToolsDir, c.opts.BinDir, Scheduler)
			if err != nil {
				return nil, err
			}
			c.Binaries.Scheduler = b.Scheduler
		}
		var err error
		if c.SchedulerConfigFile, err = writeSchedulerConfig(c.opts.SchedulerConfig, c.SchedulerKubeconfig, c.Dir); err != nil {
			return nil, err
		}
	}
	port, err := localproc.FreePort()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	name := fmt.Sprintf("scheduler-%d", len(c.schedulers)+1)
	c.mu.Unlock()
	args := append([]string{
		"--config=" + c.SchedulerConfigFile,
		// Delegated authentication and authorization, as kubeadm runs
		// the scheduler: its /metrics serves the admin client.
		"--authentication-kubeconfig=" + c.SchedulerKubeconfig,
		"--authorization-kubeconfig=" + c.SchedulerKubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
	}, c.opts.SchedulerArgs...)
	c.logf("starting %s (%s)", name, c.Binaries.Scheduler)
	start := time.Now()
	p, err := c.start(name, c.Binaries.Scheduler, args)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.schedulers = append(c.schedulers, p)
	c.mu.Unlock()
	if err := waitHealthy(ctx, p, 2*time.Minute, insecureClient(), fmt.Sprintf("https://127.0.0.1:%d/healthz", port), nil); err != nil {
		return nil, err
	}
	c.logf("%s ready in %s", name, since(start))
	return p, nil
}

// Schedulers returns the scheduler processes started so far, killed ones
// included.
func (c *Cluster) Schedulers() []*localproc.Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*localproc.Process(nil), c.schedulers...)
}

// Processes returns every process started so far, in start order.
func (c *Cluster) Processes() []*localproc.Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*localproc.Process(nil), c.procs...)
}

// Fail marks the cluster failed: Stop keeps its directory, for the logs.
func (c *Cluster) Fail() {
	c.mu.Lock()
	c.failed = true
	c.mu.Unlock()
}

// Stop stops every process in the reverse order of start, each by its
// process group, and removes a temporary directory unless the cluster
// failed.
func (c *Cluster) Stop() {
	c.mu.Lock()
	procs := append([]*localproc.Process(nil), c.procs...)
	c.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		if !procs[i].Exited() {
			c.logf("stopping %s (pid %d)", procs[i].Name, procs[i].Pid())
		}
		procs[i].Stop(10 * time.Second)
	}
	if c.tempDir && !c.failed {
		_ = os.RemoveAll(c.Dir)
	}
}

// waitHealthy polls url until it answers 200 (and ok accepts the body),
// failing early when the process exits.
func waitHealthy(ctx context.Context, p *localproc.Process, timeout time.Duration, client *http.Client, url string, ok func(string) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK && (ok == nil || ok(string(body))) {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
		} else {
			last = err.Error()
		}
		select {
		case <-p.Done():
			return fmt.Errorf("%s exited before it was healthy (%v); log %s:\n%s", p.Name, p.ExitErr(), p.LogFile, p.Tail(4000))
		case <-ctx.Done():
			return fmt.Errorf("%s not healthy at %s after %s (last: %s); log %s:\n%s", p.Name, url, timeout, last, p.LogFile, p.Tail(4000))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// insecureClient reaches the self-signed serving endpoints of the
// scheduler and the controller manager on 127.0.0.1.
func insecureClient() *http.Client {
	return &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback health checks
	}
}

func since(t time.Time) time.Duration { return time.Since(t).Round(100 * time.Millisecond) }

// ErrNoLeader is returned by SchedulerLeader while no scheduler has said it
// leads.
var ErrNoLeader = errors.New("no scheduler has acquired the lease")

// SchedulerLeader returns the running scheduler process that logged that
// it acquired the leader-election lease. A scheduler that loses the lease
// exits, so at most one running process has.
func (c *Cluster) SchedulerLeader() (*localproc.Process, error) {
	var leaders []*localproc.Process
	for _, p := range c.Schedulers() {
		if p.Exited() {
			continue
		}
		if data, err := os.ReadFile(p.LogFile); err == nil && strings.Contains(strings.ToLower(string(data)), "successfully acquired lease") {
			leaders = append(leaders, p)
		}
	}
	switch len(leaders) {
	case 0:
		return nil, ErrNoLeader
	case 1:
		return leaders[0], nil
	}
	return nil, fmt.Errorf("%d running schedulers say they lead", len(leaders))
}
