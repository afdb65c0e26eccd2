"""A PEP 517 build backend for the semcat client, standard library only.

`pip install clients/python` must work with no package index at hand (semcat
machines reach none for Python), so the client brings its own backend instead
of requiring setuptools: it writes a pure-Python wheel (PEP 427), an sdist,
and an editable wheel (PEP 660) from the ``semcat`` package and the
``[project]`` table of pyproject.toml.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "semcat"


def _project() -> Dict[str, str]:
    """The string keys of pyproject.toml's [project] table (tomllib is not in
    Python 3.9, and this table has only simple values)."""
    out: Dict[str, str] = {}
    section = None
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line
                continue
            m = re.match(r'^([A-Za-z0-9_-]+)\s*=\s*"([^"]*)"\s*$', line)
            if section == "[project]" and m:
                out[m.group(1)] = m.group(2)
    for key in ("name", "version"):
        if key not in out:
            raise RuntimeError("pyproject.toml: [project] has no %s" % key)
    return out


def _dist_name(project: Dict[str, str]) -> str:
    return re.sub(r"[-_.]+", "_", project["name"]).lower() + "-" + project["version"]


def _metadata(project: Dict[str, str]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + project["name"],
        "Version: " + project["version"],
    ]
    if "description" in project:
        lines.append("Summary: " + project["description"])
    if "requires-python" in project:
        lines.append("Requires-Python: " + project["requires-python"])
    readme = os.path.join(ROOT, project.get("readme", "README.md"))
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _package_files() -> List[Tuple[str, str]]:
    """(archive path, file path) of every module of the package."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, PACKAGE)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py") or name == "py.typed":
                path = os.path.join(dirpath, name)
                out.append((os.path.relpath(path, ROOT).replace(os.sep, "/"), path))
    return out


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def _write_wheel(wheel_directory: str, contents: List[Tuple[str, bytes]]) -> str:
    project = _project()
    dist = _dist_name(project)
    info = dist + ".dist-info"
    contents = contents + [
        (info + "/METADATA", _metadata(project).encode("utf-8")),
        (info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: semcat_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (info + "/top_level.txt", (PACKAGE + "\n").encode("ascii")),
    ]
    record = "".join("%s,%s,%d\n" % (name, _digest(data), len(data)) for name, data in contents)
    record += info + "/RECORD,,\n"
    contents.append((info + "/RECORD", record.encode("utf-8")))
    filename = dist + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in contents:
            zi = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
    return filename


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


# ---- PEP 517 hooks -----------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def build_wheel(
    wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None
) -> str:
    return _write_wheel(wheel_directory, [(name, _read(path)) for name, path in _package_files()])


def build_editable(
    wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None
) -> str:
    # A .pth file puts this directory on sys.path: edits show at once.
    return _write_wheel(wheel_directory, [("_semcat_editable.pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    project = _project()
    dist = _dist_name(project)
    files = [("pyproject.toml", os.path.join(ROOT, "pyproject.toml"))]
    for name in ("README.md",):
        if os.path.exists(os.path.join(ROOT, name)):
            files.append((name, os.path.join(ROOT, name)))
    files.append(("build_backend/semcat_build.py", os.path.abspath(__file__)))
    files += _package_files()
    filename = dist + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tf:

        def add(name: str, data: bytes) -> None:
            ti = tarfile.TarInfo(dist + "/" + name)
            ti.size = len(data)
            ti.mode = 0o644
            ti.mtime = 1577836800
            tf.addfile(ti, io.BytesIO(data))

        add("PKG-INFO", _metadata(project).encode("utf-8"))
        for name, path in files:
            add(name, _read(path))
    return filename
