"""Tests of the in-tree build backend (_build/trellis_backend.py): each
hook runs in a fresh Python with the source folder as its working
directory, as pip runs it. The wheel holds the package with libtrellis
beside its __init__.py and a RECORD whose hashes hold; the sdist builds
the same wheel, byte for byte, away from the checkout; the editable
install builds the library into the tree; and a missing go, cgo or Go
module is a clear error."""

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
ROOT = os.path.abspath(os.path.join(PYDIR, "..", "..", ".."))
PROG = ("import trellis; crf = trellis.CRF(c2=0.1).fit([[['a'], ['b']], [['b'], ['a']]], [['A', 'B'], ['B', 'A']]); "
        "print(trellis.library_path()); print(crf.predict([[['b'], ['a']]]))")


def hook(src, name, *args, env=None):
    """Run the backend's hook name(*args) in a fresh Python in folder src;
    the CompletedProcess, the hook's result as JSON on its last line."""
    code = ("import json, sys; sys.path.insert(0, '_build'); import trellis_backend; "
            "print(json.dumps(getattr(trellis_backend, sys.argv[1])(*sys.argv[2:])))")
    return subprocess.run([sys.executable, "-c", code, name] + list(args), cwd=src, env=env,
                          capture_output=True, text=True)


def result(p):
    if p.returncode != 0:
        raise AssertionError("hook failed:\n" + p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


def project():
    sys.path.insert(0, os.path.join(PYDIR, "_build"))
    try:
        import trellis_backend
        return trellis_backend._project()
    finally:
        sys.path.pop(0)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TRELLIS_LIB", "TRELLIS_GO_MODULE")}
    env.update(PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def run_installed(path):
    """PROG run with path (an unpacked wheel, a source folder) as the
    only place trellis can come from."""
    with tempfile.TemporaryDirectory() as cwd:
        p = subprocess.run([sys.executable, "-c", PROG], cwd=cwd, env=clean_env(PYTHONPATH=path),
                           capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return p.stdout.splitlines()


@unittest.skipIf(shutil.which("go") is None and not os.environ.get("TRELLIS_GO"), "the backend needs go")
class WheelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trellis-wheel-test-")
        cls.name = result(hook(PYDIR, "build_wheel", cls.tmp, env=clean_env()))
        cls.path = os.path.join(cls.tmp, cls.name)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_contents(self):
        proj = project()
        dist = "trellis_nlp-%s" % proj["version"]
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        self.assertEqual(self.name, "%s-py3-none-%s.whl" % (dist, platform))
        with zipfile.ZipFile(self.path) as z:
            names = z.namelist()
            lib = [n for n in names if n.startswith("trellis/libtrellis.")]
            self.assertEqual(len(lib), 1, names)
            self.assertEqual(z.getinfo(lib[0]).external_attr >> 16 & 0o111, 0o111)
            self.assertIn("trellis/__init__.py", names)
            self.assertIn("trellis/metrics.py", names)
            self.assertFalse([n for n in names if "test" in n or n.endswith((".h", ".pyc"))], names)
            meta = z.read(dist + ".dist-info/METADATA").decode()
            self.assertIn("Name: %s\n" % proj["name"], meta)
            self.assertIn("Version: %s\n" % proj["version"], meta)
            self.assertIn("Tag: py3-none-%s\n" % platform, z.read(dist + ".dist-info/WHEEL").decode())
            self.assertIn("Root-Is-Purelib: false\n", z.read(dist + ".dist-info/WHEEL").decode())
            record = z.read(dist + ".dist-info/RECORD").decode().splitlines()
            self.assertEqual(sorted(line.split(",")[0] for line in record), sorted(names))
            for line in record:
                name, digest, size = line.split(",")
                if name.endswith("RECORD"):
                    self.assertEqual((digest, size), ("", ""))
                    continue
                data = z.read(name)
                want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual((digest, int(size)), ("sha256=" + want, len(data)), name)

    def test_unpacked_wheel_works(self):
        """The wheel alone is the package: no TRELLIS_LIB, the library
        found beside __init__.py."""
        with tempfile.TemporaryDirectory() as d:
            with zipfile.ZipFile(self.path) as z:
                z.extractall(d)
            lib, labels = run_installed(d)
            self.assertEqual(os.path.dirname(lib), os.path.join(d, "trellis"))
            self.assertEqual(labels, "[['B', 'A']]")

    def test_metadata_hook(self):
        """prepare_metadata_for_build_wheel (which pip calls first) writes
        the wheel's METADATA and WHEEL."""
        with tempfile.TemporaryDirectory() as d:
            dist_info = result(hook(PYDIR, "prepare_metadata_for_build_wheel", d, env=clean_env()))
            with zipfile.ZipFile(self.path) as z:
                for f in ("METADATA", "WHEEL"):
                    with open(os.path.join(d, dist_info, f), "rb") as got:
                        self.assertEqual(got.read(), z.read(dist_info + "/" + f), f)

    def test_sdist_builds_the_same_wheel(self):
        """The sdist holds the package, the backend and the Go module's
        files libtrellis needs (no tests), and the wheel built from it,
        away from the checkout, is the checkout's, byte for byte."""
        with tempfile.TemporaryDirectory() as d:
            sdist = result(hook(PYDIR, "build_sdist", d, env=clean_env()))
            with tarfile.open(os.path.join(d, sdist)) as tar:
                names = tar.getnames()
                tar.extractall(d)
            base = sdist[:-len(".tar.gz")]
            for want in ("PKG-INFO", "pyproject.toml", "_build/trellis_backend.py", "trellis/__init__.py",
                         "go/go.mod", "go/go.sum", "go/cmd/libtrellis/exports.go", "go/cmd/libtrellis/api.go",
                         "go/framework/trellis/model.go"):
                self.assertIn(base + "/" + want, names)
            self.assertFalse([n for n in names if n.endswith("_test.go") or "/tests/" in n], names)
            out = os.path.join(d, "out")
            os.mkdir(out)
            name = result(hook(os.path.join(d, base), "build_wheel", out, env=clean_env()))
            with open(self.path, "rb") as a, open(os.path.join(out, name), "rb") as b:
                self.assertTrue(a.read() == b.read(), "the sdist's wheel differs from the checkout's")

    def test_editable(self):
        """build_editable builds the library into the package's folder
        and writes a wheel whose .pth puts the source folder on sys.path."""
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            os.mkdir(src)
            shutil.copy(os.path.join(PYDIR, "pyproject.toml"), src)
            for sub in ("_build", "trellis"):
                shutil.copytree(os.path.join(PYDIR, sub), os.path.join(src, sub),
                                ignore=shutil.ignore_patterns("__pycache__", "libtrellis.*"))
            name = result(hook(src, "build_editable", d, env=clean_env(TRELLIS_GO_MODULE=ROOT)))
            with zipfile.ZipFile(os.path.join(d, name)) as z:
                pth = [n for n in z.namelist() if n.endswith(".pth")]
                self.assertEqual(len(pth), 1)
                self.assertEqual(z.read(pth[0]).decode().strip(), src)
            built = [f for f in os.listdir(os.path.join(src, "trellis")) if f.startswith("libtrellis.")]
            self.assertEqual(len(built), 1, built)  # the library, not cgo's header
            lib, labels = run_installed(src)
            self.assertEqual(os.path.dirname(lib), os.path.join(src, "trellis"))


class ErrorTest(unittest.TestCase):
    """What a build without its tools says (these run no Go build)."""

    def check(self, env, *want):
        with tempfile.TemporaryDirectory() as d:
            p = hook(PYDIR, "build_wheel", d, env=env)
            self.assertNotEqual(p.returncode, 0)
            self.assertEqual(os.listdir(d), [])
        for w in want:
            self.assertIn(w, p.stderr)

    def test_no_go(self):
        env = clean_env(PATH=os.path.join(tempfile.gettempdir(), "no-such-dir"))
        env.pop("TRELLIS_GO", None)
        self.check(env, "BuildError: Go is needed to build libtrellis", "https://go.dev/dl/", "TRELLIS_GO")
        self.check(clean_env(TRELLIS_GO="/no/such/go"), "BuildError: cannot run /no/such/go")

    @unittest.skipIf(shutil.which("go") is None, "needs go")
    def test_no_cgo(self):
        self.check(clean_env(CGO_ENABLED="0"), "libtrellis needs cgo", "C compiler")

    def test_no_module(self):
        with tempfile.TemporaryDirectory() as d:
            self.check(clean_env(TRELLIS_GO_MODULE=d), "TRELLIS_GO_MODULE=%s holds no go.mod" % d)


if __name__ == "__main__":
    unittest.main()
