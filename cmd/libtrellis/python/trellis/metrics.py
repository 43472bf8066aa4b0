"""Scores of label sequences, standard library only.

The flat_* functions are sklearn_crfsuite.metrics's: they flatten the
sentences into one list of labels and score it as scikit-learn's
accuracy_score, precision_score, recall_score, f1_score, fbeta_score and
classification_report do (the same arguments: labels, pos_label, average,
zero_division; default average="binary", as scikit-learn). Without
scikit-learn: scores are floats, or lists of floats for average=None.

sequence_accuracy_score is sklearn_crfsuite.metrics's too: the fraction
of sentences labelled entirely right.

The span_* functions score labelled spans (chunks, entities) as the CoNLL
conlleval script and `trellis eval` do: spans are read from IOB1, IOB2 or
BIOES labels ("B-NP", "I-NP", "E-NP", "S-NP", "O") with conlleval's rules,
so that ill-formed output is counted as conlleval counts it, and a span is
right when its type, start and end all are. Scores are fractions (conlleval
prints percentages).
"""

import sys
import warnings

__all__ = [
    "UndefinedMetricWarning",
    "flat_accuracy_score", "flat_precision_score", "flat_recall_score", "flat_f1_score", "flat_fbeta_score",
    "flat_classification_report", "sequence_accuracy_score",
    "spans", "span_precision_recall_f1", "span_f1_score", "span_classification_report",
]

_AVERAGES = (None, "binary", "micro", "macro", "weighted")


class UndefinedMetricWarning(UserWarning):
    """A score divided by zero (no prediction or no gold item of a label)
    and zero_division="warn": the score is 0."""


def _sentences(y_true, y_pred):
    """y_true and y_pred as lists of label lists, checked to match in
    shape."""
    y_true, y_pred = [list(s) for s in y_true], [list(s) for s in y_pred]
    if len(y_true) != len(y_pred):
        raise ValueError("y_true has %d sentences, y_pred has %d" % (len(y_true), len(y_pred)))
    for k, (t, p) in enumerate(zip(y_true, y_pred)):
        if len(t) != len(p):
            raise ValueError("sentence %d: y_true has %d labels, y_pred has %d" % (k, len(t), len(p)))
    return y_true, y_pred


def _flat(y_true, y_pred):
    y_true, y_pred = _sentences(y_true, y_pred)
    return [x for s in y_true for x in s], [x for s in y_pred for x in s]


def _divide(num, den, zero_division, what):
    if den:
        return num / den
    if zero_division == "warn":
        _warn("%s is ill-defined (no items); it is set to 0. Use zero_division to choose the value." % what)
        return 0.0
    return float(zero_division)


def _warn(message):
    """Warn, pointing at the code that called into this module."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        level, frame = level + 1, frame.f_back
    warnings.warn(message, UndefinedMetricWarning, stacklevel=level)


def _check_zero_division(zero_division):
    if zero_division != "warn" and zero_division not in (0, 1):
        raise ValueError('zero_division must be "warn", 0 or 1, got %r' % (zero_division,))


def _per_label(true, pred, labels, beta, zero_division):
    """Per label of labels: (precision, recall, F-beta, support), and the
    sums (true positives, predicted, gold) over them."""
    tp, npred, ngold = {}, {}, {}
    for t, p in zip(true, pred):
        ngold[t] = ngold.get(t, 0) + 1
        npred[p] = npred.get(p, 0) + 1
        if t == p:
            tp[t] = tp.get(t, 0) + 1
    rows = []
    for label in labels:
        a, b, c = tp.get(label, 0), npred.get(label, 0), ngold.get(label, 0)
        p = _divide(a, b, zero_division, "precision of label %r" % (label,))
        r = _divide(a, c, zero_division, "recall of label %r" % (label,))
        rows.append((p, r, _fbeta(p, r, beta, b == 0 and c == 0, zero_division), c))
    sums = tuple(sum(d.get(label, 0) for label in labels) for d in (tp, npred, ngold))
    return rows, sums


def _fbeta(p, r, beta, empty, zero_division):
    if empty and zero_division != "warn":
        return float(zero_division)
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r) if b2 * p + r else 0.0


def _labels(true, pred, labels):
    if labels is None:
        return sorted(set(true) | set(pred))
    return list(labels)


def _precision_recall_fscore(y_true, y_pred, beta, labels, pos_label, average, zero_division):
    if average not in _AVERAGES:
        raise ValueError("average must be one of %s, got %r" % (_AVERAGES, average))
    if beta < 0:
        raise ValueError("beta must be >= 0, got %r" % (beta,))
    _check_zero_division(zero_division)
    true, pred = _flat(y_true, y_pred)
    if average == "binary":
        present = sorted(set(true) | set(pred))
        if len(present) > 2:
            raise ValueError("the labels are multiclass (%d labels) but average='binary'; choose another average: "
                             "None, 'micro', 'macro' or 'weighted'" % len(present))
        if present and pos_label not in present:
            raise ValueError("pos_label=%r is not a label; it should be one of %r" % (pos_label, present))
        labels = [pos_label]
    else:
        labels = _labels(true, pred, labels)
    rows, sums = _per_label(true, pred, labels, beta, zero_division)
    if average is None:
        return [[row[k] for row in rows] for k in range(4)]
    if average == "binary":
        return rows[0]
    return _average(rows, sums, beta, average, zero_division)


def _average(rows, sums, beta, average, zero_division):
    """The micro, macro or weighted average of per-label rows."""
    tp, npred, ngold = sums
    if average == "micro":
        p = _divide(tp, npred, zero_division, "micro-averaged precision")
        r = _divide(tp, ngold, zero_division, "micro-averaged recall")
        return p, r, _fbeta(p, r, beta, npred == 0 and ngold == 0, zero_division), ngold
    if not rows:
        return 0.0, 0.0, 0.0, 0
    if average == "macro":
        return tuple(sum(row[k] for row in rows) / len(rows) for k in range(3)) + (ngold,)
    if ngold == 0:  # weighted by support, and there is none
        return 0.0, 0.0, 0.0, 0
    return tuple(sum(row[k] * row[3] for row in rows) / ngold for k in range(3)) + (ngold,)


def flat_accuracy_score(y_true, y_pred):
    """The fraction of tokens labelled right."""
    true, pred = _flat(y_true, y_pred)
    if not true:
        return 0.0
    return sum(t == p for t, p in zip(true, pred)) / len(true)


def flat_precision_score(y_true, y_pred, labels=None, pos_label=1, average="binary", zero_division="warn"):
    """Token precision (scikit-learn's precision_score on the flattened
    labels)."""
    return _precision_recall_fscore(y_true, y_pred, 1.0, labels, pos_label, average, zero_division)[0]


def flat_recall_score(y_true, y_pred, labels=None, pos_label=1, average="binary", zero_division="warn"):
    """Token recall (scikit-learn's recall_score on the flattened labels)."""
    return _precision_recall_fscore(y_true, y_pred, 1.0, labels, pos_label, average, zero_division)[1]


def flat_fbeta_score(y_true, y_pred, beta, labels=None, pos_label=1, average="binary", zero_division="warn"):
    """Token F-beta (scikit-learn's fbeta_score on the flattened labels)."""
    return _precision_recall_fscore(y_true, y_pred, beta, labels, pos_label, average, zero_division)[2]


def flat_f1_score(y_true, y_pred, labels=None, pos_label=1, average="binary", zero_division="warn"):
    """Token F1 (scikit-learn's f1_score on the flattened labels), e.g.
    flat_f1_score(y_test, y_pred, average="weighted", labels=labels)."""
    return _precision_recall_fscore(y_true, y_pred, 1.0, labels, pos_label, average, zero_division)[2]


def sequence_accuracy_score(y_true, y_pred):
    """The fraction of sentences whose labels are all right (0 for none)."""
    y_true, y_pred = _sentences(y_true, y_pred)
    if not y_true:
        return 0
    return sum(t == p for t, p in zip(y_true, y_pred)) / len(y_true)


def flat_classification_report(y_true, y_pred, labels=None, target_names=None, digits=2, output_dict=False,
                               zero_division="warn"):
    """Per-label precision, recall, F1 and support, and their averages, as
    scikit-learn's classification_report prints them (a dict with
    output_dict=True). With labels a subset of the labels present (say,
    every label but "O"), the first average is "micro avg"; otherwise it is
    the accuracy."""
    _check_zero_division(zero_division)
    true, pred = _flat(y_true, y_pred)
    present = set(true) | set(pred)
    labels = _labels(true, pred, labels)
    names = [str(label) for label in labels] if target_names is None else list(target_names)
    if len(names) != len(labels):
        raise ValueError("%d target_names for %d labels" % (len(names), len(labels)))
    rows, sums = _per_label(true, pred, labels, 1.0, zero_division)
    report = {name: dict(zip(_KEYS, row)) for name, row in zip(names, rows)}
    micro = _average(rows, sums, 1.0, "micro", zero_division)
    # scikit-learn's rule: with every label present, micro precision,
    # recall and F1 are all the accuracy.
    if set(labels) == present:
        report["accuracy"] = micro[0]
    else:
        report["micro avg"] = dict(zip(_KEYS, micro))
    for avg in ("macro", "weighted"):
        report[avg + " avg"] = dict(zip(_KEYS, _average(rows, sums, 1.0, avg, zero_division)))
    if output_dict:
        return report
    return _report_text(report, names, digits)


_KEYS = ("precision", "recall", "f1-score", "support")


def _report_text(report, names, digits):
    width = max([len(n) for n in names] + [len("weighted avg"), digits])
    head = " " * width + " " + "".join(" %9s" % k for k in _KEYS) + "\n\n"

    def row(name, r):
        return "%*s %s %9d\n" % (width, name, "".join(" %9.*f" % (digits, r[k]) for k in _KEYS[:3]), r["support"])

    lines = [row(n, report[n]) for n in names]
    lines.append("\n")
    for name, r in report.items():
        if name in names:
            continue
        if name == "accuracy":
            support = report["macro avg"]["support"]
            lines.append("%*s  %9s %9s %9.*f %9d\n" % (width, name, "", "", digits, r, support))
        else:
            lines.append(row(name, r))
    return head + "".join(lines)


# -- spans -----------------------------------------------------------------


def _split(label):
    """A label's prefix and type: "B-NP" is ("B", "NP"), "O" is ("O", "")."""
    prefix, _, typ = label.partition("-")
    return prefix, typ


def _span_ends(prev_tag, tag, prev_type, typ):
    """Whether a span open at the previous token ends before this one
    (conlleval's endOfChunk, with BIOES's E and S)."""
    if prev_tag in ("E", "S"):
        return True
    if prev_tag in ("B", "I") and tag in ("B", "S", "O"):
        return True
    return prev_tag not in ("O", ".") and prev_type != typ


def _span_starts(prev_tag, tag, prev_type, typ):
    """Whether a span starts at this token (conlleval's startOfChunk)."""
    if tag in ("B", "S"):
        return True
    if tag in ("E", "I") and prev_tag in ("E", "S", "O"):
        return True
    return tag not in ("O", ".") and prev_type != typ


def spans(labels):
    """The labelled spans of one sentence's labels, as (type, start, end)
    with end exclusive: spans(["B-NP", "I-NP", "O", "I-VP"]) is
    [("NP", 0, 2), ("VP", 3, 4)]. An I- after O starts a span (IOB1), and
    a change of type always ends one."""
    labels = list(labels)
    out = []
    prev_tag, prev_type = "O", ""
    open_span = None  # (type, start) of the span being read
    # A final "O" closes the last span.
    for i, label in enumerate(labels + ["O"]):
        tag, typ = _split(label)
        ends = _span_ends(prev_tag, tag, prev_type, typ)
        starts = i < len(labels) and _span_starts(prev_tag, tag, prev_type, typ)
        # conlleval can open a span without closing the one before it
        # (prefixes other than B, I, E, S, O); closing it keeps spans
        # apart, as `trellis eval` does.
        if open_span is not None and (ends or starts):
            out.append((open_span[0], open_span[1], i))
            open_span = None
        if starts:
            open_span = (typ, i)
        prev_tag, prev_type = tag, typ
    return out


def _span_counts(y_true, y_pred):
    """Per span type: [right, predicted, gold]."""
    y_true, y_pred = _sentences(y_true, y_pred)
    counts = {}
    for t, p in zip(y_true, y_pred):
        gold, pred = set(spans(t)), spans(p)
        for typ, _, _ in gold:
            counts.setdefault(typ, [0, 0, 0])[2] += 1
        for s in pred:
            c = counts.setdefault(s[0], [0, 0, 0])
            c[1] += 1
            c[0] += s in gold
    return counts


def _prf(right, pred, gold):
    p = right / pred if pred else 0.0
    r = right / gold if gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def span_precision_recall_f1(y_true, y_pred):
    """Span precision, recall and F1 over all spans (conlleval's overall
    line), as fractions: 0 where there is nothing to divide by."""
    counts = _span_counts(y_true, y_pred)
    return _prf(*(sum(c[k] for c in counts.values()) for k in range(3)))


def span_f1_score(y_true, y_pred, average="micro"):
    """Span F1: "micro" over all spans (conlleval's FB1), "macro" the mean
    of the types' F1, None a dict type -> F1."""
    if average == "micro":
        return span_precision_recall_f1(y_true, y_pred)[2]
    counts = _span_counts(y_true, y_pred)
    per_type = {typ: _prf(*c)[2] for typ, c in sorted(counts.items())}
    if average is None:
        return per_type
    if average == "macro":
        return sum(per_type.values()) / len(per_type) if per_type else 0.0
    raise ValueError("average must be 'micro', 'macro' or None, got %r" % (average,))


def span_classification_report(y_true, y_pred, digits=2, output_dict=False):
    """Per span type precision, recall, F1 and support (gold spans), and
    the micro and macro averages, laid out as flat_classification_report;
    a dict with output_dict=True. Support counts gold spans; a type only
    predicted has support 0."""
    counts = _span_counts(y_true, y_pred)
    report = {}
    for typ, c in sorted(counts.items()):
        report[typ] = dict(zip(_KEYS, _prf(*c) + (c[2],)))
    total = [sum(c[k] for c in counts.values()) for k in range(3)]
    report["micro avg"] = dict(zip(_KEYS, _prf(*total) + (total[2],)))
    n = len(counts)
    report["macro avg"] = dict(zip(_KEYS, tuple(
        sum(report[t][k] for t in counts) / n if n else 0.0 for k in _KEYS[:3]) + (total[2],)))
    if output_dict:
        return report
    return _report_text(report, sorted(counts), digits)
