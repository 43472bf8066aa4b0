"""ctypes bindings to libtrellis (cmd/libtrellis).

The library is loaded with ctypes.CDLL, which releases the GIL for the
duration of every foreign call: other Python threads run while a model
trains or tags. Attribute sentences go in a sentence buffer (_features.encode,
cmd/libtrellis/buffer.go), raw text as UTF-8, settings and results as JSON;
every call that can fail fills a char ** with trellis's message, raised
here as TrellisError.
"""

import ctypes
import json
import os
import sys
import threading

_ENV = "TRELLIS_LIB"


class TrellisError(ValueError):
    """An error reported by trellis, carrying its message."""


def _library_names():
    if sys.platform == "darwin":
        return ["libtrellis.dylib", "libtrellis.so"]
    if sys.platform == "win32":
        return ["libtrellis.dll", "trellis.dll"]
    return ["libtrellis.so"]


def library_path():
    """The path libtrellis is loaded from: $TRELLIS_LIB, else the first
    library found in this package's folder or the folder holding it."""
    env = os.environ.get(_ENV)
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    tried = []
    for folder in (here, os.path.dirname(here)):
        for name in _library_names():
            path = os.path.join(folder, name)
            if os.path.exists(path):
                return path
            tried.append(path)
    raise OSError(
        "libtrellis not found (looked for %s); install the package with pip "
        "(`pip install ./cmd/libtrellis/python`, which builds it), or build it with "
        "`go build -buildmode=c-shared -o libtrellis.so ./cmd/libtrellis` "
        "and set %s to its path or put it beside the trellis package"
        % (", ".join(tried), _ENV)
    )


_lib = None
_lib_lock = threading.Lock()


class Buf(ctypes.Structure):
    """A trellis_buf: bytes lent to libtrellis for one call."""

    _fields_ = [("data", ctypes.c_char_p), ("len", ctypes.c_size_t)]


def buf(data):
    """data (bytes, or None for none) as a Buf, which keeps it alive."""
    return Buf(data or None, len(data or b""))


def _declare(lib):
    c_int64, c_size_t = ctypes.c_int64, ctypes.c_size_t
    err = ctypes.POINTER(ctypes.c_void_p)
    size = ctypes.POINTER(c_size_t)
    sigs = {
        "trellis_train": ([Buf, Buf, Buf, err], c_int64),
        "trellis_load": ([ctypes.c_char_p, err], c_int64),
        "trellis_load_bytes": ([ctypes.c_char_p, c_size_t, err], c_int64),
        "trellis_info": ([c_int64, size, err], ctypes.c_void_p),
        "trellis_weights": ([c_int64, size, err], ctypes.c_void_p),
        "trellis_training_log": ([c_int64, size, err], ctypes.c_void_p),
        "trellis_tag": ([c_int64, ctypes.c_char_p, c_size_t, ctypes.c_int, size, err], ctypes.c_void_p),
        "trellis_tag_attributes": ([c_int64, ctypes.c_char_p, c_size_t, ctypes.c_int, size, err], ctypes.c_void_p),
        "trellis_tag_text": ([c_int64, ctypes.c_char_p, c_size_t, ctypes.c_char_p, size, err], ctypes.c_void_p),
        "trellis_tokenize": ([ctypes.c_char_p, c_size_t, ctypes.c_char_p, size, err], ctypes.c_void_p),
        "trellis_pipeline_new": ([ctypes.POINTER(c_int64), c_size_t, err], c_int64),
        "trellis_pipeline_tag_text": ([c_int64, ctypes.c_char_p, c_size_t, ctypes.c_char_p, size, err],
                                      ctypes.c_void_p),
        "trellis_pipeline_tag": ([c_int64, ctypes.c_char_p, c_size_t, size, err], ctypes.c_void_p),
        "trellis_pipeline_free": ([c_int64], None),
        "trellis_save": ([c_int64, ctypes.c_char_p, err], ctypes.c_int),
        "trellis_bytes": ([c_int64, size, err], ctypes.c_void_p),
        "trellis_free": ([c_int64], None),
        "trellis_free_buffer": ([ctypes.c_void_p], None),
    }
    for name, (args, res) in sigs.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res


def lib():
    """The loaded library (loaded on first use)."""
    global _lib
    with _lib_lock:
        if _lib is None:
            path = library_path()
            try:
                loaded = ctypes.CDLL(path)
            except OSError as e:
                raise OSError("cannot load libtrellis from %s: %s" % (path, e)) from e
            _declare(loaded)
            _lib = loaded
        return _lib


def _raise(err):
    """Raise the message in err (a filled char **), freeing it."""
    msg = ctypes.string_at(err.value).decode("utf-8", "replace")
    lib().trellis_free_buffer(err)
    raise TrellisError(msg)


def _result(ptr, n, err):
    """The bytes of a returned buffer, freed; or the error raised."""
    if not ptr:
        if err.value:
            _raise(err)
        raise TrellisError("libtrellis returned nothing and no error")
    try:
        return ctypes.string_at(ptr, n.value)
    finally:
        lib().trellis_free_buffer(ptr)


def _handle(h, err):
    if h == 0:
        if err.value:
            _raise(err)
        raise TrellisError("libtrellis returned no model and no error")
    return h


def _path(path):
    return os.fsencode(os.fspath(path))


def _text(text):
    """text as UTF-8, for the text calls; their offsets count str's
    characters, so only a str is taken."""
    if not isinstance(text, str):
        raise TypeError("text must be a str, got %s" % type(text).__name__)
    return text.encode("utf-8")


def _tokenizer(name):
    """The tokenizer name or model path as the C string libtrellis takes."""
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError("tokenizer must be a str (a name or a model path) or a path, got %s" % type(name).__name__)
    data = os.fsencode(name)
    # A C string ends at NUL: refused rather than silently cut short.
    if b"\0" in data:
        raise ValueError("tokenizer %r contains NUL" % (name,))
    return data


def tokenize(text, tokenizer):
    """Sentences and tokens of text (cmd/libtrellis/text.go)."""
    data = _text(text)
    n, err = ctypes.c_size_t(), ctypes.c_void_p()
    ptr = lib().trellis_tokenize(data, len(data), _tokenizer(tokenizer), ctypes.byref(n), ctypes.byref(err))
    return json.loads(_result(ptr, n, err))


class _Handle:
    """An object of one of libtrellis's handle tables: its _free names the
    function that frees it; close() frees it once, and so does the
    garbage collector."""

    handle = 0
    _free = None

    def _call_buffer(self, f, *args):
        n, err = ctypes.c_size_t(), ctypes.c_void_p()
        ptr = f(self.handle, *args, ctypes.byref(n), ctypes.byref(err))
        return _result(ptr, n, err)

    def close(self):
        if self.handle:
            getattr(lib(), self._free)(self.handle)
            self.handle = 0

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Model(_Handle):
    """A model in libtrellis's handle table; free it with close()."""

    def __init__(self, handle):
        self.handle = handle
        self.info = json.loads(self._call_buffer(lib().trellis_info))

    @classmethod
    def train(cls, settings, train, dev=None):
        """A model trained with settings (a dict) on sentence buffers."""
        data = json.dumps(settings, allow_nan=False).encode("utf-8")
        err = ctypes.c_void_p()
        h = lib().trellis_train(buf(data), buf(train), buf(dev), ctypes.byref(err))
        return cls(_handle(h, err))

    @classmethod
    def load(cls, path):
        err = ctypes.c_void_p()
        return cls(_handle(lib().trellis_load(_path(path), ctypes.byref(err)), err))

    @classmethod
    def from_bytes(cls, data):
        data = bytes(data)
        err = ctypes.c_void_p()
        return cls(_handle(lib().trellis_load_bytes(data, len(data), ctypes.byref(err)), err))

    def tag(self, request, marginals=False):
        """Tag tokens or rows ({"tokens": ...} or {"rows": ...})."""
        data = json.dumps(request, allow_nan=False, separators=(",", ":")).encode("utf-8")
        out = self._call_buffer(lib().trellis_tag, data, len(data), 1 if marginals else 0)
        return json.loads(out)

    def tag_attributes(self, buf, marginals=False):
        """Tag the sentences of a sentence buffer."""
        out = self._call_buffer(lib().trellis_tag_attributes, buf, len(buf), 1 if marginals else 0)
        return json.loads(out)

    def tag_text(self, text, tokenizer):
        """Tag raw text (a str) split by the tokenizer called tokenizer:
        the sentences as `trellis tag --input text --output json` gives
        them (cmd/libtrellis/text.go)."""
        data = _text(text)
        out = self._call_buffer(lib().trellis_tag_text, data, len(data), _tokenizer(tokenizer))
        return json.loads(out)

    def weights(self):
        """The model's parameters (cmd/libtrellis/weights.go)."""
        return json.loads(self._call_buffer(lib().trellis_weights))

    def training_log(self):
        """The events trellis logged while training the model, [] for a
        loaded one."""
        return json.loads(self._call_buffer(lib().trellis_training_log))

    def save(self, path):
        err = ctypes.c_void_p()
        if lib().trellis_save(self.handle, _path(path), ctypes.byref(err)) != 0:
            _raise(err)

    def to_bytes(self):
        return self._call_buffer(lib().trellis_bytes)

    _free = "trellis_free"


class Pipeline(_Handle):
    """A pipeline of Models in libtrellis's pipeline table (pipeline.go);
    free it with close(). It keeps the Models, so that they outlive it."""

    def __init__(self, models):
        self.models = tuple(models)
        handles = (ctypes.c_int64 * len(self.models))(*(m.handle for m in self.models))
        err = ctypes.c_void_p()
        self.handle = 0
        self.handle = _handle(lib().trellis_pipeline_new(handles, len(self.models), ctypes.byref(err)), err)

    def tag_text(self, text, tokenizer):
        data = _text(text)
        return json.loads(self._call_buffer(lib().trellis_pipeline_tag_text, data, len(data), _tokenizer(tokenizer)))

    def tag(self, words):
        """Per sentence of words (lists of str), {column: labels}."""
        data = json.dumps(words, separators=(",", ":")).encode("utf-8")
        return json.loads(self._call_buffer(lib().trellis_pipeline_tag, data, len(data)))

    _free = "trellis_pipeline_free"
