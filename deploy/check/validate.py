"""Renders the Helm chart and validates the deployment files against their schemas.

Called by deploy/check/tests/rendered.rs with a JSON request on stdin; answers one JSON document on stdout:

    request:  {"chart": DIR, "release": NAME, "namespace": NS, "kube_versions": ["1.27.0", …],
               "scenarios": [{"name": …, "values_files": [PATH, …], "values": {…}}, …],
               "compose_files": [PATH, …]}
    answer:   {"tools": {…}, "lint": {"messages": […], "errors": […]},
               "scenarios": {NAME: {"error": null | TEXT, "manifests": [OBJECT, …],
                                    "k8s_errors": [TEXT, …]}},
               "compose": {"ok": BOOL, "output": TEXT}}

Tools (deploy/check/requirements.txt, installed by `just deploy-tools`): helm-python-sdk (Helm's own Go
SDK: rendering, values.schema.json, lint), kubernetes-validate (Kubernetes OpenAPI schemas, strict mode)
and check-jsonschema (its vendored compose-spec schema). Nothing here touches the network.
"""

import copy
import json
import subprocess
import sys
from importlib import metadata

import helm_python as helm
import kubernetes_validate
import yaml


def deep_merge(base, override):
    """Helm's merge of several -f files: mappings merge key by key, anything else is replaced."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = deep_merge(base[key], value) if key in base else copy.deepcopy(value)
        return merged
    return copy.deepcopy(override)


def render(request, scenario):
    values = {}
    for path in scenario.get("values_files", []):
        with open(path, encoding="utf-8") as f:
            values = deep_merge(values, yaml.safe_load(f) or {})
    values = deep_merge(values, scenario.get("values", {}))
    result = {"error": None, "manifests": [], "k8s_errors": []}
    try:
        with helm.Chart.load(request["chart"]) as chart:
            rendered = chart.render(values, name=request["release"], namespace=request["namespace"])
    except helm.HelmError as error:
        result["error"] = str(error)
        return result
    for template, text in sorted(rendered.items()):
        if not template.endswith((".yaml", ".yml")):
            continue
        for document in yaml.safe_load_all(text):
            if document is None:
                continue
            result["manifests"].append(document)
            for version in request["kube_versions"]:
                try:
                    kubernetes_validate.validate(document, version, strict=True)
                except Exception as error:  # ValidationError, SchemaNotFoundError, …
                    kind = f"{document.get('kind')}/{document.get('metadata', {}).get('name')}"
                    result["k8s_errors"].append(f"{template} {kind} (Kubernetes {version}): {error}")
    return result


def main():
    request = json.load(sys.stdin)
    answer = {
        "tools": {
            name: metadata.version(name)
            for name in ("helm-python-sdk", "kubernetes-validate", "check-jsonschema")
        },
        "scenarios": {},
    }
    answer["tools"]["helm-sdk"] = helm.helm_sdk_version()
    lint = helm.lint(request["chart"])
    answer["lint"] = {"messages": lint.get("messages", []), "errors": lint.get("errors", [])}
    for scenario in request["scenarios"]:
        answer["scenarios"][scenario["name"]] = render(request, scenario)
    compose = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         *request["compose_files"]],
        capture_output=True, text=True, check=False,
    )
    answer["compose"] = {"ok": compose.returncode == 0, "output": compose.stdout + compose.stderr}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
