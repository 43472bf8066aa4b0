#!/usr/bin/env bash
# The trellis Python package as a user gets it, offline: a fresh virtualenv,
# `pip install` of this folder with no package index (the build backend is
# in the tree, needs no build requirements and runs `go build` on
# ./cmd/libtrellis), a wheel built and installed in a second virtualenv,
# then a fit/predict and the unit tests against the installed package, run
# from outside the tree with neither PYTHONPATH nor TRELLIS_LIB.
#
# Needs python3 (with venv, which brings pip), Go and a C compiler (cgo).
# TRELLIS_BIN, when set, is the trellis command the tests use (else they
# build it with go).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Nothing from the machine's pip configuration (an index, find-links).
unset PYTHONPATH TRELLIS_LIB TRELLIS_GO_MODULE PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CONFIG_FILE=/dev/null

python3 -m venv "$tmp/venv"
py=$tmp/venv/bin/python
"$py" -m pip install --no-index --no-build-isolation "$here"
"$py" -m pip wheel --no-index --no-build-isolation -w "$tmp/dist" "$here"
python3 -m venv "$tmp/wheel-venv"
"$tmp/wheel-venv/bin/python" -m pip install --no-index "$tmp"/dist/trellis_nlp-*.whl

cd "$tmp" # not the source folder, where `import trellis` would find the tree
for python in "$py" "$tmp/wheel-venv/bin/python"; do
  "$python" - <<'EOF'
import trellis
X = [[{"w": "the"}, {"w": "dog"}, {"w": "barks"}], [{"w": "a"}, {"w": "cat"}, {"w": "sleeps"}]]
crf = trellis.CRF(c2=0.01).fit(X, [["DET", "NOUN", "VERB"]] * 2)
got = crf.predict([[{"w": "a"}, {"w": "dog"}, {"w": "sleeps"}]])
assert got == [["DET", "NOUN", "VERB"]], got
print("fit/predict from", trellis.library_path(), "->", got)
EOF
done

TRELLIS_TEST_INSTALLED=1 "$py" -m unittest discover -s "$here/tests" -t "$here/tests"
