import json
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

NODE_DIR = HERE / "node"
NODE_PACKAGES = ("@recast-navigation/core", "@recast-navigation/generators", "gltf-validator")


def _missing_packages() -> list[str]:
    return [p for p in NODE_PACKAGES
            if not (NODE_DIR / "node_modules" / p / "package.json").is_file()]


class NodeClient:
    """Runs the scripts in tests/export/node and parses the JSON they print."""

    def __init__(self, node: str):
        self.node = node

    def run(self, script: str, *args, timeout: float = 120) -> object:
        proc = subprocess.run([self.node, script, *map(str, args)], cwd=NODE_DIR,
                              capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise AssertionError(f"node {script} failed ({proc.returncode}):\n{proc.stderr}")
        return json.loads(proc.stdout)

    def request(self, script: str, mode: str, request: dict, folder: pathlib.Path) -> object:
        path = folder / f"request-{mode}.json"
        path.write_text(json.dumps(request))
        return self.run(script, mode, path)


@pytest.fixture(scope="session")
def node_client() -> NodeClient:
    """The Node.js checks, installing their locked packages once if needed (else skip)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (Node.js) is not installed: the Detour/glTF client checks need it")
    if _missing_packages():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip(f"node packages {', '.join(_missing_packages())} are not installed in "
                        f"{NODE_DIR / 'node_modules'} and npm is not available")
        try:
            proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--prefix",
                                   str(NODE_DIR)], capture_output=True, text=True, timeout=300)
            detail = proc.stderr.strip().splitlines()[-3:] if proc.returncode else []
        except subprocess.TimeoutExpired:
            detail = ["timed out after 300 s"]
        if _missing_packages():
            pytest.skip(f"node packages {', '.join(_missing_packages())} are not installed and "
                        f"`npm ci --prefix {NODE_DIR}` failed: {' '.join(detail)}")
    return NodeClient(node)
