"""sklearn-crfsuite's X in the form libtrellis takes.

A token is a dict or a list of attribute names, as in python-crfsuite:

* {"key": "value"} is the attribute "key=value" with value 1;
* {"key": True} is "key" with value 1, False with value 0;
* {"key": 2.5} (any real number) is "key" with value 2.5;
* {"key": {...}} / {"key": [...]} / {"key": {"a", "b"}} nest: the inner
  attributes' names are prefixed with "key:";
* ["a", "b"] are the attributes "a" and "b" with value 1.

libtrellis takes sentences in a sentence buffer (cmd/libtrellis/buffer.go),
built here. Every error names where it is: X[k][i] and the key.
"""

import math
import numbers
import sys
from array import array


def _where(path):
    return "".join("[%r]" % p if isinstance(p, str) else "[%d]" % p for p in path)


def _attrs(x, prefix, names, values, path, name):
    """Append the attributes of x (a token or a nested value) to names and
    values, each name prefixed with prefix. path locates x in errors; it is
    extended only when an error is raised (this loop runs for every
    attribute of a corpus)."""
    if type(x) is dict or isinstance(x, dict):
        for key, value in x.items():
            t = type(key)
            if t is not str:
                if t is bytes:
                    key = key.decode("utf-8")
                elif not isinstance(key, str):
                    raise TypeError("%s%s: attribute names are strings, got %s %r"
                                    % (name, _where(path), type(key).__name__, key))
            t = type(value)
            if t is str:
                names.append(prefix + key + "=" + value)
                values.append(1.0)
            elif t is bool:
                names.append(prefix + key)
                values.append(1.0 if value else 0.0)
            elif t is float or t is int:
                if not math.isfinite(value):
                    raise ValueError("%s%s: value %r is not a finite number" % (name, _where(path + [key]), value))
                names.append(prefix + key)
                values.append(float(value))
            else:
                _other(key, value, prefix, names, values, path, name)
    elif isinstance(x, (list, tuple, set, frozenset)):
        for j, item in enumerate(sorted(x) if isinstance(x, (set, frozenset)) else x):
            if type(item) is not str:
                if isinstance(item, bytes):
                    item = item.decode("utf-8")
                elif not isinstance(item, str):
                    raise TypeError("%s%s: a list of attributes holds names (str), got %s at index %d"
                                    % (name, _where(path), type(item).__name__, j))
            names.append(prefix + item)
            values.append(1.0)
    else:
        raise TypeError("%s%s: a token is a dict of attributes or a list of attribute names, got %s"
                        % (name, _where(path), type(x).__name__))


def _other(key, value, prefix, names, values, path, name):
    """The values that are not plain str, bool, int or float: nested
    containers, bytes, str and number subclasses (numpy's floats)."""
    full, here = prefix + key, path + [key]
    if isinstance(value, (dict, list, set, frozenset, tuple)):
        _attrs(value, full + ":", names, values, here, name)
    elif isinstance(value, str):
        names.append(full + "=" + value)
        values.append(1.0)
    elif isinstance(value, bytes):
        names.append(full + "=" + value.decode("utf-8"))
        values.append(1.0)
    elif isinstance(value, bool):
        names.append(full)
        values.append(1.0 if value else 0.0)
    elif isinstance(value, numbers.Real):
        v = float(value)
        if not math.isfinite(v):
            raise ValueError("%s%s: value %r is not a finite number" % (name, _where(here), value))
        names.append(full)
        values.append(v)
    else:
        raise TypeError("%s%s: a value is a str, bool, number, dict, list or set, got %s"
                        % (name, _where(here), type(value).__name__))


def token(x, path, name="X"):
    """One token's attributes: (names, values)."""
    names, values = [], []
    _attrs(x, "", names, values, path, name)
    return names, values


def _check_iterable(x, what, name):
    if isinstance(x, (str, bytes, dict)) or not hasattr(x, "__iter__"):
        raise TypeError("%s is a list of %s, got %s" % (name, what, type(x).__name__))


def _nul_free(strings, blob, what):
    """Refuse strings holding NUL, which ends a string in the buffer."""
    if blob.count("\0") != len(strings):
        for s in strings:
            if "\0" in s:
                raise ValueError("%s %r contains NUL, which trellis does not allow" % (what, s))


def _u32s(values):
    a = array("I", values)
    if a.itemsize != 4:
        a = array("L", values)
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


def encode(X, y=None, name="X", yname="y"):
    """X (and its labels y, checked against X's shape) as a sentence
    buffer; returns (buffer, token counts per sentence)."""
    _check_iterable(X, "sentences", name)
    sent_lens, tok_lens, names, values = [], [], [], []
    for k, xseq in enumerate(X):
        _check_iterable(xseq, "tokens", "%s[%d]" % (name, k))
        n = 0
        for i, x in enumerate(xseq):
            ns, vs = token(x, [k, i], name)
            tok_lens.append(len(ns))
            names += ns
            values += vs
            n += 1
        sent_lens.append(n)
    flat = None
    if y is not None:
        flat = [label for ys in labels(y, sent_lens, yname, name) for label in ys]
    has_values = values.count(1.0) != len(values)
    parts = [_u32s([len(sent_lens)]), _u32s(sent_lens), _u32s(tok_lens),
             _u32s([(1 if has_values else 0) | (2 if flat is not None else 0)])]
    if has_values:
        v = array("d", values)
        if sys.byteorder != "little":
            v.byteswap()
        parts.append(v.tobytes())
    blob = "\0".join(names) + "\0" if names else ""
    _nul_free(names, blob, "attribute name")
    parts.append(blob.encode("utf-8"))
    if flat is not None:
        blob = "\0".join(flat) + "\0" if flat else ""
        _nul_free(flat, blob, "label")
        parts.append(blob.encode("utf-8"))
    return b"".join(parts), sent_lens


def labels(y, lengths, name="y", xname="X"):
    """y checked against X's shape: a list of lists of str."""
    if isinstance(y, (str, bytes, dict)) or not hasattr(y, "__iter__"):
        raise TypeError("%s is a list of label sequences, got %s" % (name, type(y).__name__))
    y = [list(ys) if not isinstance(ys, (str, bytes)) else ys for ys in y]
    if len(y) != len(lengths):
        raise ValueError("%s has %d sentences, %s has %d" % (xname, len(lengths), name, len(y)))
    for k, ys in enumerate(y):
        if isinstance(ys, (str, bytes)):
            raise TypeError("%s[%d]: a label sequence is a list of str, got %s" % (name, k, type(ys).__name__))
        if len(ys) != lengths[k]:
            raise ValueError("%s[%d] has %d tokens, %s[%d] has %d labels" % (xname, k, lengths[k], name, k, len(ys)))
        for i, label in enumerate(ys):
            if not isinstance(label, str):
                raise TypeError("%s[%d][%d]: labels are str, got %s" % (name, k, i, type(label).__name__))
    return y


def plain(X):
    """X for a model that reads words or column rows (made by `trellis
    run` on a corpus of columns): {"tokens": ...} when every token is a
    str, {"rows": ...} when every token is a list of column values."""
    X = [list(xseq) for xseq in X]
    toks = [x for xseq in X for x in xseq]
    if all(isinstance(x, str) for x in toks):
        return {"tokens": X}
    if all(isinstance(x, (list, tuple)) and all(isinstance(c, str) for c in x) for x in toks):
        return {"rows": [[list(x) for x in xseq] for xseq in X]}
    raise TypeError("this model reads words (or rows of column values), not attribute dicts: "
                    "give each token as a str, or every token as a list of str")
