{{- define "seqd.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "seqd.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "seqd.labels" -}}
{{ include "seqd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* seqd's command line: listeners, store or cluster, TLS and auth. */}}
{{- define "seqd.args" -}}
- -listen=0.0.0.0:{{ .Values.ports.postgres }}
- -http=0.0.0.0:{{ .Values.ports.http }}
{{- if .Values.mysql.enabled }}
- -mysql-listen=0.0.0.0:{{ .Values.ports.mysql }}
{{- end }}
{{- if .Values.api.enabled }}
- -api-listen=0.0.0.0:{{ .Values.ports.api }}
{{- end }}
{{- if .Values.grpc.enabled }}
- -grpc-listen=0.0.0.0:{{ .Values.ports.grpc }}
{{- end }}
{{- if and (not .Values.tls.enabled) (or .Values.api.enabled .Values.grpc.enabled) }}
- -api-insecure
{{- end }}
{{- if .Values.cluster.enabled }}
{{- if not .Values.cluster.etcd.endpoints }}
{{- fail "cluster.enabled needs cluster.etcd.endpoints" }}
{{- end }}
- -etcd={{ join "," .Values.cluster.etcd.endpoints }}
- -etcd-prefix={{ .Values.cluster.etcd.prefix }}
- -lease-ttl={{ .Values.cluster.etcd.leaseTTL }}
- -name=$(POD_NAME).{{ include "seqd.fullname" . }}-headless:{{ .Values.ports.postgres }}
{{- if .Values.cluster.etcd.tls.enabled }}
- -etcd-ca=/etc/seqd/etcd/ca.crt
- -etcd-cert=/etc/seqd/etcd/tls.crt
- -etcd-key=/etc/seqd/etcd/tls.key
{{- end }}
{{- else }}
{{- if ne (int .Values.replicas) 1 }}
{{- fail "single-node mode runs one replica: set cluster.enabled for more" }}
{{- end }}
- -data=/var/lib/seqd
{{- end }}
- -auth={{ .Values.auth.method }}
- -superuser={{ .Values.auth.superuser }}
{{- if eq .Values.auth.method "scram-sha-256" }}
- -password-file=/etc/seqd/password/{{ .Values.auth.passwordSecret.key }}
{{- end }}
{{- if .Values.tls.enabled }}
- -tls-cert=/etc/seqd/tls/tls.crt
- -tls-key=/etc/seqd/tls/tls.key
{{- if .Values.tls.clientCA }}
- -tls-ca=/etc/seqd/tls/ca.crt
{{- end }}
{{- if .Values.tls.required }}
- -tls-required
{{- end }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}
