"""The build backend of the trellis Python package (PEP 517, PEP 660).

It needs no package index and nothing beyond the standard library, so
that `pip install --no-index --no-build-isolation` works offline: the
package's one compiled part is libtrellis, a Go c-shared library, which
this backend builds with the `go` command (found on PATH, or at
$TRELLIS_GO), and it writes the wheel (a zip: the package, the library
beside its __init__.py, and the .dist-info's METADATA, WHEEL and RECORD)
by hand.

The Go module (github.com/trellis-nlp/trellis) is the folder holding this
tree (cmd/libtrellis/python), or the sdist's go/ folder, or
$TRELLIS_GO_MODULE. The sdist carries go.mod, go.sum and the Go files of
the module's packages libtrellis imports; the modules it requires come
from Go's module cache (or proxy), as for any Go build.
"""

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

MODULE = "github.com/trellis-nlp/trellis"
SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "trellis"
# (GOOS, GOARCH) pairs whose Go files the sdist carries.
SDIST_PLATFORMS = [("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"),
                   ("windows", "amd64")]


class BuildError(RuntimeError):
    """The build cannot proceed; the message says why and what to do."""


# -- project metadata ------------------------------------------------------


def _project():
    """pyproject.toml's [project] table (name, version, description,
    requires-python)."""
    with open(os.path.join(SOURCE, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the table's plain string keys
        return _project_strings(data.decode("utf-8"))
    return tomllib.loads(data.decode("utf-8"))["project"]


def _project_strings(text):
    out, section = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[project]":
            m = re.match(r'([\w-]+)\s*=\s*"([^"]*)"\s*(#.*)?$', line)
            if m:
                out[m.group(1)] = m.group(2)
    return out


def _dist_name(project):
    """The name as wheel and sdist file names spell it (PEP 427, PEP 625)."""
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"]]
    if project.get("description"):
        lines.append("Summary: " + project["description"])
    if project.get("requires-python"):
        lines.append("Requires-Python: " + project["requires-python"])
    return "\n".join(lines) + "\n"


# -- the Go build ----------------------------------------------------------


def _go():
    go = os.environ.get("TRELLIS_GO") or shutil.which("go")
    if not go:
        raise BuildError(
            "Go is needed to build libtrellis, the library under the trellis package, and no `go` command "
            "was found on PATH: install Go >= 1.26 (https://go.dev/dl/) and a C compiler (cgo), or set "
            "TRELLIS_GO to the go command")
    return go


def _is_module_root(folder):
    try:
        with open(os.path.join(folder, "go.mod"), encoding="utf-8") as f:
            return re.search(r"^module\s+%s\s*$" % re.escape(MODULE), f.read(), re.M) is not None
    except OSError:
        return False


def _module_root():
    """The folder of the Go module to build libtrellis from."""
    env = os.environ.get("TRELLIS_GO_MODULE")
    if env:
        if not _is_module_root(env):
            raise BuildError("TRELLIS_GO_MODULE=%s holds no go.mod of module %s" % (env, MODULE))
        return env
    candidates = [os.path.join(SOURCE, "go")]  # an sdist
    folder = SOURCE
    while os.path.dirname(folder) != folder:
        candidates.append(folder)
        folder = os.path.dirname(folder)
    for c in candidates:
        if _is_module_root(c):
            return c
    raise BuildError("the Go module %s was not found above %s (nor in its go/ folder): build from a checkout "
                     "of trellis or from its sdist, or set TRELLIS_GO_MODULE to the module's folder"
                     % (MODULE, SOURCE))


def _library_name():
    if sys.platform == "darwin":
        return "libtrellis.dylib"
    if sys.platform == "win32":
        return "libtrellis.dll"
    return "libtrellis.so"


def _run_go(args, root, env=None):
    """Run go with args in root; its output, or BuildError with go's."""
    try:
        p = subprocess.run([_go()] + args, cwd=root, env=env, capture_output=True, text=True)
    except OSError as e:
        raise BuildError("cannot run %s: %s" % (_go(), e)) from e
    if p.returncode != 0:
        raise BuildError("`go %s` in %s failed:\n%s" % (" ".join(args), root, p.stderr.strip()))
    return p.stdout


def build_library(dest):
    """Build libtrellis into the folder dest; returns its path."""
    root = _module_root()
    if _run_go(["env", "CGO_ENABLED"], root).strip() != "1":
        raise BuildError("libtrellis needs cgo, which is disabled (go env CGO_ENABLED is not 1): install a C "
                         "compiler (gcc or clang; set CC if it is not `cc`) and set CGO_ENABLED=1")
    out = os.path.join(dest, _library_name())
    # -trimpath: the library does not depend on where the tree is.
    sys.stderr.write("trellis_backend: go build -buildmode=c-shared ./cmd/libtrellis in %s\n" % root)
    _run_go(["build", "-buildmode=c-shared", "-trimpath", "-o", out, "./cmd/libtrellis"], root)
    return out


# -- wheels ----------------------------------------------------------------


def _platform_tag():
    return re.sub(r"[-.]", "_", sysconfig.get_platform())


def _zip_time():
    """Entries' timestamp: $SOURCE_DATE_EPOCH, else 1980-01-01 (zip's
    first), so that the same build writes the same bytes."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return time.gmtime(max(int(epoch), 315532800))[:6]
    return (1980, 1, 1, 0, 0, 0)


class _Wheel:
    """A wheel being written: files added with their hashes, RECORD last."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record = []
        self.when = _zip_time()

    def add(self, name, data, executable=False):
        info = zipfile.ZipInfo(name, self.when)
        info.external_attr = (0o755 if executable else 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        self.record.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def close(self, dist_info):
        name = dist_info + "/RECORD"
        self.record.append(name + ",,")
        info = zipfile.ZipInfo(name, self.when)
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n", compress_type=zipfile.ZIP_DEFLATED)
        self.zip.close()


def _dist_info(project):
    return "%s-%s.dist-info" % (_dist_name(project), project["version"])


def _dist_info_files(project):
    wheel = "Wheel-Version: 1.0\nGenerator: trellis_backend\nRoot-Is-Purelib: false\nTag: py3-none-%s\n" % (
        _platform_tag())
    return {"METADATA": _metadata(project), "WHEEL": wheel}


def _package_files():
    """(name in the wheel, path) of the package's Python files."""
    out = []
    top = os.path.join(SOURCE, PACKAGE)
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                out.append((os.path.relpath(path, SOURCE).replace(os.sep, "/"), path))
    return out


def _write_wheel(wheel_directory, project, contents):
    """Write a wheel holding contents ((name, bytes, executable) each) and
    the .dist-info; returns its file name."""
    name = "%s-%s-py3-none-%s.whl" % (_dist_name(project), project["version"], _platform_tag())
    dist_info = _dist_info(project)
    w = _Wheel(os.path.join(wheel_directory, name))
    try:
        for arcname, data, executable in contents:
            w.add(arcname, data, executable)
        for f, text in _dist_info_files(project).items():
            w.add(dist_info + "/" + f, text.encode("utf-8"))
    finally:
        w.close(dist_info)
    return name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: the wheel, libtrellis built into the package."""
    project = _project()
    tmp = tempfile.mkdtemp(prefix="trellis-build-")
    try:
        lib = build_library(tmp)
        contents = [(arc, _read(path), False) for arc, path in _package_files()]
        contents.append((PACKAGE + "/" + os.path.basename(lib), _read(lib), True))
        return _write_wheel(wheel_directory, project, contents)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel whose .pth puts this tree on sys.path; libtrellis
    is built beside the package's __init__.py in the tree (rerun the
    install, or go build, after changing the Go code)."""
    project = _project()
    tmp = tempfile.mkdtemp(prefix="trellis-build-")
    try:
        # Built aside, so that only the library (not cgo's header) lands
        # in the tree.
        lib = build_library(tmp)
        shutil.copy(lib, os.path.join(SOURCE, PACKAGE, os.path.basename(lib)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    pth = (SOURCE + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, project, [("__editable__.%s.pth" % _dist_name(project), pth, False)])


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """PEP 517: the .dist-info without building (pip asks first)."""
    project = _project()
    dist_info = _dist_info(project)
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for f, text in _dist_info_files(project).items():
        with open(os.path.join(metadata_directory, dist_info, f), "w", encoding="utf-8") as out:
            out.write(text)
    return dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_editable = get_requires_for_build_wheel
get_requires_for_build_sdist = get_requires_for_build_wheel


# -- sdists ----------------------------------------------------------------


def _go_sources(root):
    """The module's files libtrellis needs (paths relative to root): go.mod,
    go.sum and, for each of its packages libtrellis imports on any of
    SDIST_PLATFORMS, the folder's non-test Go, assembly and C files and its
    embedded files."""
    files = {"go.mod", "go.sum"}
    fmt = '{{if .Module}}{{if .Module.Main}}{{.Dir}}{{range .EmbedFiles}}\t{{.}}{{end}}\n{{end}}{{end}}'
    for goos, goarch in SDIST_PLATFORMS:
        env = dict(os.environ, GOOS=goos, GOARCH=goarch, CGO_ENABLED="1")
        for line in _run_go(["list", "-deps", "-f", fmt, "./cmd/libtrellis"], root, env).splitlines():
            folder, *embeds = line.split("\t")
            rel = os.path.relpath(folder, root)
            for f in os.listdir(folder):
                if re.search(r"\.(go|s|c|h|syso)$", f) and not f.endswith("_test.go"):
                    files.add(os.path.normpath(os.path.join(rel, f)))
            files.update(os.path.normpath(os.path.join(rel, e)) for e in embeds)
    return sorted(f.replace(os.sep, "/") for f in files)


def _tar_add(tar, name, data, when):
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), when, 0o644
    tar.addfile(info, io.BytesIO(data))


def build_sdist(sdist_directory, config_settings=None):
    """PEP 517: a source archive that builds offline with Go: the package,
    this backend, PKG-INFO, and the Go module's files under go/."""
    project = _project()
    base = "%s-%s" % (_dist_name(project), project["version"])
    root = _module_root()
    when = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        _tar_add(tar, base + "/PKG-INFO", _metadata(project).encode("utf-8"), when)
        for rel in ["pyproject.toml", "_build/trellis_backend.py"] + [arc for arc, _ in _package_files()]:
            _tar_add(tar, base + "/" + rel, _read(os.path.join(SOURCE, rel)), when)
        for rel in _go_sources(root):
            _tar_add(tar, base + "/go/" + rel, _read(os.path.join(root, rel)), when)
    return name
