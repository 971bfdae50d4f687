// Command kube is the cluster tier's one multi-call binary: its first argument
// names the component to run (as k3s does), so the packages kube-apiserver,
// kube-controller-manager, kube-scheduler, kubelet, kubectl and etcd share are
// compiled once and linked once, which matters on a 2-core machine.
//
//	kube kube-apiserver --etcd-servers=... (the rest as the component takes it)
//
// Each component's own main, as k8s.io/kubernetes/cmd/<name> and etcd's
// server/main.go have it, with os.Args shifted so the component sees its own
// name as argv[0].
package main

import (
	"context"
	"fmt"
	"os"
	_ "time/tzdata" // CronJob time zones, as cmd/kube-apiserver has it

	"go.etcd.io/etcd/server/v3/etcdmain"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectl "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

const usage = "usage: kube etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubelet|kubectl [flags]"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	os.Args = os.Args[1:]
	switch os.Args[0] {
	case "etcd":
		etcdmain.Main(os.Args)
	case "kube-apiserver":
		os.Exit(cli.Run(apiserver.NewAPIServerCommand()))
	case "kube-controller-manager":
		os.Exit(cli.Run(controllermanager.NewControllerManagerCommand()))
	case "kube-scheduler":
		os.Exit(cli.Run(scheduler.NewSchedulerCommand()))
	case "kubelet":
		os.Exit(cli.Run(kubelet.NewKubeletCommand(context.Background())))
	case "kubectl":
		logs.GlogSetter(kubectl.GetLogVerbosity(os.Args)) // nolint:errcheck
		if err := cli.RunNoErrOutput(kubectl.NewDefaultKubectlCommand()); err != nil {
			kubectlutil.CheckErr(err)
		}
	default:
		fmt.Fprintf(os.Stderr, "kube: unknown component %q\n%s\n", os.Args[0], usage)
		os.Exit(2)
	}
}
