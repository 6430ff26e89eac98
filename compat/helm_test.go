package compat

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const chartDir = "../deploy/helm/seqd"

// manifest is what TestHelmChart reads of a rendered object.
type manifest struct {
	Kind     string
	Metadata struct{ Name string }
	Spec     struct {
		Replicas       int
		MaxUnavailable any
		Selector       struct{ MatchLabels map[string]string }
		Ports          []struct {
			Name       string
			Port       int
			TargetPort any
		}
		Template struct {
			Metadata struct{ Labels map[string]string }
			Spec     struct{ Containers []container }
		}
		VolumeClaimTemplates []struct {
			Metadata struct{ Name string }
			Spec     struct {
				Resources struct{ Requests map[string]string }
			}
		}
	}
}

type container struct {
	Args  []string
	Ports []struct {
		Name          string
		ContainerPort int
	}
	LivenessProbe, ReadinessProbe struct {
		HTTPGet struct {
			Path string
			Port string
		} `json:"httpGet"`
	}
	VolumeMounts []struct{ Name, MountPath string }
}

// helmTemplate renders the chart with a values file and parses what it
// rendered by kind.
func helmTemplate(t *testing.T, helm string, args ...string) map[string][]manifest {
	t.Helper()
	out, err := exec.Command(helm, append([]string{"template", "t", chartDir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, err, out)
	}
	byKind := map[string][]manifest{}
	for _, doc := range strings.Split(string(out), "\n---\n") {
		var m manifest
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("helm template %v: %v\n%s", args, err, doc)
		}
		if m.Kind != "" {
			byKind[m.Kind] = append(byKind[m.Kind], m)
		}
	}
	return byKind
}

// TestHelmChart: helm lints the chart and renders it with each values
// file; the StatefulSet's probes ask the -http listener for /healthz and
// /readyz, one node keeps its store on a persistent volume, a cluster's
// nodes are given etcd and a name instead, and a PodDisruptionBudget and
// the Service cover the pods. No Kubernetes cluster runs here.
func TestHelmChart(t *testing.T) {
	helm := need(t, "SEQD_TEST_HELM")
	files, _ := filepath.Glob(filepath.Join(chartDir, "values*.yaml"))
	if len(files) < 2 {
		t.Fatalf("values files %v, want values.yaml and values-cluster.yaml", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if out, err := exec.Command(helm, "lint", "--strict", chartDir, "-f", f).CombinedOutput(); err != nil {
				t.Fatalf("helm lint: %v\n%s", err, out)
			}
			objs := helmTemplate(t, helm, "-f", f)
			if len(objs["StatefulSet"]) != 1 || len(objs["PodDisruptionBudget"]) != 1 || len(objs["Service"]) != 2 {
				t.Fatalf("rendered %d StatefulSets, %d PodDisruptionBudgets, %d Services; want 1, 1, 2",
					len(objs["StatefulSet"]), len(objs["PodDisruptionBudget"]), len(objs["Service"]))
			}
			checkStatefulSet(t, objs["StatefulSet"][0], filepath.Base(f) == "values-cluster.yaml")
			pods := objs["StatefulSet"][0].Spec.Template.Metadata.Labels
			for _, m := range append(objs["PodDisruptionBudget"], objs["StatefulSet"]...) {
				for k, v := range m.Spec.Selector.MatchLabels {
					if pods[k] != v {
						t.Errorf("%s %s selects %s=%s, which the pods do not carry", m.Kind, m.Metadata.Name, k, v)
					}
				}
			}
			ports := map[string]bool{}
			for _, p := range objs["Service"][0].Spec.Ports {
				ports[p.Name] = true
			}
			for _, want := range []string{"postgres", "api", "grpc", "metrics"} {
				if !ports[want] {
					t.Errorf("the Service has no %s port: %v", want, ports)
				}
			}
		})
	}
	// MySQL's port, when asked for, is served and listened on.
	objs := helmTemplate(t, helm, "--set", "mysql.enabled=true")
	if c := objs["StatefulSet"][0].Spec.Template.Spec.Containers[0]; !slices.Contains(c.Args, "-mysql-listen=0.0.0.0:3306") {
		t.Errorf("mysql.enabled: args %v", c.Args)
	}
	// One node's store opens in one process only: more replicas need
	// cluster mode.
	if out, err := exec.Command(helm, "template", "t", chartDir, "--set", "replicas=2").CombinedOutput(); err == nil || !strings.Contains(string(out), "single-node mode runs one replica") {
		t.Errorf("replicas=2 without cluster mode rendered: %v\n%s", err, out)
	}
}

// checkStatefulSet checks the seqd container's probes, arguments and
// volumes in one mode.
func checkStatefulSet(t *testing.T, ss manifest, cluster bool) {
	t.Helper()
	cs := ss.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers", len(cs))
	}
	c := cs[0]
	httpPort := 0
	for _, p := range c.Ports {
		if p.Name == "http" {
			httpPort = p.ContainerPort
		}
	}
	if httpPort == 0 || !slices.Contains(c.Args, "-http=0.0.0.0:"+itoa(httpPort)) {
		t.Errorf("the http port %d is not -http's: %v", httpPort, c.Args)
	}
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.LivenessProbe.HTTPGet.Port != "http" ||
		c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.ReadinessProbe.HTTPGet.Port != "http" {
		t.Errorf("probes %+v, %+v; want /healthz and /readyz on http", c.LivenessProbe, c.ReadinessProbe)
	}
	has := func(prefix string) bool {
		return slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, prefix) })
	}
	mounted := slices.ContainsFunc(c.VolumeMounts, func(v struct{ Name, MountPath string }) bool {
		return v.Name == "data" && v.MountPath == "/var/lib/seqd"
	})
	if !cluster {
		pvc := ss.Spec.VolumeClaimTemplates
		if ss.Spec.Replicas != 1 || len(pvc) != 1 || pvc[0].Metadata.Name != "data" || pvc[0].Spec.Resources.Requests["storage"] == "" ||
			!mounted || !slices.Contains(c.Args, "-data=/var/lib/seqd") || has("-etcd") {
			t.Errorf("one node: replicas %d, claims %+v, mounted %v, args %v", ss.Spec.Replicas, pvc, mounted, c.Args)
		}
		return
	}
	for _, want := range []string{"-etcd=https://", "-etcd-prefix=", "-lease-ttl=", "-name=$(POD_NAME).", "-etcd-ca=", "-etcd-cert=", "-etcd-key=", "-tls-cert=", "-tls-key="} {
		if !has(want) {
			t.Errorf("cluster mode: no %s in %v", want, c.Args)
		}
	}
	if ss.Spec.Replicas != 3 || len(ss.Spec.VolumeClaimTemplates) != 0 || mounted || has("-data") {
		t.Errorf("cluster mode: replicas %d, claims %d, mounted %v, args %v", ss.Spec.Replicas, len(ss.Spec.VolumeClaimTemplates), mounted, c.Args)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
