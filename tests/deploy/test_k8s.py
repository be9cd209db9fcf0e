"""deploy/k8s: every manifest is valid Kubernetes as it is (kubernetes-validate ships the
schemas: no cluster needed), and the kustomize base and production overlay compose into a service
whose parts refer to each other correctly. The composition is done here as kustomize does it for
the features the files use (resources, namespace, images, labels, strategic-merge and JSON 6902
patches, configMapGenerator with its hash suffix) and compared with ``kubectl kustomize`` where
kubectl is installed. Every pod template meets the Pod Security Standard "restricted"."""
from __future__ import annotations

import copy
import hashlib
import json
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
# Redis servers of their own for the broker, the channel layer and the cache: URLs that may hold a
# password, so they belong in the Secret too; unset, each is REDIS_URL.
OPTIONAL_SECRET_KEYS = {"CELERY_BROKER_URL", "CHANNEL_LAYER_URL", "CACHE_URL"}
# The pods that run the service's image read the settings; the backup's upload runs rclone's.
STICH_IMAGE = "registry.example.org/federation/stich:1.0.0"
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


def pod_spec(doc: dict) -> dict | None:
    spec = doc.get("spec", {})
    if doc["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return spec["template"]["spec"] if "template" in spec else None


def containers(doc: dict) -> list[dict]:
    spec = pod_spec(doc)
    return spec["containers"] if spec else []


def all_containers(doc: dict) -> list[dict]:
    """Init containers and containers."""
    spec = pod_spec(doc)
    return [*spec.get("initContainers", []), *spec["containers"]] if spec else []


def generated_data(directory: Path, generator: dict) -> dict:
    data = {}
    for name in generator.get("envs", []):
        for line in (directory / name).read_text().splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                variable, value = line.split("=", 1)
                data[variable.strip()] = value
    for literal in generator.get("literals", []):
        variable, value = literal.split("=", 1)
        data[variable] = value
    return data


def name_suffix(data: dict) -> str:
    """kustomize's hash of a generated ConfigMap (api/hasher: the JSON of kind, name and data,
    its SHA-256's first ten hex digits with 0, 1, 3, a, e replaced; the name it reads is empty)."""
    encoded = json.dumps({"data": data, "kind": "ConfigMap", "name": ""}, sort_keys=True, separators=(",", ":"),
                         ensure_ascii=False)
    return hashlib.sha256(encoded.encode()).hexdigest()[:10].translate(str.maketrans("013ae", "ghkmt"))


def compose(directory: Path, top: bool = True) -> list[dict]:
    spec = kustomization(directory)
    docs: list[dict] = []
    for resource in spec.get("resources", []):
        path = directory / resource
        docs += compose(path, top=False) if path.is_dir() else load(path)
    for generator in spec.get("configMapGenerator", []):
        data = generated_data(directory, generator)
        if generator.get("behavior") == "merge":
            (existing,) = [doc for doc in docs if key(doc) == ("ConfigMap", generator["name"])]
            existing["data"].update(data)
        else:
            docs.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": generator["name"]},
                         "data": data, "generated": True})
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
            for container in all_containers(doc):
                if container["image"].split(":")[0] == image["name"]:
                    container["image"] = f"{image.get('newName', image['name'])}:{image['newTag']}"
    if top:  # the generated names get their hash, and every reference follows
        renamed = {}
        for doc in docs:
            if doc.pop("generated", False):
                name = doc["metadata"]["name"]
                renamed[name] = doc["metadata"]["name"] = f"{name}-{name_suffix(doc['data'])}"
        for doc in docs:
            for container in all_containers(doc):
                for source in container.get("envFrom", []):
                    if "configMapRef" in source:
                        source["configMapRef"]["name"] = renamed.get(source["configMapRef"]["name"],
                                                                     source["configMapRef"]["name"])
    return docs


def config_map(docs: dict, name: str) -> dict:
    """The generated ConfigMap ``name`` (its name carries the hash of its content)."""
    (found,) = [doc for (kind, full), doc in docs.items() if kind == "ConfigMap" and full.rsplit("-", 1)[0] == name]
    return found


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
    allowed = config_map(production, "stich-config")["data"]["ALLOWED_HOSTS"].split(",")
    assert rule["host"] in allowed


def option(command: list[str], name: str) -> str:
    joined = " ".join(command)
    match = re.search(rf"{name}[= ](\S+)", joined)
    assert match, f"{name} not set in {joined}"
    return match.group(1)


def test_processes_probes_and_requests(production):
    deployments = workloads(production)
    commands = {name: " ".join(containers(d)[0]["command"]) for name, d in deployments.items()}
    assert commands["stich-web"].startswith("gunicorn stich.wsgi:application")
    assert commands["stich-live"].startswith("gunicorn stich.asgi:application -k uvicorn_worker.UvicornWorker")
    assert commands["stich-worker"].startswith("celery -A stich worker")
    assert commands["stich-beat"].startswith("celery -A stich beat")
    job = production[("Job", "stich-migrate")]
    assert containers(job)[0]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    backup = {c["name"]: c for c in all_containers(production[("CronJob", "stich-backup")])}
    assert "backup_database" in backup["backup"]["command"]
    allowed = config_map(production, "stich-config")["data"]["ALLOWED_HOSTS"].split(",")
    for name in ("stich-web", "stich-live"):
        container = containers(deployments[name])[0]
        ports = {port["name"] for port in container["ports"]}
        # Traffic follows /readyz (database and migrations, never Redis); restarts follow /livez.
        for probe, path in (("startupProbe", "/readyz"), ("readinessProbe", "/readyz"), ("livenessProbe", "/livez")):
            assert container[probe]["httpGet"]["path"] == path
            assert container[probe]["httpGet"]["port"] in ports
            host = {h["name"]: h["value"] for h in container[probe]["httpGet"]["httpHeaders"]}["Host"]
            assert host in allowed
    for doc in production.values():
        for container in all_containers(doc):
            assert {"cpu", "memory"} <= container["resources"]["requests"].keys(), key(doc)
            assert container["image"] in (STICH_IMAGE, "rclone/rclone:1.68.2"), container["image"]
            assert doc["metadata"]["namespace"] == "stich"


def test_web_and_live_start_preloaded_and_stop_without_dropping_requests(production):
    """--preload: the port opens once the application is loaded. preStop keeps a stopping pod
    serving while the endpoints and the ingress forget it; then gunicorn's graceful timeout; the
    grace period covers both."""
    for name in ("stich-web", "stich-live"):
        pod = pod_spec(production[("Deployment", name)])
        (container,) = pod["containers"]
        assert "--preload" in container["command"]
        pause = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
        graceful = int(option(container["command"], "--graceful-timeout"))
        assert pause >= 5 and graceful >= 20
        assert pod["terminationGracePeriodSeconds"] >= pause + graceful + 5, name
        readiness = container["readinessProbe"]
        assert readiness["periodSeconds"] * readiness["failureThreshold"] <= pause, "out of service before preStop ends"


def test_every_pod_of_the_release_waits_for_its_migrations(production):
    """The migrate Job and the Deployments go out in one apply: each Deployment's pods run
    ``migrate --check`` until it passes before their containers start."""
    for name, deployment in workloads(production).items():
        waits = [c for c in pod_spec(deployment).get("initContainers", []) if "migrate --check" in " ".join(c["command"])]
        assert waits, f"{name} does not wait for the migrations"
        assert waits[0]["image"] == containers(deployment)[0]["image"]
        assert "until python manage.py migrate --check" in waits[0]["command"][-1]


def test_worker_and_beat_have_probes_of_their_own(production):
    worker = containers(production[("Deployment", "stich-worker")])[0]
    ping = " ".join(worker["livenessProbe"]["exec"]["command"])
    assert "celery -A stich inspect ping --destination" in ping and "celery@$HOSTNAME" in ping
    assert option(worker["command"], "--hostname") == "celery@%h"
    # A Redis outage fails the ping too: no restart before five minutes of it.
    assert worker["livenessProbe"]["periodSeconds"] * worker["livenessProbe"]["failureThreshold"] >= 300
    beat = containers(production[("Deployment", "stich-beat")])[0]
    check = " ".join(beat["livenessProbe"]["exec"]["command"])
    schedule = option(beat["command"], "--schedule")
    assert f"find {schedule.rsplit('/', 1)[0]} -name '{schedule.rsplit('/', 1)[1]}*' -mmin -15" in check


def test_every_pod_template_meets_the_restricted_pod_security_standard(production):
    """Pod Security Standards, "restricted" (kubernetes.io/docs/concepts/security/pod-security-standards):
    non-root, seccomp RuntimeDefault, no privilege escalation, every capability dropped; and here
    also a read-only root file system, with volumes where a process writes."""
    templates = [doc for doc in production.values() if pod_spec(doc) is not None]
    assert {doc["kind"] for doc in templates} == {"Deployment", "Job", "CronJob"}
    for doc in templates:
        pod = pod_spec(doc)
        context = pod["securityContext"]
        assert context["runAsNonRoot"] is True and context["runAsUser"] != 0, key(doc)
        assert context["seccompProfile"]["type"] == "RuntimeDefault", key(doc)
        assert not pod.get("hostNetwork") and not pod.get("hostPID") and not pod.get("hostIPC")
        volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
        for volume in volumes.values():  # restricted allows these kinds only (no hostPath)
            assert set(volume) - {"name"} <= {"emptyDir", "configMap", "secret", "persistentVolumeClaim",
                                               "projected", "downwardAPI", "csi", "ephemeral"}, volume
        for container in all_containers(doc):
            where = f"{key(doc)} {container['name']}"
            own = container["securityContext"]
            assert own["allowPrivilegeEscalation"] is False, where
            assert own["capabilities"]["drop"] == ["ALL"] and not own["capabilities"].get("add"), where
            assert own["readOnlyRootFilesystem"] is True, where
            assert not own.get("privileged") and own.get("runAsUser", 1) != 0 and own.get("runAsNonRoot", True), where
            assert own.get("seccompProfile", {"type": "RuntimeDefault"})["type"] == "RuntimeDefault", where
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in volumes, where
            mounted = {mount["mountPath"] for mount in container.get("volumeMounts", [])}
            if container["image"] == STICH_IMAGE and container["command"][0] != "cp":
                # Python, gunicorn and pg_dump write temporary files; Numba needs its cache writable.
                assert {"/tmp", "/var/cache/numba"} <= mounted, where
                assert {"name": "NUMBA_CACHE_DIR", "value": "/var/cache/numba"} in container["env"], where


def test_the_restricted_check_finds_a_pod_that_breaks_it(production):
    broken = copy.deepcopy(production)
    del pod_spec(broken[("Deployment", "stich-web")])["securityContext"]["seccompProfile"]
    with pytest.raises(KeyError):
        test_every_pod_template_meets_the_restricted_pod_security_standard(broken)
    broken = copy.deepcopy(production)
    pod_spec(broken[("Job", "stich-migrate")])["containers"][0]["securityContext"]["capabilities"]["drop"] = []
    with pytest.raises(AssertionError):
        test_every_pod_template_meets_the_restricted_pod_security_standard(broken)


def test_a_changed_setting_renames_the_config_map_in_every_pod_template():
    """configMapGenerator: the ConfigMap's name carries a hash of its content, and every pod
    template refers to that name, so a changed setting is a changed template: the pods roll."""
    docs = compose(PRODUCTION)
    names = {doc["metadata"]["name"] for doc in docs if doc["kind"] == "ConfigMap"}
    referred = {source["configMapRef"]["name"] for doc in docs for c in all_containers(doc)
                for source in c.get("envFrom", []) if "configMapRef" in source}
    assert referred <= names and len(referred) == 2
    config = next(name for name in names if name.startswith("stich-config-"))
    assert name_suffix({**config_map({key(d): d for d in docs}, "stich-config")["data"], "LOG_LEVEL": "DEBUG"}) != config.rsplit("-", 1)[1]


def test_backups_leave_the_cluster(production):
    """The CronJob's archive goes to a scratch volume and from there, by rclone, to a remote
    outside the cluster; no volume of the cluster keeps it."""
    assert not [doc for (kind, _), doc in production.items() if kind == "PersistentVolumeClaim"]
    cronjob = production[("CronJob", "stich-backup")]
    pod = pod_spec(cronjob)
    (backup,) = [c for c in pod["initContainers"] if "backup_database" in c["command"]]
    (upload,) = pod["containers"]
    assert upload["image"].startswith("rclone/rclone:") and "rclone copy" in upload["command"][-1]
    assert '"$BACKUP_REMOTE"' in upload["command"][-1]
    archive = {m["mountPath"]: m["name"] for m in backup["volumeMounts"]}["/backups"]
    assert {m["name"]: m["mountPath"] for m in upload["volumeMounts"]}[archive] == "/backups"
    assert {"emptyDir": {}, "name": archive} in pod["volumes"]
    remote = config_map(production, "stich-backup")["data"]
    assert remote["BACKUP_REMOTE"] and int(remote["BACKUP_REMOTE_KEEP_DAYS"]) > 0
    assert {"secretRef": {"name": "stich-backup-remote"}} in upload["envFrom"]


def test_beat_is_a_singleton_and_web_and_workers_scale(production):
    beat = production[("Deployment", "stich-beat")]
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    scaled = {doc["spec"]["scaleTargetRef"]["name"]: doc for (kind, _), doc in production.items()
              if kind == "HorizontalPodAutoscaler"}
    assert set(scaled) == {"stich-web", "stich-live", "stich-worker"}
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
    config = config_map(production, "stich-config")["data"]
    read = set(re.findall(r'env(?:\.\w+)?\("([A-Z_]+)"', (ROOT / "stich/settings.py").read_text()))
    assert set(config) <= read, set(config) - read  # no misspelt variable
    assert read - set(config) == SECRET_KEYS | OPTIONAL_SECRET_KEYS  # the rest comes from the Secret
    example = load(K8S / "secret.example.yaml")[0]
    assert set(example["stringData"]) == SECRET_KEYS
    assert ("Secret", "stich-secrets") not in production  # created by the operator, never committed
    for doc in production.values():
        for container in all_containers(doc):
            if container["image"] != STICH_IMAGE:
                continue
            sources = container["envFrom"]
            assert {"configMapRef": {"name": config_map(production, "stich-config")["metadata"]["name"]}} in sources
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
    config = config_map(production, "stich-config")["data"]
    maxima = {doc["spec"]["scaleTargetRef"]["name"]: doc["spec"]["maxReplicas"]
              for (kind, _), doc in production.items() if kind == "HorizontalPodAutoscaler"}
    total = 0
    for (kind, name), doc in production.items():
        if kind == "Deployment":
            total += maxima.get(name, doc["spec"]["replicas"]) * connections(doc, config)
        elif kind in ("Job", "CronJob"):
            total += connections(doc, config)
    assert 0 < total <= CONNECTION_LIMIT, total
