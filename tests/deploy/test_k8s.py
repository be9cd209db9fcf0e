"""deploy/k8s: every manifest is valid Kubernetes as it is (kubernetes-validate ships the
schemas: no cluster needed), and the kustomize base and production overlay compose into a service
whose parts refer to each other correctly. The composition is done here as kustomize does it for
the features the files use (resources, namespace, images, labels, strategic-merge and JSON 6902
patches) and compared with ``kubectl kustomize`` where kubectl is installed."""
from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy/k8s"
BASE = K8S / "base"
PRODUCTION = K8S / "overlays/production"
VERSION = "1.32.0"
CLUSTER_SCOPED = {"Namespace"}
SECRET_KEYS = {"SECRET_KEY", "DATABASE_URL", "REDIS_URL"}
# PostgreSQL's default max_connections (100) less superuser_reserved_connections (3).
CONNECTION_LIMIT = 97


def load(path: Path) -> list:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def kustomization(directory: Path) -> dict:
    return load(directory / "kustomization.yaml")[0]


def key(doc: dict) -> tuple[str, str]:
    return doc["kind"], doc["metadata"]["name"]


def merge(target: dict, patch: dict) -> None:
    """Strategic merge for maps; the patches here change no list (checked)."""
    for name, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(name), dict):
            merge(target[name], value)
        else:
            assert not isinstance(value, list), f"list in a strategic-merge patch: {name}"
            target[name] = copy.deepcopy(value)


def json_patch(doc: dict, operations: list) -> None:
    for operation in operations:
        assert operation["op"] in ("replace", "add"), operation
        *parents, last = [part for part in operation["path"].split("/")[1:]]
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            index = int(last)
            assert operation["op"] == "add" or index < len(node), operation
            node[index] = operation["value"]
        else:
            assert operation["op"] == "add" or last in node, f"{operation['path']} does not exist"
            node[last] = operation["value"]


def containers(doc: dict) -> list[dict]:
    spec = doc.get("spec", {})
    if doc["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    if "template" in spec:
        return spec["template"]["spec"]["containers"]
    return []


def compose(directory: Path) -> list[dict]:
    spec = kustomization(directory)
    docs: list[dict] = []
    for resource in spec.get("resources", []):
        path = directory / resource
        docs += compose(path) if path.is_dir() else load(path)
    by_key = {key(doc): doc for doc in docs}
    assert len(by_key) == len(docs), "two resources of the same kind and name"
    for patch in spec.get("patches", []):
        content = load(directory / patch["path"])
        if "target" in patch:
            target = patch["target"]
            json_patch(by_key[(target["kind"], target["name"])], content[0])
        else:
            for partial in content:
                merge(by_key[key(partial)], partial)
    for group in spec.get("labels", []):
        for doc in docs:
            doc["metadata"].setdefault("labels", {}).update(group["pairs"])
    if "namespace" in spec:
        for doc in docs:
            if doc["kind"] not in CLUSTER_SCOPED:
                doc["metadata"]["namespace"] = spec["namespace"]
    for image in spec.get("images", []):
        for doc in docs:
            for container in containers(doc):
                if container["image"].split(":")[0] == image["name"]:
                    container["image"] = f"{image.get('newName', image['name'])}:{image['newTag']}"
    return docs


@pytest.fixture(scope="module")
def production() -> dict:
    return {key(doc): doc for doc in compose(PRODUCTION)}


def manifest_files() -> list[Path]:
    """Every complete manifest: the base's resources and the overlay's own, the secret example."""
    files = [BASE / name for name in kustomization(BASE)["resources"]]
    files += [PRODUCTION / name for name in kustomization(PRODUCTION)["resources"] if (PRODUCTION / name).is_file()]
    return files + [K8S / "secret.example.yaml"]


@pytest.mark.parametrize("path", manifest_files(), ids=lambda path: str(path.relative_to(K8S)))
def test_every_manifest_is_valid_kubernetes(path):
    for doc in load(path):
        kubernetes_validate.validate(doc, VERSION, strict=True)


def test_the_composed_overlays_are_valid_kubernetes(production):
    for directory in (BASE, PRODUCTION):
        for doc in compose(directory):
            kubernetes_validate.validate(doc, VERSION, strict=True)


def test_the_validator_rejects_a_broken_manifest():
    deployment = load(BASE / "web.yaml")[0]
    deployment["spec"]["replicas"] = "three"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSION, strict=True)
    deployment = load(BASE / "web.yaml")[0]
    deployment["spec"]["template"]["spec"]["containers"][0]["prots"] = []
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, VERSION, strict=True)


def test_resources_and_patch_targets_exist():
    for directory in (BASE, PRODUCTION):
        for resource in kustomization(directory)["resources"]:
            assert (directory / resource).exists(), f"{directory}: {resource}"
    base = {key(doc) for doc in compose(BASE)}
    for patch in kustomization(PRODUCTION)["patches"]:
        assert (PRODUCTION / patch["path"]).is_file(), patch
        targets = ([(patch["target"]["kind"], patch["target"]["name"])] if "target" in patch
                   else [key(doc) for doc in load(PRODUCTION / patch["path"])])
        for target in targets:
            assert target in base, f"{patch['path']} patches {target}, which the base does not have"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_composition_equals_kubectl_kustomize(production):
    for directory in (BASE, PRODUCTION):
        result = subprocess.run(["kubectl", "kustomize", str(directory)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        theirs = {key(doc): doc for doc in yaml.safe_load_all(result.stdout) if doc}
        ours = {key(doc): doc for doc in compose(directory)}
        assert theirs == ours


def workloads(docs: dict) -> dict:
    return {name: doc for (kind, name), doc in docs.items() if kind == "Deployment"}


def test_services_select_pods_and_ports_that_exist(production):
    deployments = workloads(production)
    services = {name: doc for (kind, name), doc in production.items() if kind == "Service"}
    assert set(services) == {"stich-web", "stich-live"}
    for name, service in services.items():
        selected = [d for d in deployments.values()
                    if service["spec"]["selector"].items() <= d["spec"]["template"]["metadata"]["labels"].items()]
        assert [d["metadata"]["name"] for d in selected] == [name]
        ports = {port["name"] for c in containers(selected[0]) for port in c.get("ports", [])}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports
    for deployment in deployments.values():
        assert deployment["spec"]["selector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items()


def test_the_ingress_routes_websockets_to_live_and_the_rest_to_web(production):
    ingress = production[("Ingress", "stich")]
    (rule,) = ingress["spec"]["rules"]
    assert rule["host"] == "turnier.example.org" == ingress["spec"]["tls"][0]["hosts"][0]
    routes = {path["path"]: path["backend"]["service"] for path in rule["http"]["paths"]}
    assert routes["/ws/"]["name"] == "stich-live" and routes["/"]["name"] == "stich-web"
    for backend in routes.values():
        service = production[("Service", backend["name"])]
        assert backend["port"]["name"] in {port["name"] for port in service["spec"]["ports"]}
    allowed = production[("ConfigMap", "stich-config")]["data"]["ALLOWED_HOSTS"].split(",")
    assert rule["host"] in allowed


def test_processes_probes_and_requests(production):
    deployments = workloads(production)
    commands = {name: " ".join(containers(d)[0]["command"]) for name, d in deployments.items()}
    assert commands["stich-web"].startswith("gunicorn stich.wsgi:application")
    assert commands["stich-live"].startswith("gunicorn stich.asgi:application -k uvicorn_worker.UvicornWorker")
    assert commands["stich-worker"].startswith("celery -A stich worker")
    assert commands["stich-beat"].startswith("celery -A stich beat")
    job = production[("Job", "stich-migrate")]
    assert containers(job)[0]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert "backup_database" in containers(production[("CronJob", "stich-backup")])[0]["command"]
    for name in ("stich-web", "stich-live"):
        container = containers(deployments[name])[0]
        ports = {port["name"] for port in container["ports"]}
        for probe in ("startupProbe", "readinessProbe"):
            assert container[probe]["httpGet"]["path"] == "/healthz"
            assert container[probe]["httpGet"]["port"] in ports
            host = {h["name"]: h["value"] for h in container[probe]["httpGet"]["httpHeaders"]}["Host"]
            assert host in production[("ConfigMap", "stich-config")]["data"]["ALLOWED_HOSTS"].split(",")
        assert container["livenessProbe"]["tcpSocket"]["port"] in ports
    for doc in production.values():
        for container in containers(doc):
            assert {"cpu", "memory"} <= container["resources"]["requests"].keys(), key(doc)
            assert container["image"] == "registry.example.org/federation/stich:1.0.0"
            assert doc["metadata"]["namespace"] == "stich"


def test_beat_is_a_singleton_and_web_and_workers_scale(production):
    beat = production[("Deployment", "stich-beat")]
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    scaled = {doc["spec"]["scaleTargetRef"]["name"]: doc for (kind, _), doc in production.items()
              if kind == "HorizontalPodAutoscaler"}
    assert set(scaled) == {"stich-web", "stich-worker"}
    for name, hpa in scaled.items():
        target = production[("Deployment", name)]
        assert hpa["spec"]["scaleTargetRef"]["kind"] == "Deployment"
        assert hpa["spec"]["minReplicas"] <= target["spec"]["replicas"] <= hpa["spec"]["maxReplicas"]
    budgets = [doc for (kind, _), doc in production.items() if kind == "PodDisruptionBudget"]
    protected = set()
    for budget in budgets:
        for name, deployment in workloads(production).items():
            if budget["spec"]["selector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items():
                protected.add(name)
                assert budget["spec"]["minAvailable"] < deployment["spec"]["replicas"]
    assert protected == {"stich-web", "stich-live", "stich-worker"}


def test_settings_come_from_the_config_map_and_the_secret_and_no_secret_is_committed(production):
    config = production[("ConfigMap", "stich-config")]["data"]
    read = set(re.findall(r'env(?:\.\w+)?\("([A-Z_]+)"', (ROOT / "stich/settings.py").read_text()))
    assert set(config) <= read, set(config) - read  # no misspelt variable
    assert read - set(config) == SECRET_KEYS  # the rest comes from the Secret
    example = load(K8S / "secret.example.yaml")[0]
    assert set(example["stringData"]) == SECRET_KEYS
    assert ("Secret", "stich-secrets") not in production  # created by the operator, never committed
    for doc in production.values():
        for container in containers(doc):
            sources = container["envFrom"]
            assert {"configMapRef": {"name": "stich-config"}} in sources
            assert {"secretRef": {"name": example["metadata"]["name"]}} in sources
            assert not {variable["name"] for variable in container.get("env", [])} & SECRET_KEYS


def connections(doc: dict, config: dict) -> int:
    """The most PostgreSQL connections one pod of ``doc`` holds (README.md, Connections)."""
    command = containers(doc)[0]["command"]

    def option(name: str) -> int:
        joined = " ".join(command)
        match = re.search(rf"{name}[= ](\d+)", joined)
        assert match, f"{name} not set in {joined}"
        return int(match.group(1))

    if command[:2] == ["gunicorn", "stich.wsgi:application"]:
        return option("--workers")
    if command[:2] == ["gunicorn", "stich.asgi:application"]:
        return option("--workers") * int(config["DB_POOL_SIZE"])
    if command[:4] == ["celery", "-A", "stich", "worker"]:
        return option("--concurrency")
    if command[:4] == ["celery", "-A", "stich", "beat"]:
        return 0
    return 1  # a management command


def test_connections_at_the_autoscalers_maxima_fit_postgresql(production):
    config = production[("ConfigMap", "stich-config")]["data"]
    maxima = {doc["spec"]["scaleTargetRef"]["name"]: doc["spec"]["maxReplicas"]
              for (kind, _), doc in production.items() if kind == "HorizontalPodAutoscaler"}
    total = 0
    for (kind, name), doc in production.items():
        if kind == "Deployment":
            total += maxima.get(name, doc["spec"]["replicas"]) * connections(doc, config)
        elif kind in ("Job", "CronJob"):
            total += connections(doc, config)
    assert 0 < total <= CONNECTION_LIMIT, total
