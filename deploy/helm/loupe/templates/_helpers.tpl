{{/* Chart name, truncated to the 63 characters a DNS label allows. */}}
{{- define "loupe.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full resource-name prefix: "<release>-loupe", or the release name alone if it contains the chart name. */}}
{{- define "loupe.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "name-version" for the helm.sh/chart label. */}}
{{- define "loupe.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every resource. */}}
{{- define "loupe.labels" -}}
helm.sh/chart: {{ include "loupe.chart" . }}
app.kubernetes.io/name: {{ include "loupe.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: loupe
{{- end -}}

{{/* Selector labels of one component; call with (dict "root" $ "component" "web"). */}}
{{- define "loupe.selectorLabels" -}}
app.kubernetes.io/name: {{ include "loupe.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* The Secret holding DATABASE_URL, SALT and the other secret settings. */}}
{{- define "loupe.secretName" -}}
{{- default (include "loupe.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{/*
A value as an environment-variable string: nil and "" give "" (unset: Loupe's default applies), whole
numbers print without an exponent (YAML numbers reach templates as float64), booleans as true/false.
*/}}
{{- define "loupe.str" -}}
{{- if kindIs "invalid" . -}}
{{- else if kindIs "float64" . -}}
{{- int64 . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/*
Prometheus scrape annotations of a pod serving /metrics on `port`; call with (dict "root" $ "port" .Values.web.port).
Empty when metrics.scrapeAnnotations is off or metrics.enabled is false.
*/}}
{{- define "loupe.scrapeAnnotations" -}}
{{- if and .root.Values.metrics.scrapeAnnotations (ne (include "loupe.str" .root.Values.metrics.enabled) "false") }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ include "loupe.str" .port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end -}}

{{/* Image reference of a component; call with (dict "root" $ "image" .Values.web.image). */}}
{{- define "loupe.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{/*
Environment entries of the secret settings, each read from the Secret by reference. DATABASE_URL and SALT
are required (optional: false); a missing optional key leaves its variable unset. A key set to "" in
values is not referenced at all.
*/}}
{{- define "loupe.secretEnv" -}}
{{- $secret := include "loupe.secretName" . -}}
{{- $keys := .Values.secrets.keys -}}
{{- $entries := list
  (list "DATABASE_URL" $keys.databaseUrl false)
  (list "CLICKHOUSE_PASSWORD" $keys.clickhousePassword true)
  (list "REDIS_CONNECTION_STRING" $keys.redisConnectionString true)
  (list "REDIS_AUTH" $keys.redisAuth true)
  (list "LANGFUSE_S3_EVENT_UPLOAD_SECRET_ACCESS_KEY" $keys.s3SecretAccessKey true)
  (list "SALT" $keys.salt false)
  (list "ADMIN_API_KEY" $keys.adminApiKey true)
  (list "ENCRYPTION_KEY" $keys.encryptionKey true)
  (list "LANGFUSE_INIT_PROJECT_SECRET_KEY" $keys.initProjectSecretKey true)
  (list "LANGFUSE_INIT_USER_PASSWORD" $keys.initUserPassword true)
-}}
{{- range $entries }}
{{- if index . 1 }}
- name: {{ index . 0 }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ index . 1 | quote }}
      optional: {{ index . 2 }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Volumes shared by both deployments: /tmp, and the shared payload directory when configured. */}}
{{- define "loupe.volumes" -}}
- name: tmp
  emptyDir: {}
{{- if .Values.eventUploadLocalDir.path }}
- name: event-upload
  persistentVolumeClaim:
    claimName: {{ required "eventUploadLocalDir.existingClaim is required with eventUploadLocalDir.path: a ReadWriteMany claim every web and worker pod mounts" .Values.eventUploadLocalDir.existingClaim }}
{{- end }}
{{- end -}}

{{- define "loupe.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.eventUploadLocalDir.path }}
- name: event-upload
  mountPath: {{ .Values.eventUploadLocalDir.path }}
{{- end }}
{{- end -}}
